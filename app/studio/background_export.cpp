#include "app/studio/background_export.h"

#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>

namespace remat::studio {

BackgroundExport::BackgroundExport(QObject *parent) : QObject(parent), progress_(std::make_shared<ExportProgress>()) {
    connect(&watcher_, &QFutureWatcher<ExportOutcome>::finished, this, [this] {
        emit progressed(done(), total());
        emit finished(watcher_.result());
    });
}

BackgroundExport::~BackgroundExport() {
    stopAndWait();
}

void BackgroundExport::stopAndWait() {
    progress_->cancel.store(true);
    watcher_.waitForFinished();
}

void BackgroundExport::start(int total, Work work) {
    // A fresh progress: a worker of an earlier run may still hold the old one.
    progress_ = std::make_shared<ExportProgress>();
    progress_->total.store(total);
    auto progress = progress_;
    watcher_.setFuture(QtConcurrent::run([progress, work = std::move(work)]() { return work(*progress); }));
    auto *timer = new QTimer(this);
    connect(timer, &QTimer::timeout, this, [this] { emit progressed(done(), this->total()); });
    connect(&watcher_, &QFutureWatcher<ExportOutcome>::finished, timer, &QObject::deleteLater);
    timer->start(50);
}

void BackgroundExport::cancel() {
    progress_->cancel.store(true);
}

} // namespace remat::studio
