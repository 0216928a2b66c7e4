#pragma once
// What the export dialogs (a timeline GIF, a lesson's GIFs) share: their
// options on top, then a progress bar, a message line, and Export and Cancel.
// Export calls start(), which checks the options and hands the work to a
// BackgroundExport (off the GUI thread). Cancel stops a running export (the
// dialog stays until the worker has stopped) or closes the dialog. The
// outcome goes to the message line and exportFinished; an export that
// worked is also said in the session's status line, and the dialog closes.
#include "app/studio/background_export.h"

#include <QDialog>

class QLabel;
class QLayout;
class QProgressBar;
class QPushButton;

namespace remat::studio {

class Session;

class BackgroundExportDialog : public QDialog {
    Q_OBJECT
public:
    ~BackgroundExportDialog() override; // stops a running export and waits for it
    bool isRunning() const { return worker_->isRunning(); }
    QString message() const;

public slots:
    // Starts the export; false, with the reason in the message line, for a bad option.
    virtual bool start() = 0;
    void reject() override; // Cancel: stops a running export, else closes

signals:
    void exportFinished(bool ok, const QString &message);

protected:
    BackgroundExportDialog(Session &session, QWidget *parent);
    // Lays out `options` above the progress bar, the message line and the buttons.
    void setOptionsLayout(QLayout *options);
    void setMessage(const QString &text);
    // Runs `work` off the GUI thread with Export disabled: a progress bar over
    // `total` frames (0: busy until the worker counts them) and `text` meanwhile.
    void run(int total, const QString &text, BackgroundExport::Work work);
    QPushButton *exportButton() const { return exportButton_; }

private:
    void showProgress(int done, int total);
    void onFinished(const ExportOutcome &outcome);

    Session &session_;
    BackgroundExport *worker_;
    QProgressBar *progress_;
    QLabel *message_;
    QPushButton *exportButton_;
    QPushButton *cancelButton_;
};

} // namespace remat::studio
