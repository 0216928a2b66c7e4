#pragma once
// What the user is looking at in the studio, without a widget: the model (a
// uniform chain of n layers or an opened file), the panes' strategies and the
// simulator's runs of them, the link for offloading, and the sync mode and
// speed of the one clock (the Player, owned beside the session). It checks
// every change, and a refused one leaves everything as it was and says why;
// it signals what changed. The window, the lesson controller, Measure, the
// exports and the settings observe and drive it (docs/architecture.md).
//
// Large schedules and slow planners are simulated off the GUI thread; a
// result that a newer change superseded (its pane's generation moved on) or
// whose pane went is dropped.
#include "app/studio/link_settings.h"
#include "app/studio/pane_run.h"
#include "app/studio/scenarios.h"
#include "core/race_points.h"

#include <QFutureWatcher>
#include <QObject>
#include <QString>

#include <atomic>
#include <memory>
#include <vector>

namespace remat::studio {

class LessonDocument;
class Player;

class Session : public QObject {
    Q_OBJECT
public:
    static constexpr int kMaxPanes = 4;
    // Schedules with more ops than this (all panes together) are simulated off
    // the GUI thread; below it, re-simulation takes well under 50 ms.
    static constexpr double kBackgroundOps = 2'000'000;

    // `player` is the clock the runs are played on: the session hands it the
    // runs' timelines and keeps its axis (sync mode) and speed.
    explicit Session(Player &player, QObject *parent = nullptr);
    ~Session() override;
    Player &player() const { return player_; }

    // The model every pane shows.
    const std::shared_ptr<const Model> &model() const { return model_; }
    const QString &modelName() const { return modelName_; } // "" for a uniform chain
    const QString &modelFile() const { return modelFile_; } // the opened file, "" for a chain
    bool isChain() const { return modelFile_.isEmpty() && modelName_.isEmpty(); }
    int layers() const { return layers_; }
    // The scenario's chain, link and panes in place of everything.
    void loadScenario(const Scenario &scenario);
    // All or nothing: "" when it loaded, else the reason (the model stays).
    QString openModelFile(const QString &path);
    // Replaces the panes with the ones an op-level or graph model opens with
    // (starter_panes.h); chains keep theirs. File > Open and the command line
    // call it after openModelFile; a restored session does not.
    void useStarterPanes();
    // Every pane shows `model` (named `name`, "" for a uniform chain); panes
    // whose strategy plans only chains switch to one that plans graphs.
    void setModel(std::shared_ptr<const Model> model, const QString &name);
    // The uniform chain of `layers` layers (also from a model file).
    void setLayers(int layers);
    void useChain() { setModel(chainModel(layers_), QString()); }

    // The panes, left to right.
    int paneCount() const { return static_cast<int>(panes_.size()); }
    const PaneConfig &paneConfig(int index) const { return pane(index).config; }
    // The simulator's run of pane `index`; null while it is simulated or when it failed.
    const std::shared_ptr<const PaneRun> &run(int index) const { return pane(index).run; }
    // Why pane `index` has no run: what it is busy with, or its error.
    const QString &paneStatus(int index) const { return pane(index).status; }
    bool paneBusy(int index) const { return pane(index).busy; }
    // The player's track of pane `index`, -1 without a run.
    int trackOf(int index) const { return pane(index).track; }
    // False (and a message) when kMaxPanes are shown. The added pane becomes
    // the current one.
    bool addPane(const PaneConfig &config);
    void removePane(int index); // the last pane stays
    // The pane the user selected (a click in it, Ctrl+Tab): the views that
    // show one pane's plan (the Blocks strip) follow it. The right-most pane
    // after a scenario or a new pane; when the current pane is removed, the
    // one that takes its place (or the new right-most); -1 only without panes.
    int currentPane() const { return currentPane_; }
    void setCurrentPane(int index); // out of range: ignored
    // The next (+1) or previous (-1) pane, round the end.
    void cycleCurrentPane(int step);
    void setPaneConfig(int index, const PaneConfig &config);
    // A click on node `node` of pane `index`: toggles it as a checkpoint, or
    // says why it cannot be one.
    void toggleCheckpoint(int index, NodeId node);
    // Adds a pane with the budget planner's plan for `budget` ("2 GiB", "12
    // nodes"): "" when added, else why not.
    QString planForBudget(const QString &budget);
    // On an op-level model (Model::isOpLevel) the budget plan is the exact
    // op-level planner's (strategy op-budget). Adds a pane with one of the
    // op-level strategies (opLevelStrategies(): save-matmuls, attention-core,
    // per-block, op-budget with `budget`): "" when added, else why not (the
    // model is not op level, a bad budget, no room for a pane).
    static const std::vector<std::string> &opLevelStrategies();
    QString addOpLevelPlan(const std::string &strategy, const QString &budget = QString());

    // The block of an op-level model opened into its ops (the Blocks panel,
    // op_block_view.h): an index among its blocks of two or more ops, -1
    // none. Opening the opened one closes it; on a model that is not op level
    // or out of range it says why and changes nothing. A new model closes it.
    int openedBlock() const { return openedBlock_; }
    void setOpenedBlock(int block);

    // The link for offloading: every pane is timed on it; off when its link is
    // empty. Returns "" or, leaving everything as it was, the message of the
    // first bad field.
    QString setLink(const LinkSettings &settings);
    const LinkSettings &link() const { return link_; }

    // The clock: by op cost (true) or one op per step, and its speed in
    // forward ops per second.
    bool syncByTime() const;
    void setSyncByTime(bool byTime);
    double speed() const;
    void setSpeed(double opsPerSecond);

    bool isSimulating() const { return watcher_.isRunning(); }
    // Stops the background work: planners at their next check, a running
    // simulation by dropping its result; the waiting panes say so.
    void cancelSimulation();
    // The lesson being written (Lesson > New lesson, lesson_document.h), null
    // without one. A new or opened one replaces it (its unsaved edits go:
    // the editor asks first).
    LessonDocument *lessonDocument() const { return lessonDocument_; }
    LessonDocument *newLessonDocument(const QString &title);
    QString openLessonDocument(const QString &path); // "" when it loaded, else why not
    void closeLessonDocument();

    // Measured points from the framework race (bench/framework_race.py's
    // JSON, core/race_points.h) that the trade-off view draws on their own
    // axes beside the curve; null without. They belong to no model: opening
    // another keeps them. Loading a file replaces the points (one race at a
    // time); a file that does not read leaves them as they were and returns
    // the reason (the file, the bad value, what is allowed), else "".
    const std::shared_ptr<const RaceResult> &measuredPoints() const { return measuredPoints_; }
    const QString &measuredPointsFile() const { return measuredPointsFile_; } // "" without points
    QString loadMeasuredPoints(const QString &path);
    void clearMeasuredPoints(); // nothing to clear: no signal

    // A line for the status bar from anyone working on the session.
    void say(const QString &text, int timeoutMs = 10000) { emit message(text, timeoutMs); }

signals:
    void modelChanged(); // the model, its name or file, or n
    void linkChanged();
    void paneAdded(int index);
    void paneRemoved(int index);
    void paneConfigChanged(int index);
    // The pane's run, or what it is busy with, or its error, changed.
    void paneStateChanged(int index);
    // The runs as a whole changed; the player already has their timelines.
    void runsChanged();
    void syncByTimeChanged(bool byTime);
    void speedChanged(double opsPerSecond);
    void simulationStarted();
    void simulationProgress(double fraction); // from planners that report it
    void simulationFinished();
    void message(const QString &text, int timeoutMs);
    void openedBlockChanged(int block);
    void lessonDocumentChanged(); // another lesson is written, or none
    // Another pane is current, or the current one moved to `index` (a pane before it went).
    void currentPaneChanged(int index);
    void measuredPointsChanged(); // loaded or cleared

private:
    // A pane and what it shows. `id` stays fixed while panes come and go, so
    // a background result finds its pane; `generation` drops stale results.
    struct Pane {
        int id = 0;
        PaneConfig config;
        std::shared_ptr<const PaneRun> run;
        QString status;
        bool busy = false;
        int generation = 0;
        int track = -1;
    };
    struct Job {
        int id = 0;
        int generation = 0;
        PaneConfig config;
        std::shared_ptr<const Model> model;
    };
    struct Result {
        int id = 0;
        int generation = 0;
        std::shared_ptr<const PaneRun> run;
        QString error;
    };

    const Pane &pane(int index) const { return panes_[static_cast<std::size_t>(index)]; }
    Pane &pane(int index) { return panes_[static_cast<std::size_t>(index)]; }
    int indexOfId(int id) const;
    std::vector<int> allPanes() const;
    std::shared_ptr<const Model> chainModel(int layers) const; // timed when a link is set
    void replaceModel(std::shared_ptr<const Model> model, const QString &name, const QString &file);
    // When the user puts an offload strategy in one of `panes` and no link is
    // set: sets the default link and returns true (every pane re-simulated).
    bool linkOfferedFor(const std::vector<int> &panes);
    void simulate(const std::vector<int> &panes);
    static std::vector<Result> runJobs(const std::vector<Job> &jobs);
    void startBackgroundJobs();
    bool applyResults(const std::vector<Result> &results); // true when a pane changed
    void refreshTracks();

    Player &player_;
    int layers_ = 16;
    std::shared_ptr<const Model> model_;
    QString modelName_;
    QString modelFile_;
    LinkSettings link_;
    MachineSpec fileMachine_; // the open model file's link and budget keys
    std::vector<Pane> panes_;
    int nextId_ = 1;
    int openedBlock_ = -1;
    int currentPane_ = -1;
    LessonDocument *lessonDocument_ = nullptr; // a child
    std::shared_ptr<const RaceResult> measuredPoints_;
    QString measuredPointsFile_;

    QFutureWatcher<std::vector<Result>> watcher_;
    std::vector<Job> queuedJobs_;                   // waiting for the running background job
    std::shared_ptr<std::atomic<bool>> cancelFlag_; // read by planners that can stop
};

} // namespace remat::studio
