// The window's menus, shortcuts and model toolbar: every action the studio
// offers is created here, so one file shows what the user can do. The actions
// drive the session, the player or a tool that takes them.
#include "app/studio/export_dialog.h"
#include "app/studio/frontier_view.h"
#include "app/studio/lesson_controller.h"
#include "app/studio/lesson_editor.h"
#include "app/studio/link_dialog.h"
#include "app/studio/main_window.h"
#include "app/studio/measure_dialog.h"
#include "app/studio/memory_chart_view.h"
#include "app/studio/player_keys.h"
#include "app/studio/scaling_view.h"

#include <QAction>
#include <QActionGroup>
#include <QInputDialog>
#include <QLabel>
#include <QMenuBar>
#include <QSpinBox>
#include <QToolBar>

#include <cmath>
#include <tuple>

namespace remat::studio {

void MainWindow::buildMenus() {
    QMenu *file = menuBar()->addMenu(tr("&File"));
    buildModelMenu(file); // app/studio/main_window_models.cpp
    file->addSeparator();
    lesson_ = new LessonController(*session_, this, file); // File > Open lesson, Lessons, Close lesson
    file->addSeparator();
    addExportActions(file, *session_, centralWidget()); // app/studio/export_dialog.h
    file->addSeparator();
    QAction *quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    QMenu *scenarios = menuBar()->addMenu(tr("&Scenarios"));
    for (const Scenario &s : builtinScenarios())
        scenarios->addAction(s.title, session_, [this, s] { session_->loadScenario(s); });

    buildPanesMenu();
    QList<QAction *> playerActions;
    PlayerKeys *keys = nullptr;
    buildPlayerMenu(playerActions, keys);
    keys->addActions(paneSelectionActions_);

    QMenu *view = menuBar()->addMenu(tr("&View"));
    themeGroup_ = new QActionGroup(this);
    for (const auto &[theme, text] : {std::pair{Theme::System, tr("&System colours")},
                                      std::pair{Theme::Light, tr("&Light")}, std::pair{Theme::Dark, tr("&Dark")}}) {
        QAction *a = view->addAction(text, this, [this, t = theme] { setTheme(t); });
        a->setCheckable(true);
        a->setData(static_cast<int>(theme));
        a->setChecked(theme == theme_);
        themeGroup_->addAction(a);
    }
    view->addSeparator();
    view->addAction(chart_->stackByKindAction()); // app/studio/memory_chart_view.h
    QMenu *toolsMenu = menuBar()->addMenu(tr("&Tools"));
    addScalingAction(toolsMenu, this);                        // app/studio/scaling_view.h
    addFrontierAction(toolsMenu, *session_, this);            // app/studio/frontier_view.h
    addMeasureAction(toolsMenu, *session_, *table_, *chart_); // app/studio/measure_dialog.h
    buildHelpMenu();                                          // app/studio/help_menu.cpp
    buildToolBar(view);

    presentationAction_ = view->addAction(tr("&Presentation mode"), this, &MainWindow::setPresentationMode);
    presentationAction_->setObjectName("presentationMode");
    presentationAction_->setCheckable(true);
    presentationAction_->setShortcut(QKeySequence(Qt::Key_F5));
    presentationAction_->setToolTip(tr("Larger nodes and text for a projector: hides the table, the toolbar and "
                                       "the panes' controls"));
    addAction(presentationAction_);
    fullScreenAction_ = view->addAction(tr("&Full screen"), this, [this](bool on) {
        setWindowState(on ? windowState() | Qt::WindowFullScreen : windowState() & ~Qt::WindowFullScreen);
    });
    fullScreenAction_->setObjectName("fullScreen");
    fullScreenAction_->setCheckable(true);
    fullScreenAction_->setShortcut(QKeySequence(Qt::Key_F11)); // with F5 on a projector: the whole screen is the slide
    addAction(fullScreenAction_);
    // A clicker's keys in a lesson, B and Escape; the Lesson menu before Help.
    lesson_->takeKeys({playerActions, keys, presentationAction_, fullScreenAction_, chart_->stackByKindAction()});
    menuBar()->insertMenu(menuBar()->actions().constLast(), lesson_->menu());
    // Writing lessons, in the same menu: the lesson being written lives in the session.
    lessonEditor_ = new LessonEditor(*session_, this, lesson_->menu(), chart_->stackByKindAction());
}

void MainWindow::buildPanesMenu() {
    QMenu *panes = menuBar()->addMenu(tr("&Panes"));
    addPaneAction_ = panes->addAction(tr("&Add pane"), this, [this] {
        PaneConfig config;
        config.strategy = "periodic";
        session_->addPane(config);
    });
    addPaneAction_->setShortcut(QKeySequence(tr("Ctrl+N")));
    QAction *plan = panes->addAction(tr("&Plan for budget\u2026"), this, [this] {
        bool ok = false;
        const QString text = QInputDialog::getText(
            this, tr("Plan for budget"),
            tr("Memory budget for the least-compute schedule of this model:\n"
               "bytes with a unit (2 GiB, 512 MB) or a number of nodes (12 nodes)."),
            QLineEdit::Normal,
            QStringLiteral("%1 nodes").arg(2 * static_cast<int>(std::ceil(std::sqrt(session_->layers()))) + 1), &ok);
        if (ok)
            planForBudget(text);
    });
    plan->setObjectName("planForBudget");
    plan->setShortcut(QKeySequence(tr("Ctrl+B")));
    // Selective checkpointing of op-level models (core/strategies/op_level.cpp).
    QMenu *opLevel = panes->addMenu(tr("&Op-level plan"));
    opLevel->setObjectName("opLevelPlan");
    for (const std::string &name : Session::opLevelStrategies()) {
        QAction *a = opLevel->addAction(QString::fromStdString(name), this, [this, name] {
            QString budget;
            if (name == "op-budget") {
                bool ok = false;
                budget = QInputDialog::getText(this, tr("Op-level plan"),
                                               tr("Memory budget for the op-level plan (which tensors to keep, "
                                                  "which to re-run): bytes with a unit (300 MiB, 2 GiB)."),
                                               QLineEdit::Normal, QStringLiteral("300 MiB"), &ok);
                if (!ok)
                    return;
            }
            const QString error = session_->addOpLevelPlan(name, budget);
            if (!error.isEmpty())
                showMessageBox(tr("Op-level plan"), error, true);
        });
        a->setObjectName(QStringLiteral("opLevel-%1").arg(QString::fromStdString(name)));
    }
    // The current pane, which the Blocks strip shows; also a click in a pane.
    panes->addSeparator();
    for (const auto &[text, name, step, keys] :
         {std::tuple{tr("Select &next pane"), "nextPane", 1, QList<QKeySequence>{QKeySequence(tr("Ctrl+Tab"))}},
          std::tuple{
              tr("Select pre&vious pane"), "previousPane", -1,
              // Shift+Tab arrives as Backtab on some platforms.
              QList<QKeySequence>{QKeySequence(tr("Ctrl+Shift+Tab")), QKeySequence(tr("Ctrl+Shift+Backtab"))}}}) {
        QAction *a = panes->addAction(text, this, [this, step] { session_->cycleCurrentPane(step); });
        a->setObjectName(QString::fromLatin1(name));
        a->setShortcuts(keys);
        a->setShortcutContext(Qt::WindowShortcut);
        addAction(a);
        paneSelectionActions_ << a;
    }
    panes->addSeparator();
    addLinkAction(panes, *session_, this); // app/studio/link_dialog.h
    syncByTime_ = panes->addAction(tr("Synchronize by &time (op cost)"));
    syncByTime_->setCheckable(true);
    syncByTime_->setChecked(session_->syncByTime());
    syncByTime_->setToolTip(tr("On: each op takes its compute cost, so recomputing strategies finish later. "
                               "Off: panes advance one op per step."));
    connect(syncByTime_, &QAction::toggled, session_, &Session::setSyncByTime);
}

void MainWindow::buildPlayerMenu(QList<QAction *> &playerActions, PlayerKeys *&keys) {
    QMenu *play = menuBar()->addMenu(tr("P&layer"));
    auto shortcut = [&](const QString &text, const QKeySequence &key, auto slot) {
        QAction *a = play->addAction(text, player_, slot);
        a->setShortcut(key);
        a->setShortcutContext(Qt::WindowShortcut);
        addAction(a);
        playerActions << a;
    };
    shortcut(tr("Play / pause"), QKeySequence(Qt::Key_Space), &Player::togglePlay);
    shortcut(tr("Step forward"), QKeySequence(Qt::Key_Right), &Player::stepForward);
    shortcut(tr("Step back"), QKeySequence(Qt::Key_Left), &Player::stepBack);
    shortcut(tr("Jump to start"), QKeySequence(Qt::Key_Home), &Player::jumpToStart);
    shortcut(tr("Jump to end"), QKeySequence(Qt::Key_End), &Player::jumpToEnd);
    shortcut(tr("Jump to the next pane's peak"), QKeySequence(Qt::Key_P), &Player::jumpToNextPeak);
    keys = new PlayerKeys(this, playerActions); // the keys work whatever has focus (app/studio/player_keys.h)
}

void MainWindow::buildToolBar(QMenu *view) {
    QToolBar *tools = addToolBar(tr("Model"));
    tools->setObjectName("modelToolBar");
    tools->setMovable(false);
    tools->addWidget(new QLabel(tr(" Layers n = "), tools));
    layersSpin_ = new QSpinBox(tools);
    layersSpin_->setObjectName("layers");
    layersSpin_->setRange(1, Model::kMaxLayers);
    layersSpin_->setValue(session_->layers());
    layersSpin_->setKeyboardTracking(false);
    layersSpin_->setToolTip(tr("Number of layers of the chain a_0 \u2192 \u2026 \u2192 a_n; on a model file, a new n "
                               "returns to a uniform chain"));
    connect(layersSpin_, &QSpinBox::valueChanged, session_, &Session::setLayers);
    tools->addWidget(layersSpin_);
    modelLabel_ = new QLabel(tools);
    modelLabel_->setObjectName("modelName");
    modelLabel_->setToolTip(tr("The model file every pane shows (File > Uniform chain returns to a chain)"));
    tools->addWidget(modelLabel_);
    linkLabel_ = new QLabel(tools); // the link every pane is timed on
    linkLabel_->setObjectName("linkLabel");
    linkLabel_->setToolTip(tr("Every pane runs on a compute and a copy stream; Panes > Link and budgets… changes it"));
    tools->addWidget(linkLabel_);
    tools->addSeparator();
    tools->addAction(addPaneAction_);
    tools->addAction(syncByTime_);
    syncByTime_->setText(tr("Sync by time"));
    // The two things a newcomer would not guess, always in view.
    auto *spacer = new QWidget(tools);
    spacer->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    tools->addWidget(spacer);
    auto *hint = new QLabel(
        tr("Hover a node: why it is in memory \u00B7 Click a forward node: keep it as a checkpoint  "), tools);
    tools->addWidget(hint);
    view->addSeparator();
    view->addAction(tools->toggleViewAction()); // a hidden toolbar can come back from the menu
}

} // namespace remat::studio
