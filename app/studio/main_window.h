#pragma once
// The studio's window, a shell around the session (app/studio/session.h):
// 1-4 strategy panes side by side driven by one player, a shared memory
// chart, a summary table, and the menus, toolbar and player bar around them.
// It holds no state of its own beyond the layout: every view is built from the
// session's signals, and every action drives the session, the player or a
// tool that takes them (docs/architecture.md, "The studio").
#include "app/studio/player.h"
#include "app/studio/session.h"

#include <QFont>
#include <QMainWindow>

#include <vector>

class QAction;
class QActionGroup;
class QGridLayout;
class QLabel;
class QMenu;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace remat::studio {

class LegendWidget;
class LessonController;
class LessonEditor;
class MemoryChartView;
class PaneWidget;
class PlayerBar;
class PlayerKeys;
class SummaryTable;

enum class Theme { System, Light, Dark };

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    struct Options {
        bool restoreSession = true; // read the last session from QSettings
        QString scenario;           // start with this scenario instead
        bool autoplay = false;      // start playing when a scenario (not a saved session) is loaded
    };

    explicit MainWindow(const Options &options, QWidget *parent = nullptr);
    ~MainWindow() override;

    Session &session() { return *session_; }
    const Session &session() const { return *session_; }
    Player *player() const { return player_; }
    PaneWidget *pane(int index) const { return panes_[static_cast<std::size_t>(index)]; }
    SummaryTable *summaryTable() const { return table_; }
    MemoryChartView *chart() const { return chart_; }
    // The open lesson and its clicker keys (app/studio/lesson_controller.h).
    LessonController *lesson() const { return lesson_; }
    LessonEditor *lessonEditor() const { return lessonEditor_; }
    // The session's model, as the import dialog's tests read it.
    const QString &modelName() const { return session_->modelName(); }
    const QString &modelFile() const { return session_->modelFile(); }

    // Models (app/studio/main_window_models.cpp): a file that does not load leaves
    // the current model and says why in a dialog.
    bool openModelFile(const QString &path);
    static QString examplesDirectory(); // share/remat/models beside the install, or the source tree's
    // Adds a pane with the budget planner's plan for `budget` ("2 GiB", "12
    // nodes"); a budget that does not read is said in a dialog.
    bool planForBudget(const QString &budget);
    void setTheme(Theme theme);
    Theme theme() const { return theme_; }
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
    void connectSession();
    void buildMenus();
    void buildPanesMenu();
    void buildPlayerMenu(QList<QAction *> &playerActions, PlayerKeys *&keys);
    void buildToolBar(QMenu *view);
    void buildModelMenu(QMenu *file);
    void buildHelpMenu();
    void showMessageBox(const QString &title, const QString &text, bool error);
    void addPaneWidget(int index);
    void showPaneState(int index);
    void showModel();
    void showLink();
    void showRuns();
    void rebuildPaneGrid();
    void showPosition();
    void showCurrentPane();
    void applyPalette();
    // The window's look and the session as the user left them (QSettings).
    bool restoreSettings();
    void saveSettings(bool presenting) const;
    int indexOfWidget(const PaneWidget *pane) const;

    Theme theme_ = Theme::System;
    Player *player_;
    Session *session_;
    std::vector<PaneWidget *> panes_; // the session's panes, in its order
    LegendWidget *legend_;
    QWidget *paneArea_;
    QGridLayout *paneGrid_;
    MemoryChartView *chart_;
    SummaryTable *table_;
    PlayerBar *playerBar_;
    QSpinBox *layersSpin_ = nullptr;
    QLabel *modelLabel_ = nullptr;
    QLabel *linkLabel_ = nullptr;
    QAction *syncByTime_ = nullptr;
    QAction *addPaneAction_ = nullptr;
    QList<QAction *> paneSelectionActions_; // next and previous pane: keys that work whatever has focus
    QActionGroup *themeGroup_ = nullptr;
    QProgressBar *progress_;
    QPushButton *cancel_;
    struct Presentation {
        bool active = false;
        QByteArray splitter; // the layout to return to
        bool toolbarShown = true;
        QFont font, statusFont;
    } presentation_;
    QAction *presentationAction_ = nullptr;
    QAction *fullScreenAction_ = nullptr;
    LessonController *lesson_ = nullptr;
    LessonEditor *lessonEditor_ = nullptr;
    QPalette systemPalette_;
    QString systemStyle_;
};

} // namespace remat::studio
