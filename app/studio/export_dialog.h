#pragma once
// The studio's File > Export actions: an animated GIF of the timeline (options,
// progress bar and Cancel, encoding in a worker thread), a PNG of the moment
// on screen, and the panes' timelines and summaries as CSV or JSON in the
// CLI's schemas. All of it is app/export's code, the same the headless
// `remat-studio --export-gif` runs.
#include "app/export/export_pane.h"
#include "app/export/timeline_gif_export.h"

#include <QDialog>

#include <memory>
#include <vector>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QMenu;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace remat::studio {

class BackgroundExport;
class Session;
struct ExportOutcome;

// The session's simulated panes as export panes (panes without a run are left out).
std::vector<exporting::ExportPane> exportPanesOf(const Session &session);
// The render palette matching the application's current colours.
render::Palette renderPaletteOf();

// Adds the Export actions (with shortcuts) to `menu`; `view` is what "the
// view's size" means, its window the dialogs' parent.
void addExportActions(QMenu *menu, Session &session, QWidget *view);

class ExportGifDialog : public QDialog {
    Q_OBJECT
public:
    ExportGifDialog(Session &session, QWidget *view);
    ~ExportGifDialog() override;

    // The options as set in the dialog (for tests and the worker).
    exporting::GifExportOptions options() const;
    std::vector<exporting::ExportPane> chosenPanes() const;
    QString path() const;
    bool isRunning() const;

    // Starts the export in a worker thread (as the Export button does).
    // Returns false, with the message shown in the dialog, for a bad option.
    bool start();

public slots:
    void reject() override; // Cancel: stops a running export, else closes

signals:
    void finished(bool ok, const QString &message);

private:
    void browse();
    void updateControls();
    void onFinished(const ExportOutcome &outcome);

    Session &session_;
    QWidget *view_;
    std::vector<exporting::ExportPane> panes_;
    QLineEdit *path_;
    QComboBox *what_;
    QCheckBox *viewSize_;
    QSpinBox *width_;
    QDoubleSpinBox *fps_;
    QComboBox *sampling_;
    QSpinBox *samplingValue_;
    QCheckBox *forever_;
    QSpinBox *loops_;
    QSpinBox *hold_;
    QSpinBox *titleFrame_;
    QLineEdit *caption_;
    QLabel *message_;
    QProgressBar *progress_;
    QPushButton *exportButton_;
    QPushButton *cancelButton_;
    BackgroundExport *worker_;
};

} // namespace remat::studio
