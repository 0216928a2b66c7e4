#pragma once
// The studio's File > Export actions: an animated GIF of the timeline (options,
// progress bar and Cancel, encoding in a worker thread), a PNG of the moment
// on screen, and the panes' timelines and summaries as CSV or JSON in the
// CLI's schemas. All of it is app/export's code, the same the headless
// `remat-studio --export-gif` runs.
#include "app/export/export_pane.h"
#include "app/export/timeline_gif_export.h"

#include "app/studio/background_export_dialog.h"

#include <memory>
#include <vector>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLineEdit;
class QMenu;
class QSpinBox;

namespace remat::studio {

class Session;

// The session's simulated panes as export panes (panes without a run are left out).
std::vector<exporting::ExportPane> exportPanesOf(const Session &session);
// The render palette matching the application's current colours.
render::Palette renderPaletteOf();

// Adds the Export actions (with shortcuts) to `menu`; `view` is what "the
// view's size" means, its window the dialogs' parent.
void addExportActions(QMenu *menu, Session &session, QWidget *view);

class ExportGifDialog : public BackgroundExportDialog {
    Q_OBJECT
public:
    ExportGifDialog(Session &session, QWidget *view);

    // The options as set in the dialog (for tests and the worker).
    exporting::GifExportOptions options() const;
    std::vector<exporting::ExportPane> chosenPanes() const;
    QString path() const;

    // Starts the export in a worker thread (as the Export button does).
    // Returns false, with the message shown in the dialog, for a bad option.
    bool start() override;

private:
    void browse();
    void updateControls();

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
};

} // namespace remat::studio
