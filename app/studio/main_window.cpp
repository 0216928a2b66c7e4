#include "app/studio/main_window.h"

#include "app/studio/exercise_panel.h"
#include "app/studio/legend_widget.h"
#include "app/studio/lesson_caption.h"
#include "app/studio/lesson_controller.h"
#include "app/studio/memory_chart_view.h"
#include "app/studio/op_block_view.h"
#include "app/studio/pane_widget.h"
#include "app/studio/player_bar.h"
#include "app/studio/studio_look.h"
#include "app/studio/summary_table.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QGridLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QStatusBar>
#include <QStyle>
#include <QStyleFactory>
#include <QTimer>
#include <QVBoxLayout>

namespace remat::studio {

MainWindow::MainWindow(const Options &options, QWidget *parent) : QMainWindow(parent) {
    setWindowTitle(tr("Remat Studio"));
    setWindowIcon(appIcon());
    setMinimumSize(kMinimumSize);
    systemPalette_ = QApplication::palette();
    systemStyle_ = QApplication::style()->name();
    player_ = new Player(this);
    session_ = new Session(*player_, this);

    auto *central = new QWidget(this);
    auto *centralLayout = new QVBoxLayout(central);
    centralLayout->setContentsMargins(6, 4, 6, 4);
    centralLayout->setSpacing(4);
    legend_ = new LegendWidget(central);
    centralLayout->addWidget(legend_);
    // Op-level models: the blocks, one opened into its ops (hidden otherwise).
    centralLayout->addWidget(new OpBlockView(*session_, *player_, central));

    auto *splitter = new QSplitter(Qt::Vertical, central);
    splitter->setObjectName("mainSplitter");
    splitter->setChildrenCollapsible(false);
    paneArea_ = new QWidget(splitter);
    paneGrid_ = new QGridLayout(paneArea_);
    paneGrid_->setContentsMargins(0, 0, 0, 0);
    paneGrid_->setSpacing(6);
    chart_ = new MemoryChartView(splitter);
    table_ = new SummaryTable(splitter);
    splitter->addWidget(paneArea_);
    splitter->addWidget(chart_);
    splitter->addWidget(table_);
    splitter->setStretchFactor(0, 5);
    splitter->setStretchFactor(1, 2);
    splitter->setStretchFactor(2, 0);
    splitter->setSizes({520, 230, table_->sizeHint().height()});
    centralLayout->addWidget(splitter, 1);
    playerBar_ = new PlayerBar(*session_, central);
    centralLayout->addWidget(playerBar_);
    setCentralWidget(central);

    progress_ = new QProgressBar(this);
    progress_->setRange(0, 0); // the simulator reports no progress: a busy indicator
    progress_->setMaximumWidth(160);
    progress_->hide();
    cancel_ = new QPushButton(tr("Cancel"), this);
    cancel_->hide();
    statusBar()->addPermanentWidget(progress_);
    statusBar()->addPermanentWidget(cancel_);
    connect(cancel_, &QPushButton::clicked, session_, &Session::cancelSimulation);

    buildMenus();
    // The lesson's caption above the legend; its curve page above the player bar, shown instead of the panes.
    centralLayout->insertWidget(0, lesson_->caption());
    centralLayout->insertWidget(1, lesson_->exercise());
    centralLayout->insertWidget(centralLayout->count() - 1, lesson_->curveHolder(), 1);
    connect(lesson_, &LessonController::stageChanged, this, [this, splitter](bool curve) {
        splitter->setVisible(!curve);
        legend_->setVisible(!curve);
        playerBar_->setVisible(!curve); // nothing to play under the curve
    });
    connectSession();
    connect(player_, &Player::positionChanged, this, &MainWindow::showPosition);
    connect(player_, &Player::peakVisited, this, [this](int track) {
        for (int i = 0; i < session_->paneCount(); ++i)
            if (session_->trackOf(i) == track) {
                const PaneRun &run = *session_->run(i);
                statusBar()->showMessage(tr("Peak of %1: %2 nodes in memory during op %3 (P again: next pane's peak)")
                                             .arg(QString::fromStdString(session_->paneConfig(i).strategy))
                                             .arg(run.summary.peakNodes)
                                             .arg(run.summary.peakStep + 1),
                                         6000);
            }
    });
    connect(chart_, &MemoryChartView::timeClicked, player_, [this](double t) {
        player_->pause();
        player_->seekTime(t);
    });

    applyPalette();
    showModel();
    showLink();
    const std::vector<Scenario> scenarios = builtinScenarios();
    const Scenario *start = findScenario(scenarios, options.scenario);
    if (!options.scenario.isEmpty() && !start)
        statusBar()->showMessage(tr("Unknown scenario '%1'; starting with the default").arg(options.scenario), 10000);
    if (!start && options.restoreSession && restoreSettings()) {
        statusBar()->showMessage(tr("Restored your last session. Scenarios menu: start from an example."), 8000);
    } else {
        session_->loadScenario(start ? *start : scenarios.front());
        // A first look moves: the panes start playing once the window is up.
        if (options.autoplay)
            QTimer::singleShot(800, player_, &Player::play);
    }
    if (statusBar()->currentMessage().isEmpty())
        statusBar()->showMessage(tr("Space plays, \u2190/\u2192 step, Home/End, P jumps to each peak. "
                                    "Click a forward node to toggle it as a checkpoint."));
}

MainWindow::~MainWindow() {
    // Whatever holds the session goes before it: the lesson controller first
    // (it follows the clock and outlives the widgets otherwise), then the
    // session, which waits for a simulation in flight.
    delete lesson_;
    delete session_;
}

void MainWindow::connectSession() {
    Session *s = session_;
    connect(s, &Session::paneAdded, this, &MainWindow::addPaneWidget);
    connect(s, &Session::paneRemoved, this, [this](int index) {
        panes_[static_cast<std::size_t>(index)]->deleteLater();
        panes_.erase(panes_.begin() + index);
        rebuildPaneGrid();
        applyPalette();
    });
    connect(s, &Session::paneConfigChanged, this, [this](int index) {
        pane(index)->setConfig(session_->paneConfig(index), session_->layers());
        showCurrentPane(); // its accessible name says its strategy
    });
    connect(s, &Session::currentPaneChanged, this, &MainWindow::showCurrentPane);
    connect(s, &Session::paneStateChanged, this, &MainWindow::showPaneState);
    connect(s, &Session::runsChanged, this, &MainWindow::showRuns);
    connect(s, &Session::modelChanged, this, &MainWindow::showModel);
    connect(s, &Session::linkChanged, this, &MainWindow::showLink);
    connect(s, &Session::syncByTimeChanged, syncByTime_, &QAction::setChecked);
    connect(s, &Session::message, statusBar(), &QStatusBar::showMessage);
    connect(s, &Session::simulationStarted, this, [this] {
        progress_->setRange(0, 0); // busy until a planner reports progress
        progress_->show();
        cancel_->show();
        statusBar()->showMessage(tr("Simulating in the background\u2026"));
    });
    connect(s, &Session::simulationProgress, this, [this](double fraction) {
        progress_->setRange(0, 1000);
        progress_->setValue(static_cast<int>(fraction * 1000));
    });
    connect(s, &Session::simulationFinished, this, [this] {
        progress_->hide();
        cancel_->hide();
        statusBar()->showMessage(tr("Background work finished"), 3000);
    });
}

void MainWindow::addPaneWidget(int index) {
    auto *w = new PaneWidget(paneArea_);
    w->setConfig(session_->paneConfig(index), session_->layers());
    w->setGraphModel(!session_->model()->isChain());
    w->setPresenting(presentation_.active);
    connect(w, &PaneWidget::configEdited, this,
            [this, w](const PaneConfig &c) { session_->setPaneConfig(indexOfWidget(w), c); });
    connect(w, &PaneWidget::removeRequested, this, [this, w] { session_->removePane(indexOfWidget(w)); });
    connect(w, &PaneWidget::nodeClicked, this,
            [this, w](NodeId node) { session_->toggleCheckpoint(indexOfWidget(w), node); });
    connect(w, &PaneWidget::selectRequested, this, [this, w] { session_->setCurrentPane(indexOfWidget(w)); });
    panes_.insert(panes_.begin() + index, w);
    rebuildPaneGrid();
    applyPalette();
}

void MainWindow::showPaneState(int index) {
    PaneWidget *w = pane(index);
    if (const auto &run = session_->run(index))
        w->setRun(run);
    else if (session_->paneBusy(index))
        w->setBusy(session_->paneStatus(index));
    else
        w->setError(session_->paneStatus(index));
}

void MainWindow::showModel() {
    layersSpin_->blockSignals(true);
    layersSpin_->setValue(session_->layers());
    layersSpin_->blockSignals(false);
    const QString &name = session_->modelName();
    modelLabel_->setText(name.isEmpty() ? QString() : tr(" Model: %1 ").arg(name));
    legend_->setShowsSavedInternals(session_->model()->hasSavedBytes());
    for (PaneWidget *w : panes_)
        w->setGraphModel(!session_->model()->isChain());
}

void MainWindow::showLink() {
    const QString text = QString::fromStdString(describeLink(session_->link(), session_->isChain()));
    linkLabel_->setText(text.isEmpty() ? QString() : QStringLiteral(" %1 ").arg(text));
    linkLabel_->setVisible(!text.isEmpty());
    legend_->setShowsOffload(session_->link().on());
}

void MainWindow::rebuildPaneGrid() {
    while (paneGrid_->count() > 0)
        delete paneGrid_->takeAt(0);
    const int count = static_cast<int>(panes_.size());
    // Four panes make a 2 x 2 grid, or one row on a projector's wide screen (taller pictures).
    const int columns = count <= 3 || presentation_.active ? count : 2;
    for (int i = 0; i < count; ++i) {
        paneGrid_->addWidget(pane(i), i / columns, i % columns);
        pane(i)->setRemovable(count > 1);
    }
    for (int c = 0; c < 4; ++c)
        paneGrid_->setColumnStretch(c, c < columns ? 1 : 0);
    addPaneAction_->setEnabled(count < Session::kMaxPanes);
    for (QAction *a : paneSelectionActions_)
        a->setEnabled(count > 1);
    showCurrentPane();
}

void MainWindow::showCurrentPane() {
    const int count = static_cast<int>(panes_.size());
    const int current = session_->currentPane();
    for (int i = 0; i < count && count == session_->paneCount(); ++i) {
        // One pane needs no mark: it is the one every view shows.
        pane(i)->setCurrent(i == current && count > 1);
        pane(i)->setAccessibleName(tr("Pane %1: %2%3")
                                       .arg(i + 1)
                                       .arg(QString::fromStdString(session_->paneConfig(i).strategy))
                                       .arg(i == current ? tr(" (selected)") : QString()));
    }
}

int MainWindow::indexOfWidget(const PaneWidget *w) const {
    const auto it = std::find(panes_.begin(), panes_.end(), w);
    return it == panes_.end() ? -1 : static_cast<int>(it - panes_.begin());
}

void MainWindow::showRuns() {
    std::vector<render::MemoryChartPainter::Series> series;
    std::vector<std::shared_ptr<const PaneRun>> runs;
    const render::Palette palette =
        render::Palette::forDarkMode(QApplication::palette().color(QPalette::Window).lightness() < 128);
    std::vector<QColor> colors;
    double laneEnd = 0; // the host lanes' shared axis: their playheads line up
    for (int i = 0; i < session_->paneCount(); ++i) {
        const std::shared_ptr<const PaneRun> &run = session_->run(i);
        runs.push_back(run);
        colors.push_back(palette.paneColour(i));
        if (!run)
            continue;
        series.push_back(
            {run->timeline,
             QString::fromStdString(run->timeline->schedule().strategy) + QStringLiteral(" (%1)").arg(i + 1),
             run->summary.peakBytes, run->summary.peakStep, i});
        if (run->timeline->timed())
            laneEnd = std::max(laneEnd, run->timeline->makespan());
    }
    for (PaneWidget *w : panes_)
        w->view()->setLaneEnd(laneEnd);
    chart_->setSeries(std::move(series), player_->axis());
    table_->setRuns(runs, colors);
}

void MainWindow::showPosition() {
    for (int i = 0; i < session_->paneCount(); ++i)
        if (const int track = session_->trackOf(i); track >= 0)
            pane(i)->setStep(player_->stepOf(track),
                             render::streamTime(*session_->run(i)->timeline, player_->time(), player_->axis()));
    chart_->setPlayhead(player_->time());
}

void MainWindow::setTheme(Theme theme) {
    theme_ = theme;
    for (QAction *a : themeGroup_->actions())
        a->setChecked(a->data().toInt() == static_cast<int>(theme));
    if (theme == Theme::System) {
        QApplication::setStyle(QStyleFactory::create(systemStyle_));
        QApplication::setPalette(systemPalette_);
    } else {
        QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
        QApplication::setPalette(theme == Theme::Dark ? darkWidgetPalette() : QApplication::style()->standardPalette());
    }
    applyPalette();
}

void MainWindow::applyPalette() {
    const bool dark = QApplication::palette().color(QPalette::Window).lightness() < 128;
    const render::Palette palette = render::Palette::forDarkMode(dark);
    legend_->setPalette(palette);
    chart_->setPalette(palette);
    playerBar_->refreshIcons();
    for (int i = 0; i < static_cast<int>(panes_.size()); ++i)
        pane(i)->setPalette(palette, palette.paneColour(i));
    showRuns();
}

void MainWindow::closeEvent(QCloseEvent *event) {
    player_->pause();
    const bool presenting = presentationMode();
    setPresentationMode(false); // the session keeps the full window's layout
    saveSettings(presenting);
    event->accept();
}

} // namespace remat::studio
