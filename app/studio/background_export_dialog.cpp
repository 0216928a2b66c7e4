#include "app/studio/background_export_dialog.h"

#include "app/studio/session.h"

#include <QDialogButtonBox>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QVBoxLayout>

namespace remat::studio {

BackgroundExportDialog::BackgroundExportDialog(Session &session, QWidget *parent)
    : QDialog(parent), session_(session), worker_(new BackgroundExport(this)), progress_(new QProgressBar(this)),
      message_(new QLabel(this)) {
    progress_->setObjectName(QStringLiteral("progress"));
    progress_->setVisible(false);
    message_->setObjectName(QStringLiteral("message"));
    message_->setWordWrap(true);
    auto *buttons = new QDialogButtonBox(this);
    exportButton_ = buttons->addButton(tr("Export"), QDialogButtonBox::AcceptRole);
    cancelButton_ = buttons->addButton(QDialogButtonBox::Cancel);
    connect(exportButton_, &QPushButton::clicked, this, &BackgroundExportDialog::start);
    connect(cancelButton_, &QPushButton::clicked, this, &BackgroundExportDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(progress_);
    layout->addWidget(message_);
    layout->addWidget(buttons);
    connect(worker_, &BackgroundExport::progressed, this, &BackgroundExportDialog::showProgress);
    connect(worker_, &BackgroundExport::finished, this, &BackgroundExportDialog::onFinished);
}

BackgroundExportDialog::~BackgroundExportDialog() {
    worker_->stopAndWait();
}

void BackgroundExportDialog::setOptionsLayout(QLayout *options) {
    static_cast<QVBoxLayout *>(layout())->insertLayout(0, options);
}

QString BackgroundExportDialog::message() const {
    return message_->text();
}

void BackgroundExportDialog::setMessage(const QString &text) {
    message_->setText(text);
}

void BackgroundExportDialog::run(int total, const QString &text, BackgroundExport::Work work) {
    progress_->setRange(0, total);
    progress_->setValue(0);
    progress_->setVisible(true);
    exportButton_->setEnabled(false);
    message_->setText(text);
    worker_->start(total, std::move(work));
}

void BackgroundExportDialog::showProgress(int done, int total) {
    if (total > 0 && progress_->maximum() != total) { // counted once planned
        progress_->setRange(0, total);
        message_->setText(tr("Writing %1 frames\u2026").arg(total));
    }
    if (total > 0)
        progress_->setValue(done);
}

void BackgroundExportDialog::onFinished(const ExportOutcome &outcome) {
    exportButton_->setEnabled(true);
    message_->setText(outcome.message);
    emit exportFinished(outcome.ok, outcome.message);
    if (outcome.ok) {
        session_.say(outcome.message, 10000);
        accept();
    }
}

void BackgroundExportDialog::reject() {
    if (isRunning()) {
        worker_->cancel(); // the worker stops at the next frame; onFinished reports it
        message_->setText(tr("Cancelling\u2026"));
        return;
    }
    QDialog::reject();
}

} // namespace remat::studio
