// The window's look as the user left it, beside the session
// (app/studio/settings.h): geometry, toolbar and splitter, theme,
// presentation mode, and the open lesson with its chapter.
#include "app/studio/lesson_controller.h"
#include "app/studio/main_window.h"
#include "app/studio/settings.h"

#include <QSettings>
#include <QSplitter>
#include <QStatusBar>

namespace remat::studio {

bool MainWindow::restoreSettings() {
    QSettings settings;
    if (!hasSavedSession(settings))
        return false;
    restoreGeometry(settings.value("window/geometry").toByteArray());
    restoreState(settings.value("window/state").toByteArray());
    if (auto *splitter = findChild<QSplitter *>("mainSplitter"))
        splitter->restoreState(settings.value("window/splitter").toByteArray());
    setTheme(static_cast<Theme>(std::clamp(settings.value("view/theme", 0).toInt(), 0, 2)));
    QString modelError;
    if (!restoreSession(*session_, settings, &modelError))
        return false;
    if (!modelError.isEmpty())
        showMessageBox(tr("Cannot open the model"), modelError, true);
    // The lesson where it was left (it sets the panes itself); one that no longer loads is said in the status bar.
    if (const QString lesson = settings.value("lesson/file").toString(); !lesson.isEmpty())
        if (const QString error = lesson_->open(lesson, settings.value("lesson/chapter", 0).toInt()); !error.isEmpty())
            statusBar()->showMessage(tr("The last lesson did not open: %1").arg(error), 10000);
    if (settings.value("view/presentation", false).toBool())
        setPresentationMode(true);
    return true;
}

void MainWindow::saveSettings(bool presenting) const {
    QSettings settings;
    saveSession(*session_, settings);
    settings.setValue("window/geometry", saveGeometry());
    settings.setValue("window/state", saveState());
    if (auto *splitter = findChild<QSplitter *>("mainSplitter"))
        settings.setValue("window/splitter", splitter->saveState());
    settings.setValue("view/theme", static_cast<int>(theme_));
    settings.setValue("view/presentation", presenting);
    settings.setValue("lesson/file", lesson_->file());
    settings.setValue("lesson/chapter", lesson_->chapter());
}

} // namespace remat::studio
