// The session's panes and their runs: adding, removing and editing panes,
// simulating them (small ones at once, large ones and slow planners in the
// background), and handing the runs to the player. The model, the link and
// budgets are in session_model.cpp.
#include "app/studio/session.h"

#include "app/studio/player.h"
#include "core/errors.h"

#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>

namespace remat::studio {

Session::Session(Player &player, QObject *parent) : QObject(parent), player_(player) {
    model_ = chainModel(layers_);
    connect(&watcher_, &QFutureWatcher<std::vector<Result>>::finished, this, [this] {
        if (applyResults(watcher_.result()))
            refreshTracks();
        if (!queuedJobs_.empty())
            startBackgroundJobs();
        else
            emit simulationFinished();
    });
}

Session::~Session() {
    // Planners stop at the flag; a simulation in flight is waited for (its memory is owned by the job).
    if (cancelFlag_)
        cancelFlag_->store(true);
    watcher_.waitForFinished();
}

void Session::loadScenario(const Scenario &scenario) {
    player_.pause();
    currentPane_ = -1; // the scenario's last pane becomes current
    while (!panes_.empty()) {
        panes_.pop_back();
        emit paneRemoved(paneCount());
    }
    link_ = scenario.link;                            // a scenario sets its link, or none
    setModel(chainModel(scenario.layers), QString()); // no panes yet: nothing simulated
    for (const PaneConfig &config : scenario.panes)
        addPane(config);
    player_.jumpToStart();
}

bool Session::addPane(const PaneConfig &config) {
    if (paneCount() >= kMaxPanes) {
        say(tr("At most %1 panes side by side").arg(kMaxPanes));
        return false;
    }
    Pane added;
    added.id = nextId_++;
    added.config = fittedTo(config, layers_);
    panes_.push_back(std::move(added));
    emit paneAdded(paneCount() - 1);
    setCurrentPane(paneCount() - 1);
    if (!linkOfferedFor({paneCount() - 1})) // else the default link re-simulated every pane
        simulate({paneCount() - 1});
    return true;
}

void Session::removePane(int index) {
    if (index < 0 || index >= paneCount() || paneCount() == 1)
        return;
    panes_.erase(panes_.begin() + index);
    // The current pane stays current where it moved; a removed current pane hands over to the one in its place.
    const bool moved = index <= currentPane_;
    if (index < currentPane_ || currentPane_ == paneCount())
        --currentPane_;
    emit paneRemoved(index);
    if (moved)
        emit currentPaneChanged(currentPane_);
    refreshTracks();
}

void Session::setCurrentPane(int index) {
    if (index < 0 || index >= paneCount() || index == currentPane_)
        return;
    currentPane_ = index;
    emit currentPaneChanged(index);
}

void Session::cycleCurrentPane(int step) {
    if (paneCount() > 0)
        setCurrentPane(((currentPane_ + step) % paneCount() + paneCount()) % paneCount());
}

void Session::setPaneConfig(int index, const PaneConfig &config) {
    if (index < 0 || index >= paneCount())
        return;
    pane(index).config = config;
    emit paneConfigChanged(index);
    if (!linkOfferedFor({index})) // else the default link re-simulated every pane
        simulate({index});
}

void Session::toggleCheckpoint(int index, NodeId node) {
    if (index < 0 || index >= paneCount() || !run(index))
        return;
    const PaneRun &before = *run(index);
    const Model &model = *before.model;
    if (model.isBackward(node)) {
        say(tr("Gradients are computed once each; click a forward node (top row) to toggle a checkpoint."), 6000);
        return;
    }
    const int i = model.indexOf(node);
    if (i == 0 || i == model.layers()) {
        say(i == 0 ? tr("a_0 is the input: it is always kept.")
                   : tr("a_n goes straight to the loss; checkpoints are a_1 to a_(n-1)."),
            6000);
        return;
    }
    const PaneConfig config = withCheckpointToggled(before, i);
    const bool added = std::binary_search(config.params.checkpoints->begin(), config.params.checkpoints->end(), i);
    const QString strategyBefore = QString::fromStdString(paneConfig(index).strategy);
    const std::int64_t peakBefore = before.summary.peakNodes;
    QString text =
        tr("Pane %1: %2 a_%3 as a checkpoint.").arg(index + 1).arg(added ? tr("kept") : tr("dropped")).arg(i);
    setPaneConfig(index, config);
    // A click turns any strategy into an explicit list: say so, and what it did to the peak.
    if (strategyBefore != QLatin1String("checkpoints"))
        text += tr(" The pane now uses 'checkpoints' (%1's checkpoints %2 a_%3): each segment between "
                   "checkpoints is recomputed once and held whole for its backward steps, not %1's own plan.")
                    .arg(strategyBefore, added ? tr("plus") : tr("minus"))
                    .arg(i);
    if (const auto &after = run(index); after && after->summary.peakNodes != peakBefore)
        text += tr(" Peak %1 → %2 nodes.").arg(peakBefore).arg(after->summary.peakNodes);
    say(text, 15000);
}

int Session::indexOfId(int id) const {
    for (int i = 0; i < paneCount(); ++i)
        if (pane(i).id == id)
            return i;
    return -1;
}

std::vector<int> Session::allPanes() const {
    std::vector<int> all;
    for (int i = 0; i < paneCount(); ++i)
        all.push_back(i);
    return all;
}

std::vector<Session::Result> Session::runJobs(const std::vector<Job> &jobs) {
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
            r.error = QString::fromUtf8(e.what());
        }
        results.push_back(std::move(r));
    }
    return results;
}

void Session::simulate(const std::vector<int> &panes) {
    ResolvedLink link;
    try {
        link = resolveLink(*model_, fileMachine_, link_);
    } catch (const std::exception &) {
        link = {}; // checked by setLink; a pane that needs the link says so
    }
    std::vector<Job> small;
    bool waiting = false;
    for (const int index : panes) {
        Pane &p = pane(index);
        Job job{p.id, ++p.generation, p.config, model_};
        job.config.params.machine = link.machine;
        if (job.config.strategy == "offload-budget" && !job.config.params.budgetBytes && !job.config.params.budgetNodes)
            job.config.params.budgetBytes = link.deviceBudget;
        double ops = 0;
        try {
            ops = estimatedOps(*model_, job.config);
        } catch (const std::exception &) {
            ops = 0; // let the simulation report the problem
        }
        if (ops > kBackgroundOps || plansSlowly(job.config)) {
            const QString strategy = QString::fromStdString(p.config.strategy);
            p.run.reset();
            p.busy = true;
            p.status = ops > kBackgroundOps ? tr("Simulating %1 at n = %2 (about %3 million ops)\u2026")
                                                  .arg(strategy)
                                                  .arg(layers_)
                                                  .arg(ops / 1e6, 0, 'f', 1)
                                            : tr("Planning %1 at n = %2\u2026").arg(strategy).arg(layers_);
            emit paneStateChanged(index);
            queuedJobs_.push_back(std::move(job));
            waiting = true;
        } else {
            small.push_back(std::move(job));
        }
    }
    if ((!small.empty() && applyResults(runJobs(small))) || waiting)
        refreshTracks();
    if (!queuedJobs_.empty() && !watcher_.isRunning())
        startBackgroundJobs();
}

void Session::startBackgroundJobs() {
    std::vector<Job> jobs;
    jobs.swap(queuedJobs_);
    cancelFlag_ = std::make_shared<std::atomic<bool>>(false);
    for (Job &job : jobs) {
        job.config.params.cancelled = [flag = cancelFlag_] { return flag->load(); };
        // Called on the worker thread: hop to the GUI thread (dropped if the session is gone).
        job.config.params.progress = [this](double fraction) {
            QMetaObject::invokeMethod(
                this, [this, fraction] { emit simulationProgress(fraction); }, Qt::QueuedConnection);
        };
    }
    emit simulationStarted();
    watcher_.setFuture(QtConcurrent::run(&Session::runJobs, std::move(jobs)));
}

bool Session::applyResults(const std::vector<Result> &results) {
    bool changed = false;
    for (const Result &r : results) {
        const int index = indexOfId(r.id);
        if (index < 0)
            continue; // the pane was removed meanwhile
        Pane &p = pane(index);
        if (p.generation != r.generation)
            continue; // superseded by a newer request
        p.run = r.run;
        p.busy = false;
        p.status = r.error;
        emit paneStateChanged(index);
        if (!r.run)
            say(tr("Pane %1: %2").arg(index + 1).arg(r.error));
        changed = true;
    }
    return changed;
}

void Session::cancelSimulation() {
    // Planners stop at the flag; a running simulation cannot be
    // interrupted, so its result is dropped instead.
    if (cancelFlag_)
        cancelFlag_->store(true);
    queuedJobs_.clear();
    for (int i = 0; i < paneCount(); ++i)
        if (Pane &p = pane(i); !p.run) {
            ++p.generation;
            p.busy = false;
            p.status = tr("Simulation cancelled. Pick a smaller n or another strategy.");
            emit paneStateChanged(i);
        }
    say(tr("Simulation cancelled"), 5000);
}

void Session::refreshTracks() {
    std::vector<Player::Track> tracks;
    for (Pane &p : panes_) {
        p.track = p.run ? static_cast<int>(tracks.size()) : -1;
        if (p.run)
            tracks.push_back({p.run->timeline, p.run->summary.peakStep});
    }
    emit runsChanged();
    player_.setTracks(std::move(tracks));
}

bool Session::syncByTime() const {
    return player_.axis() == render::TimeAxis::Cost;
}

void Session::setSyncByTime(bool byTime) {
    if (byTime == syncByTime())
        return;
    player_.setAxis(byTime ? render::TimeAxis::Cost : render::TimeAxis::Ops);
    emit syncByTimeChanged(byTime);
    refreshTracks();
}

double Session::speed() const {
    return player_.speed();
}

void Session::setSpeed(double opsPerSecond) {
    const double before = player_.speed();
    player_.setSpeed(opsPerSecond);
    if (player_.speed() != before)
        emit speedChanged(player_.speed());
}

} // namespace remat::studio
