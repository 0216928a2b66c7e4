#pragma once
// An export that runs off the GUI thread, as both export dialogs (a
// timeline GIF, a lesson's GIFs) run theirs: the worker counts frames into an
// ExportProgress and asks it whether to stop; the GUI thread polls the count
// every 50 ms (`progressed`) and gets the outcome once (`finished`).
#include "core/errors.h"

#include <QFutureWatcher>
#include <QObject>
#include <QString>

#include <atomic>
#include <functional>
#include <memory>

namespace remat::studio {

struct ExportProgress {
    std::atomic<bool> cancel{false};
    std::atomic<int> done{0};
    std::atomic<int> total{0}; // 0: not known yet (planning)
};

struct ExportOutcome {
    bool ok = false;
    bool cancelled = false;
    QString message;
};

// The outcome of `write`, which returns what it wrote in words: Cancelled
// gives `cancelled()`'s words, any other error its own.
template <class Write, class CancelledText> ExportOutcome exportOutcome(Write &&write, CancelledText &&cancelled) {
    try {
        return {true, false, write()};
    } catch (const Cancelled &) {
        return {false, true, cancelled()};
    } catch (const std::exception &e) {
        return {false, false, QString::fromUtf8(e.what())};
    }
}

class BackgroundExport : public QObject {
    Q_OBJECT
public:
    using Work = std::function<ExportOutcome(ExportProgress &)>;

    explicit BackgroundExport(QObject *parent);
    // Stops a running export and waits: an owner whose data the worker reads
    // calls this in its own destructor, before that data goes.
    ~BackgroundExport() override;
    void stopAndWait();

    bool isRunning() const { return watcher_.isRunning(); }
    // Runs `work` in a worker thread with a fresh progress of `total` frames.
    void start(int total, Work work);
    // Asks the worker to stop at its next frame; `finished` reports it.
    void cancel();
    int done() const { return progress_->done.load(); }
    int total() const { return progress_->total.load(); }

signals:
    void progressed(int done, int total);
    void finished(const remat::studio::ExportOutcome &outcome);

private:
    QFutureWatcher<ExportOutcome> watcher_;
    std::shared_ptr<ExportProgress> progress_;
};

} // namespace remat::studio
