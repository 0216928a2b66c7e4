// Presentation mode (View > Presentation mode, F5): the window as a slide on a
// projector. The table, the toolbar and the panes' controls go; the panes get
// most of the height, so their nodes grow, and every text of the window grows.
// The memory chart keeps a third of the window's height, at any window size.
#include "app/studio/main_window.h"
#include "app/studio/op_block_view.h"
#include "app/studio/pane_widget.h"
#include "app/studio/summary_table.h"

#include <QAction>
#include <QEvent>
#include <QLabel>
#include <QSplitter>
#include <QStatusBar>
#include <QToolBar>

namespace remat::studio {

namespace {

// Re-divides the splitter whenever it or the chart is resized while presenting
// (a window moved to the projector and made full screen keeps the
// proportions; the splitter also re-shares its room when a pane's minimum
// grows, which it does without resizing itself).
class SplitOnResize : public QObject {
public:
    SplitOnResize(QSplitter *splitter, MainWindow *window) : QObject(splitter), window_(window) {
        setObjectName(QStringLiteral("presentationSplit")); // found by name: the class has no meta-object
        splitter->installEventFilter(this);
        splitter->widget(1)->installEventFilter(this);
    }
    bool eventFilter(QObject *, QEvent *event) override {
        // Queued: after the splitter's own resize, which shares the change out by stretch factors.
        if (event->type() == QEvent::Resize && window_->presentationMode())
            QMetaObject::invokeMethod(
                window_,
                [w = window_] {
                    if (w->presentationMode())
                        w->dividePresentation();
                },
                Qt::QueuedConnection);
        return false;
    }

private:
    MainWindow *window_;
};

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
    if (auto *blocks = findChild<OpBlockView *>())
        blocks->setPresenting(on);
    for (PaneWidget *pane : panes_)
        pane->setPresenting(on);
    rebuildPaneGrid();
    if (on) {
        if (!splitter->findChild<QObject *>(QStringLiteral("presentationSplit"), Qt::FindDirectChildrenOnly))
            new SplitOnResize(splitter, this);
        dividePresentation();
        statusBar()->showMessage(tr("Presentation mode: F5 returns to the full window"), 6000);
    } else {
        splitter->restoreState(presentation_.splitter);
    }
}

void MainWindow::dividePresentation() {
    auto *splitter = findChild<QSplitter *>(QStringLiteral("mainSplitter"));
    // A third of the window for the chart (its peaks and labels read from the
    // back of a room), the rest for the panes, none for the hidden table.
    const int total = splitter->height() - 2 * splitter->handleWidth(); // the sizes share what the handles leave
    const int chart = std::min(total * 3 / 5, (height() + 2) / 3 + 2);
    if (const QList<int> sizes{total - chart, chart, 0}; splitter->sizes() != sizes)
        splitter->setSizes(sizes);
}

} // namespace remat::studio
