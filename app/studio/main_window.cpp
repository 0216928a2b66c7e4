#include "app/studio/main_window.h"

#include "app/studio/export_dialog.h"
#include "app/studio/legend_widget.h"
#include "app/studio/measure_dialog.h"
#include "app/studio/memory_chart_view.h"
#include "app/studio/pane_widget.h"
#include "app/studio/scaling_view.h"
#include "app/studio/settings.h"
#include "app/studio/summary_table.h"
#include "core/errors.h"
#include "core/units.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDoubleSpinBox>
#include <QGridLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPainter>
#include <QProgressBar>
#include <QPushButton>
#include <QSlider>
#include <QSpinBox>
#include <QSplitter>
#include <QStatusBar>
#include <QStyle>
#include <QStyleFactory>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

namespace remat::studio {

namespace {

QString errorText(const std::exception &e) {
    return QString::fromUtf8(e.what());
}

QPalette darkWidgetPalette() {
    QPalette p;
    const QColor window(0x2a, 0x2b, 0x33), base(0x1e, 0x1f, 0x26), text(0xe8, 0xe8, 0xee);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, window);
    p.setColor(QPalette::ToolTipBase, window);
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, window);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::Highlight, QColor(0x7b, 0x5c, 0xd6));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::PlaceholderText, QColor(0x90, 0x90, 0xa0));
    p.setColor(QPalette::Disabled, QPalette::Text, QColor(0x80, 0x80, 0x90));
    p.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(0x80, 0x80, 0x90));
    p.setColor(QPalette::Disabled, QPalette::WindowText, QColor(0x80, 0x80, 0x90));
    return p;
}

// Media icons drawn in the text colour, so they read in light and dark palettes alike.
QIcon playerIcon(QStyle::StandardPixmap kind, QColor colour) {
    const qreal dpr = 2;
    QPixmap pixmap(QSize(20, 20) * dpr);
    pixmap.setDevicePixelRatio(dpr);
    pixmap.fill(Qt::transparent);
    QPainter p(&pixmap);
    p.setRenderHint(QPainter::Antialiasing, true);
    p.setPen(Qt::NoPen);
    p.setBrush(colour);
    auto triangle = [&](double x, double w, bool right) {
        const QPointF pts[3] = {right ? QPointF(x, 4) : QPointF(x + w, 4), right ? QPointF(x, 16) : QPointF(x + w, 16),
                                right ? QPointF(x + w, 10) : QPointF(x, 10)};
        p.drawPolygon(pts, 3);
    };
    switch (kind) {
    case QStyle::SP_MediaPlay:
        triangle(6, 10, true);
        break;
    case QStyle::SP_MediaPause:
        p.drawRect(QRectF(5, 4, 3.5, 12));
        p.drawRect(QRectF(11.5, 4, 3.5, 12));
        break;
    case QStyle::SP_MediaSeekForward:
        p.drawRect(QRectF(13, 4, 2.5, 12));
        triangle(5, 8, true);
        break;
    case QStyle::SP_MediaSeekBackward:
        p.drawRect(QRectF(4.5, 4, 2.5, 12));
        triangle(7, 8, false);
        break;
    case QStyle::SP_MediaSkipForward:
        triangle(3, 7, true);
        triangle(10, 7, true);
        p.drawRect(QRectF(16, 4, 2, 12));
        break;
    case QStyle::SP_MediaSkipBackward:
        p.drawRect(QRectF(2, 4, 2, 12));
        triangle(3, 7, false);
        triangle(10, 7, false);
        break;
    default:
        break;
    }
    return QIcon(pixmap);
}

// Three nodes as in the pictures: a checkpoint, a resident node, a recomputed one.
QIcon appIcon() {
    QPixmap pixmap(64, 64);
    pixmap.fill(Qt::transparent);
    QPainter p(&pixmap);
    p.setRenderHint(QPainter::Antialiasing, true);
    const render::Palette palette = render::Palette::light();
    p.setPen(QPen(palette.arrow, 4));
    p.drawLine(QPointF(12, 32), QPointF(52, 32));
    const QColor fills[] = {palette.resident, palette.resident, palette.recomputed};
    for (int i = 0; i < 3; ++i) {
        p.setPen(QPen(palette.nodeOutline, 2));
        p.setBrush(fills[i]);
        p.drawEllipse(QPointF(12 + 20 * i, 32), 8, 8);
    }
    p.setPen(QPen(palette.checkpointRing, 3));
    p.setBrush(Qt::NoBrush);
    p.drawEllipse(QPointF(12, 32), 11.5, 11.5);
    return QIcon(pixmap);
}

} // namespace

MainWindow::MainWindow(const Options &options, QWidget *parent) : QMainWindow(parent) {
    setWindowTitle(tr("Remat Studio"));
    setWindowIcon(appIcon());
    setMinimumSize(kMinimumSize);
    systemPalette_ = QApplication::palette();
    systemStyle_ = QApplication::style()->name();
    player_ = new Player(this);

    auto *central = new QWidget(this);
    auto *centralLayout = new QVBoxLayout(central);
    centralLayout->setContentsMargins(6, 4, 6, 4);
    centralLayout->setSpacing(4);
    legend_ = new LegendWidget(central);
    centralLayout->addWidget(legend_);

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
    centralLayout->addWidget(buildPlayerBar());
    setCentralWidget(central);

    progress_ = new QProgressBar(this);
    progress_->setRange(0, 0); // the simulator reports no progress: a busy indicator
    progress_->setMaximumWidth(160);
    progress_->hide();
    cancel_ = new QPushButton(tr("Cancel"), this);
    cancel_->hide();
    statusBar()->addPermanentWidget(progress_);
    statusBar()->addPermanentWidget(cancel_);
    connect(cancel_, &QPushButton::clicked, this, [this] {
        // Planners stop at the flag; a running simulation cannot be
        // interrupted, so its result is dropped instead.
        if (cancelFlag_)
            cancelFlag_->store(true);
        queuedJobs_.clear();
        for (Slot &slot : slots_)
            if (!slot.run) {
                ++slot.generation;
                slot.widget->setError(tr("Simulation cancelled. Pick a smaller n or another strategy."));
            }
        statusBar()->showMessage(tr("Simulation cancelled"), 5000);
    });
    connect(&watcher_, &QFutureWatcher<std::vector<Result>>::finished, this, [this] {
        applyResults(watcher_.result());
        if (!queuedJobs_.empty())
            startBackgroundJobs();
        else {
            progress_->hide();
            cancel_->hide();
            statusBar()->showMessage(tr("Background work finished"), 3000);
        }
    });

    buildMenus();
    connect(player_, &Player::positionChanged, this, &MainWindow::showPosition);
    connect(player_, &Player::rangeChanged, this, [this](int last) { slider_->setRange(0, last); });
    connect(player_, &Player::playingChanged, this, [this](bool playing) {
        playButton_->setProperty("playerIcon",
                                 static_cast<int>(playing ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));
        playButton_->setIcon(playerIcon(playing ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay,
                                        QApplication::palette().color(QPalette::ButtonText)));
        playButton_->setToolTip(playing ? tr("Pause (Space)") : tr("Play (Space)"));
    });
    connect(player_, &Player::peakVisited, this, [this](int track) {
        for (const Slot &slot : slots_)
            if (slot.track == track)
                statusBar()->showMessage(tr("Peak of %1: %2 nodes in memory during op %3 (P again: next pane's peak)")
                                             .arg(QString::fromStdString(slot.config.strategy))
                                             .arg(slot.run->summary.peakNodes)
                                             .arg(slot.run->summary.peakStep + 1),
                                         6000);
    });
    connect(chart_, &MemoryChartView::timeClicked, player_, [this](double t) {
        player_->pause();
        player_->seekTime(t);
    });

    applyPalette();
    const std::vector<Scenario> scenarios = builtinScenarios();
    const Scenario *start = findScenario(scenarios, options.scenario);
    if (!options.scenario.isEmpty() && !start)
        showError(tr("Unknown scenario '%1'; starting with the default").arg(options.scenario));
    if (!start && options.restoreSession && restoreSession(*this)) {
        statusBar()->showMessage(tr("Restored your last session. Scenarios menu: start from an example."), 8000);
    } else {
        loadScenario(start ? *start : scenarios.front());
        // A first look moves: the panes start playing once the window is up.
        if (options.autoplay)
            QTimer::singleShot(800, player_, &Player::play);
    }
    if (statusBar()->currentMessage().isEmpty())
        statusBar()->showMessage(tr("Space plays, \u2190/\u2192 step, Home/End, P jumps to each peak. "
                                    "Click a forward node to toggle it as a checkpoint."));
}

MainWindow::~MainWindow() {
    // Planners stop at the flag; a simulation in flight is waited for (its memory is owned by the job).
    if (cancelFlag_)
        cancelFlag_->store(true);
    watcher_.waitForFinished();
}

QWidget *MainWindow::buildPlayerBar() {
    auto *bar = new QWidget(this);
    auto *layout = new QHBoxLayout(bar);
    layout->setContentsMargins(0, 2, 0, 2);
    auto button = [&](QStyle::StandardPixmap icon, const QString &tip, auto slot) {
        auto *b = new QToolButton(bar);
        b->setProperty("playerIcon", static_cast<int>(icon));
        b->setToolTip(tip);
        b->setFocusPolicy(Qt::NoFocus);
        b->setAutoRaise(true);
        b->setIconSize(QSize(20, 20));
        connect(b, &QToolButton::clicked, player_, slot);
        layout->addWidget(b);
        return b;
    };
    button(QStyle::SP_MediaSkipBackward, tr("Jump to start (Home)"), &Player::jumpToStart);
    button(QStyle::SP_MediaSeekBackward, tr("Step back (\u2190)"), &Player::stepBack);
    playButton_ = button(QStyle::SP_MediaPlay, tr("Play (Space)"), &Player::togglePlay);
    playButton_->setObjectName("play");
    button(QStyle::SP_MediaSeekForward, tr("Step forward (\u2192)"), &Player::stepForward);
    button(QStyle::SP_MediaSkipForward, tr("Jump to end (End)"), &Player::jumpToEnd);
    auto *peak = new QToolButton(bar);
    peak->setText(tr("Peak"));
    peak->setToolTip(tr("Jump to the peak memory of each pane in turn (P)"));
    peak->setFocusPolicy(Qt::NoFocus);
    connect(peak, &QToolButton::clicked, player_, &Player::jumpToNextPeak);
    layout->addWidget(peak);

    slider_ = new QSlider(Qt::Horizontal, bar);
    slider_->setObjectName("scrub");
    slider_->setFocusPolicy(Qt::NoFocus);
    slider_->setToolTip(tr("Scrub through the schedules"));
    connect(slider_, &QSlider::valueChanged, player_, [this](int v) {
        if (v != player_->position()) {
            player_->pause();
            player_->seek(v);
        }
    });
    layout->addWidget(slider_, 1);
    clock_ = new QLabel(bar);
    clock_->setMinimumWidth(clock_->fontMetrics().horizontalAdvance(QStringLiteral("t = 0000.0 / 0000.0 GFLOP")));
    layout->addWidget(clock_);
    layout->addWidget(new QLabel(tr("Speed"), bar));
    speed_ = new QDoubleSpinBox(bar);
    speed_->setObjectName("speed");
    speed_->setRange(0.5, 10000);
    speed_->setDecimals(1);
    speed_->setSuffix(tr(" ops/s"));
    speed_->setValue(player_->speed());
    speed_->setToolTip(tr("Playback speed in forward ops per second (a backward op takes 2 when synced by time)"));
    connect(speed_, &QDoubleSpinBox::valueChanged, player_, &Player::setSpeed);
    layout->addWidget(speed_);
    return bar;
}

void MainWindow::loadScenario(const Scenario &scenario) {
    player_->pause();
    for (Slot &slot : slots_)
        slot.widget->deleteLater();
    slots_.clear();
    link_ = scenario.link;                            // a scenario sets its link, or none
    setModel(chainModel(scenario.layers), QString()); // no panes yet: nothing simulated
    for (const PaneConfig &config : scenario.panes)
        addPane(config);
    player_->jumpToStart();
}

void MainWindow::setLayers(int layers) {
    if (layers == layers_ && model_ && modelName_.isEmpty())
        return;
    std::shared_ptr<const Model> chain;
    try {
        chain = chainModel(layers);
    } catch (const std::exception &e) {
        showError(errorText(e));
        return;
    }
    setModel(std::move(chain), QString()); // app/studio/model_actions.cpp
}

void MainWindow::addPane(const PaneConfig &config) {
    if (paneCount() >= kMaxPanes) {
        showError(tr("At most %1 panes side by side").arg(kMaxPanes));
        return;
    }
    Slot slot;
    slot.id = nextId_++;
    slot.config = fittedTo(config, layers_);
    slot.widget = new PaneWidget(paneArea_);
    PaneWidget *w = slot.widget;
    w->setConfig(config, layers_);
    w->setGraphModel(!model_->isChain());
    w->setPresenting(presentation_.active);
    connect(w, &PaneWidget::configEdited, this, [this, w](const PaneConfig &c) { setPaneConfig(indexOfWidget(w), c); });
    connect(w, &PaneWidget::removeRequested, this, [this, w] { removePane(indexOfWidget(w)); });
    connect(w, &PaneWidget::nodeClicked, this, [this, w](NodeId node) { onNodeClicked(w, node); });
    slots_.push_back(std::move(slot));
    rebuildPaneGrid();
    applyPalette();
    if (!linkOfferedFor({paneCount() - 1})) // else the default link re-simulated every pane
        simulate({paneCount() - 1});
}

void MainWindow::removePane(int index) {
    if (index < 0 || index >= paneCount() || paneCount() == 1)
        return;
    slots_[static_cast<std::size_t>(index)].widget->deleteLater();
    slots_.erase(slots_.begin() + index);
    rebuildPaneGrid();
    applyPalette();
    refreshTracks();
}

void MainWindow::setPaneConfig(int index, const PaneConfig &config) {
    if (index < 0 || index >= paneCount())
        return;
    Slot &slot = slots_[static_cast<std::size_t>(index)];
    slot.config = config;
    slot.widget->setConfig(config, layers_);
    if (!linkOfferedFor({index})) // else the default link re-simulated every pane
        simulate({index});
}

void MainWindow::rebuildPaneGrid() {
    while (paneGrid_->count() > 0)
        delete paneGrid_->takeAt(0);
    const int count = paneCount();
    // Four panes make a 2 x 2 grid, or one row on a projector's wide screen (taller pictures).
    const int columns = count <= 3 || presentation_.active ? count : 2;
    for (int i = 0; i < count; ++i) {
        paneGrid_->addWidget(slots_[static_cast<std::size_t>(i)].widget, i / columns, i % columns);
        slots_[static_cast<std::size_t>(i)].widget->setRemovable(count > 1);
    }
    for (int c = 0; c < 4; ++c)
        paneGrid_->setColumnStretch(c, c < columns ? 1 : 0);
    addPaneAction_->setEnabled(count < kMaxPanes);
}

int MainWindow::indexOfWidget(const PaneWidget *pane) const {
    for (int i = 0; i < paneCount(); ++i)
        if (slots_[static_cast<std::size_t>(i)].widget == pane)
            return i;
    return -1;
}

int MainWindow::indexOfId(int id) const {
    for (int i = 0; i < paneCount(); ++i)
        if (slots_[static_cast<std::size_t>(i)].id == id)
            return i;
    return -1;
}

std::vector<MainWindow::Result> MainWindow::runJobs(const std::vector<Job> &jobs) {
    std::vector<Result> results;
    for (const Job &job : jobs) {
        Result r;
        r.id = job.id;
        r.generation = job.generation;
        try {
            r.run = std::make_shared<const PaneRun>(simulatePane(job.model, job.config));
        } catch (const Cancelled &) {
            r.error = tr("Planning cancelled.");
        } catch (const std::bad_alloc &) {
            r.error = tr("Not enough memory to simulate %1 at n = %2. Pick a smaller n.")
                          .arg(QString::fromStdString(job.config.strategy))
                          .arg(job.model->layers());
        } catch (const std::exception &e) {
            r.error = errorText(e);
        }
        results.push_back(std::move(r));
    }
    return results;
}

void MainWindow::simulate(const std::vector<int> &panes) {
    ResolvedLink link;
    try {
        link = resolveLink(*model_, fileMachine_, link_);
    } catch (const std::exception &) {
        link = {}; // checked by setLink; a pane that needs the link says so
    }
    std::vector<Job> small;
    for (const int index : panes) {
        Slot &slot = slots_[static_cast<std::size_t>(index)];
        Job job{slot.id, ++slot.generation, withLink(slot.config, link), model_};
        double ops = 0;
        try {
            ops = estimatedOps(*model_, job.config);
        } catch (const std::exception &) {
            ops = 0; // let the simulation report the problem
        }
        if (ops > kBackgroundOps || plansSlowly(job.config)) {
            slot.run.reset();
            slot.widget->setBusy(
                ops > kBackgroundOps
                    ? tr("Simulating %1 at n = %2 (about %3 million ops)\u2026")
                          .arg(QString::fromStdString(slot.config.strategy))
                          .arg(layers_)
                          .arg(ops / 1e6, 0, 'f', 1)
                    : tr("Planning %1 at n = %2\u2026").arg(QString::fromStdString(slot.config.strategy)).arg(layers_));
            queuedJobs_.push_back(std::move(job));
        } else {
            small.push_back(std::move(job));
        }
    }
    if (!small.empty())
        applyResults(runJobs(small));
    if (!queuedJobs_.empty() && !watcher_.isRunning())
        startBackgroundJobs();
}

void MainWindow::startBackgroundJobs() {
    std::vector<Job> jobs;
    jobs.swap(queuedJobs_);
    cancelFlag_ = std::make_shared<std::atomic<bool>>(false);
    progress_->setRange(0, 0); // busy until a planner reports progress
    for (Job &job : jobs) {
        job.config.params.cancelled = [flag = cancelFlag_] { return flag->load(); };
        // Called on the worker thread: hop to the GUI thread (dropped if the window is gone).
        job.config.params.progress = [this](double fraction) {
            QMetaObject::invokeMethod(
                this,
                [this, fraction] {
                    progress_->setRange(0, 1000);
                    progress_->setValue(static_cast<int>(fraction * 1000));
                },
                Qt::QueuedConnection);
        };
    }
    progress_->show();
    cancel_->show();
    statusBar()->showMessage(tr("Simulating in the background\u2026"));
    watcher_.setFuture(QtConcurrent::run(&MainWindow::runJobs, std::move(jobs)));
}

void MainWindow::applyResults(const std::vector<Result> &results) {
    bool changed = false;
    for (const Result &r : results) {
        const int index = indexOfId(r.id);
        if (index < 0)
            continue; // the pane was removed meanwhile
        Slot &slot = slots_[static_cast<std::size_t>(index)];
        if (slot.generation != r.generation)
            continue; // superseded by a newer request
        slot.run = r.run;
        if (r.run) {
            slot.widget->setRun(r.run);
        } else {
            slot.widget->setError(r.error);
            statusBar()->showMessage(tr("Pane %1: %2").arg(index + 1).arg(r.error), 10000);
        }
        changed = true;
    }
    if (changed)
        refreshTracks();
}

void MainWindow::refreshTracks() {
    std::vector<Player::Track> tracks;
    std::vector<render::MemoryChartPainter::Series> series;
    std::vector<std::shared_ptr<const PaneRun>> runs;
    const render::Palette palette =
        render::Palette::forDarkMode(QApplication::palette().color(QPalette::Window).lightness() < 128);
    std::vector<QColor> colors;
    for (int i = 0; i < paneCount(); ++i) {
        Slot &slot = slots_[static_cast<std::size_t>(i)];
        runs.push_back(slot.run);
        colors.push_back(palette.paneColour(i));
        if (!slot.run) {
            slot.track = -1;
            continue;
        }
        slot.track = static_cast<int>(tracks.size());
        tracks.push_back({slot.run->timeline, slot.run->summary.peakStep});
        series.push_back(
            {slot.run->timeline,
             QString::fromStdString(slot.run->timeline->schedule().strategy) + QStringLiteral(" (%1)").arg(i + 1),
             slot.run->summary.peakBytes, slot.run->summary.peakStep, i});
    }
    double laneEnd = 0; // the host lanes' shared axis: their playheads line up
    for (const Slot &slot : slots_)
        if (slot.run && slot.run->timeline->timed())
            laneEnd = std::max(laneEnd, slot.run->timeline->makespan());
    for (const Slot &slot : slots_)
        slot.widget->view()->setLaneEnd(laneEnd);
    chart_->setSeries(std::move(series), player_->axis());
    table_->setRuns(runs, colors);
    player_->setTracks(std::move(tracks));
}

void MainWindow::showPosition() {
    for (Slot &slot : slots_)
        if (slot.track >= 0)
            slot.widget->setStep(player_->stepOf(slot.track),
                                 render::streamTime(*slot.run->timeline, player_->time(), player_->axis()));
    chart_->setPlayhead(player_->time());
    slider_->blockSignals(true);
    slider_->setValue(player_->position());
    slider_->blockSignals(false);
    // "t = 2.005M / 4.01M GFLOP": readable at any size, in the model's cost unit.
    const Timeline *timed = nullptr; // timed panes count seconds (a link is set)
    for (const Slot &slot : slots_)
        if (slot.run && slot.run->timeline->timed())
            timed = slot.run->timeline.get();
    const auto timeText = [this, timed](double t, bool withUnit) {
        if (timed)
            return QString::fromStdString(render::timeText(t, player_->axis(), *timed, withUnit));
        return QString::fromStdString(model_ ? render::timeText(t, player_->axis(), *model_, withUnit) : formatCost(t));
    };
    clock_->setText(tr("t = %1 / %2").arg(timeText(player_->time(), false), timeText(player_->endTime(), true)));
}

void MainWindow::onNodeClicked(PaneWidget *pane, NodeId node) {
    const int index = indexOfWidget(pane);
    const Slot &slot = slots_[static_cast<std::size_t>(index)];
    if (!slot.run)
        return;
    const Model &model = *slot.run->model;
    if (model.isBackward(node)) {
        statusBar()->showMessage(
            tr("Gradients are computed once each; click a forward node (top row) to toggle a checkpoint."), 6000);
        return;
    }
    const int i = model.indexOf(node);
    if (i == 0 || i == model.layers()) {
        statusBar()->showMessage(i == 0 ? tr("a_0 is the input: it is always kept.")
                                        : tr("a_n goes straight to the loss; checkpoints are a_1 to a_(n-1)."),
                                 6000);
        return;
    }
    const PaneConfig config = withCheckpointToggled(*slot.run, i);
    const bool added = std::binary_search(config.params.checkpoints->begin(), config.params.checkpoints->end(), i);
    const QString before = QString::fromStdString(slot.config.strategy);
    const std::int64_t peakBefore = slot.run->summary.peakNodes;
    QString message =
        tr("Pane %1: %2 a_%3 as a checkpoint.").arg(index + 1).arg(added ? tr("kept") : tr("dropped")).arg(i);
    setPaneConfig(index, config);
    // A click turns any strategy into an explicit list: say so, and what it did to the peak.
    if (before != QLatin1String("checkpoints"))
        message += tr(" The pane now uses 'checkpoints' (%1's checkpoints %2 a_%3): each segment between "
                      "checkpoints is recomputed once and held whole for its backward steps, not %1's own plan.")
                       .arg(before, added ? tr("plus") : tr("minus"))
                       .arg(i);
    if (const auto &after = slots_[static_cast<std::size_t>(index)].run;
        after && after->summary.peakNodes != peakBefore)
        message += tr(" Peak %1 → %2 nodes.").arg(peakBefore).arg(after->summary.peakNodes);
    statusBar()->showMessage(message, 15000);
}

void MainWindow::setSyncByTime(bool byTime) {
    syncByTime_->setChecked(byTime);
}

bool MainWindow::syncByTime() const {
    return syncByTime_->isChecked();
}

void MainWindow::setSpeed(double opsPerSecond) {
    speed_->setValue(opsPerSecond);
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
    for (QToolButton *b : findChildren<QToolButton *>())
        if (const QVariant kind = b->property("playerIcon"); kind.isValid())
            b->setIcon(playerIcon(static_cast<QStyle::StandardPixmap>(kind.toInt()),
                                  QApplication::palette().color(QPalette::ButtonText)));
    for (int i = 0; i < paneCount(); ++i)
        slots_[static_cast<std::size_t>(i)].widget->setPalette(palette, palette.paneColour(i));
    refreshTracks();
}

void MainWindow::showError(const QString &message) {
    statusBar()->showMessage(message, 10000);
}

void MainWindow::closeEvent(QCloseEvent *event) {
    player_->pause();
    const bool presenting = presentationMode();
    setPresentationMode(false); // the session keeps the full window's layout
    saveSession(*this, presenting);
    event->accept();
}

} // namespace remat::studio
