// Presentation mode (View > Presentation mode, F5): the window as a slide on a
// projector. The table, the toolbar and the panes' controls go; the panes get
// most of the height, so their nodes grow, and every text of the window grows.
#include "app/studio/main_window.h"
#include "app/studio/pane_widget.h"
#include "app/studio/summary_table.h"

#include <QAction>
#include <QSplitter>
#include <QStatusBar>
#include <QToolBar>

namespace remat::studio {

namespace {

QFont scaled(QFont font, double factor) {
    if (font.pointSizeF() > 0)
        font.setPointSizeF(font.pointSizeF() * factor);
    else
        font.setPixelSize(static_cast<int>(font.pixelSize() * factor + 0.5));
    return font;
}

} // namespace

void MainWindow::setPresentationMode(bool on) {
    presentationAction_->setChecked(on);
    if (on == presentation_.active)
        return;
    presentation_.active = on;
    auto *splitter = findChild<QSplitter *>(QStringLiteral("mainSplitter"));
    auto *toolbar = findChild<QToolBar *>(QStringLiteral("modelToolBar"));
    if (on) {
        presentation_.splitter = splitter->saveState();
        presentation_.toolbarShown = toolbar->isVisible();
        presentation_.font = centralWidget()->font();
        presentation_.statusFont = statusBar()->font();
        centralWidget()->setFont(scaled(presentation_.font, kPresentationTextScale));
        statusBar()->setFont(scaled(presentation_.statusFont, kPresentationTextScale));
    } else {
        centralWidget()->setFont(presentation_.font);
        statusBar()->setFont(presentation_.statusFont);
    }
    toolbar->setVisible(on ? false : presentation_.toolbarShown);
    table_->setVisible(!on);
    for (const Slot &slot : slots_)
        slot.widget->setPresenting(on);
    if (on) {
        const int height = splitter->height();
        splitter->setSizes({height * 4 / 5, height - height * 4 / 5, 0});
        statusBar()->showMessage(tr("Presentation mode: F5 returns to the full window"), 6000);
    } else {
        splitter->restoreState(presentation_.splitter);
    }
}

} // namespace remat::studio
