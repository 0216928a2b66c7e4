#pragma once
// The studio's window: 1-4 strategy panes side by side driven by one player,
// a shared memory chart, a summary table, and the controls around them.
#include "app/studio/link_settings.h"
#include "app/studio/pane_run.h"
#include "app/studio/player.h"
#include "app/studio/scenarios.h"

#include <QFont>
#include <QFutureWatcher>
#include <QMainWindow>

#include <atomic>
#include <memory>
#include <vector>

class QAction;
class QActionGroup;
class QGridLayout;
class QLabel;
class QMenu;
class QProgressBar;
class QPushButton;
class QSlider;
class QSpinBox;
class QDoubleSpinBox;
class QToolButton;

namespace remat::studio {

class LegendWidget;
class LessonController;
class MemoryChartView;
class PaneWidget;
class SummaryTable;

enum class Theme { System, Light, Dark };

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    static constexpr int kMaxPanes = 4;
    // Schedules with more ops than this (all panes together) are simulated off
    // the GUI thread; below it, re-simulation takes well under 50 ms.
    static constexpr double kBackgroundOps = 2'000'000;

    struct Options {
        bool restoreSession = true; // read the last session from QSettings
        QString scenario;           // start with this scenario instead
        bool autoplay = false;      // start playing when a scenario (not a saved session) is loaded
    };

    explicit MainWindow(const Options &options, QWidget *parent = nullptr);
    ~MainWindow() override;

    Player *player() const { return player_; }
    int paneCount() const { return static_cast<int>(slots_.size()); }
    PaneWidget *pane(int index) const { return slots_[static_cast<std::size_t>(index)].widget; }
    const std::shared_ptr<const PaneRun> &run(int index) const { return slots_[static_cast<std::size_t>(index)].run; }
    const PaneConfig &paneConfig(int index) const { return slots_[static_cast<std::size_t>(index)].config; }
    SummaryTable *summaryTable() const { return table_; }
    MemoryChartView *chart() const { return chart_; }
    // The open lesson and its clicker keys (app/studio/lesson_controller.h).
    LessonController *lesson() const { return lesson_; }
    int layers() const { return layers_; }
    bool isSimulating() const { return watcher_.isRunning(); }

    void loadScenario(const Scenario &scenario);
    // Models (app/studio/model_actions.cpp): every pane shows the model; a
    // file that does not load leaves the current model and says why in a dialog.
    bool openModelFile(const QString &path);
    // The same without the dialog: the reason it did not load, "" when it did.
    QString tryOpenModelFile(const QString &path);
    void setModel(std::shared_ptr<const Model> model, const QString &name);
    const std::shared_ptr<const Model> &model() const { return model_; }
    const QString &modelName() const { return modelName_; } // "" for a uniform chain
    const QString &modelFile() const { return modelFile_; } // the opened file, "" for a chain
    static QString examplesDirectory(); // share/remat/models beside the install, or the source tree's
    // Adds a pane with the budget planner's plan for `budget` ("2 GiB", "12 nodes").
    bool planForBudget(const QString &budget);
    void setLayers(int layers);
    void addPane(const PaneConfig &config);
    void removePane(int index);
    void setPaneConfig(int index, const PaneConfig &config);
    void setTheme(Theme theme);
    // The link for offloading (app/studio/link_actions.cpp): every pane is
    // timed on it; off when its link is empty. Returns "" or, leaving
    // everything as it was, the message of the first bad field.
    QString setLink(const LinkSettings &settings);
    const LinkSettings &link() const { return link_; }
    void openLinkDialog(); // Panes > Link and budgets…
    Theme theme() const { return theme_; }
    void setSyncByTime(bool byTime);
    bool syncByTime() const;
    void setSpeed(double opsPerSecond);
    // Presentation mode (F5, app/studio/presentation.cpp): no table, toolbar
    // or pane controls; the panes take most of the height; text is larger.
    void setPresentationMode(bool on);
    bool presentationMode() const { return presentation_.active; }
    // Presentation mode's split: a third of the window for the memory chart, the rest for the panes.
    void dividePresentation();
    static constexpr double kPresentationTextScale = 1.25;
    // Below this four panes' pictures no longer read (fits a 1366x768 laptop).
    static constexpr QSize kMinimumSize{960, 640};

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    // A pane and what it shows. `id` stays fixed while panes come and go, so
    // a background result finds its pane; `generation` drops stale results.
    struct Slot {
        int id = 0;
        PaneConfig config;
        PaneWidget *widget = nullptr;
        std::shared_ptr<const PaneRun> run;
        int generation = 0;
        int track = -1; // the player's track, -1 without a timeline
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

    void buildMenus();
    void addLinkAction(QMenu *menu);
    std::shared_ptr<const Model> chainModel(int layers) const; // the uniform chain, timed when a link is set
    void showLink();
    // When the user puts an offload strategy in one of `panes` and no link is
    // set: sets the default link and returns true (every pane re-simulated).
    bool linkOfferedFor(const std::vector<int> &panes);
    PaneConfig withLink(PaneConfig config, const ResolvedLink &link) const;
    void buildModelMenu(QMenu *file);
    void buildHelpMenu();
    void showMessageBox(const QString &title, const QString &text, bool error);
    QWidget *buildPlayerBar();
    void simulate(const std::vector<int> &panes);
    static std::vector<Result> runJobs(const std::vector<Job> &jobs);
    void startBackgroundJobs();
    void applyResults(const std::vector<Result> &results);
    void rebuildPaneGrid();
    void refreshTracks();
    void showPosition();
    void onNodeClicked(PaneWidget *pane, NodeId node);
    void applyPalette();
    void loadSettings();
    void saveSettings() const;
    void showError(const QString &message);
    int indexOfWidget(const PaneWidget *pane) const;
    int indexOfId(int id) const;

    int layers_ = 16;
    std::shared_ptr<const Model> model_;
    QString modelName_;
    QString modelFile_;
    QLabel *modelLabel_ = nullptr;
    LinkSettings link_;
    MachineSpec fileMachine_; // the open model file's link and budget keys
    QLabel *linkLabel_ = nullptr;
    std::vector<Slot> slots_;
    int nextId_ = 1;
    Theme theme_ = Theme::System;

    Player *player_;
    LegendWidget *legend_;
    QWidget *paneArea_;
    QGridLayout *paneGrid_;
    MemoryChartView *chart_;
    SummaryTable *table_;
    QSpinBox *layersSpin_;
    QAction *syncByTime_;
    QAction *addPaneAction_;
    QActionGroup *themeGroup_;
    QToolButton *playButton_;
    QSlider *slider_;
    QLabel *clock_;
    QDoubleSpinBox *speed_;
    QProgressBar *progress_;
    QPushButton *cancel_;

    QFutureWatcher<std::vector<Result>> watcher_;
    std::vector<Job> queuedJobs_;                   // waiting for the running background job
    std::shared_ptr<std::atomic<bool>> cancelFlag_; // read by planners that can stop
    struct Presentation {
        bool active = false;
        QByteArray splitter; // the layout to return to
        bool toolbarShown = true;
        QFont font, statusFont;
    } presentation_;
    QAction *presentationAction_ = nullptr;
    LessonController *lesson_ = nullptr;
    QPalette systemPalette_;
    QString systemStyle_;
};

} // namespace remat::studio
