#pragma once
// A lesson in the studio (docs/lessons.md): File > Open lesson (or
// `remat-studio --lesson FILE`) loads its chapters one at a time into the
// session's panes, shows the chapter's title and caption above them, and
// pauses playback by itself at the chapter's stops. A presenter's clicker
// drives it whatever has focus (through PlayerKeys): Page Down, Space or →
// plays on to the next stop, then to the next chapter; Page Up or ← goes back;
// Home/End the first/last chapter; B (or .) blanks the screen; Escape leaves
// presentation mode (and full screen, F11).
#include "app/lesson/lesson.h"

#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>

#include <memory>
#include <optional>
#include <vector>

class QAction;
class QMenu;
class QWidget;

namespace remat::studio {

class ExercisePanel;
class FrontierPanel;
class LessonCaption;
class LessonGifDialog;
class PlayerKeys;
class ScreenBlank;
class Session;

class LessonController : public QObject {
    Q_OBJECT
public:
    // Adds File > Open lesson, File > Lessons (the shipped ones), File > Close
    // lesson and File > Export lesson as GIFs to `fileMenu`. `window` is the
    // top-level widget: the blank screen covers it, its dialogs are its
    // children, the Lesson menu's shortcuts are its actions.
    LessonController(Session &session, QWidget *window, QMenu *fileMenu);
    // The window's controls a lesson works with.
    struct Controls {
        QList<QAction *> playerActions;  // their keys rest while a lesson is open
        PlayerKeys *keys = nullptr;      // the clicker's keys join these
        QAction *presentation = nullptr; // View > Presentation mode, left by Escape
        QAction *fullScreen = nullptr;   // View > Full screen, left by Escape
        QAction *stackByKind = nullptr;  // the chart's, set by each chapter
    };
    // Makes the Lesson menu (menu()) with the clicker's keys; while a lesson
    // is open, the player actions with the same keys (Space, arrows, Home/End) rest.
    void takeKeys(const Controls &controls);
    QMenu *menu() const { return menu_; }

    // Opens the lesson at chapter `chapter` (0-based); "" when it loaded, else
    // the one-line reason (the lesson that was open stays).
    QString open(const QString &path, int chapter = 0);
    // The same, with a dialog for a lesson that does not load.
    bool openWithDialog(const QString &path);
    void close();
    bool isOpen() const { return lesson_ != nullptr; }
    const lesson::Lesson *lesson() const { return lesson_.get(); }
    const QString &file() const { return file_; }
    int chapter() const { return chapter_; }
    int chapterCount() const { return lesson_ ? static_cast<int>(lesson_->chapters.size()) : 0; }
    // The moments playback pauses at in this chapter, on the player's axis,
    // increasing; the last is the chapter's end. Empty while panes are planned.
    const std::vector<double> &stopTimes() const { return stopTimes_; }
    // Stops reached so far in this chapter.
    int stopsPassed() const;
    bool isBlank() const;
    // Placed by the window: the chapter's words above the legend, and the
    // curve chapter's page beside the panes (shown instead of them, see stageChanged).
    LessonCaption *caption() const { return caption_; }
    // Under the caption: the chapter's exercise, hidden without one.
    ExercisePanel *exercise() const { return exercise_; }
    QWidget *curveHolder() const { return curveHolder_; }
    FrontierPanel *curve() const; // the trade-off curve chapter's, else null
    // File > Export lesson as GIFs…: opens the export dialog for the open
    // lesson (deleted when closed); null without a lesson.
    LessonGifDialog *exportGifs();
    // share/remat/lessons beside the installed program, else the source tree's.
    static QString lessonsDirectory();

public slots:
    void next();
    void previous();
    void firstChapter();
    void lastChapter();
    void toggleBlank();
    void leavePresentation();
    // Shows chapter `index`; at its last stop (its end) when `atEnd`.
    void showChapter(int index, bool atEnd = false);

signals:
    void chapterShown(int index);
    // A curve chapter shows the curve instead of the panes, the chart and the player.
    void stageChanged(bool curve);

private:
    const lesson::Chapter &current() const { return lesson_->chapters[static_cast<std::size_t>(chapter_)]; }
    bool isCurve() const;
    void refreshStops();
    void onPosition();
    // Pauses at `time` (a stop, the chapter's start or end) without taking it for playback news.
    void holdAt(double time);
    void updateCaption();
    void updateActions();
    void showStage(bool curve);
    void say(const QString &message);
    bool presenting() const;

    Session &session_;
    QWidget *window_;
    Controls controls_;
    QMenu *menu_ = nullptr;
    std::unique_ptr<const lesson::Lesson> lesson_;
    QString file_;
    int chapter_ = 0;
    std::vector<double> stopTimes_;
    double lastTime_ = 0;
    bool pendingEnd_ = false; // go to the end once the chapter's panes are planned
    bool holding_ = false;    // pausing at a stop: its own seek is no news
    bool loading_ = false;    // adding the chapter's panes: stops wait for all of them
    LessonCaption *caption_ = nullptr;
    ExercisePanel *exercise_ = nullptr;
    QAction *checkAction_ = nullptr; // Enter: the exercise's Check
    QWidget *curveHolder_ = nullptr;
    QPointer<FrontierPanel> curve_;
    ScreenBlank *blank_ = nullptr;
    QList<QAction *> navigation_; // work only in a lesson
    QAction *blankAction_ = nullptr;
    QAction *escapeAction_ = nullptr;
    QAction *closeAction_ = nullptr;
    QAction *exportAction_ = nullptr;
    QList<QAction *> restingPlayerActions_;
};

} // namespace remat::studio
