#pragma once
// Writing a lesson in the studio (docs/lessons.md, "Writing a lesson in the
// studio"): the Lesson menu's New lesson, Edit a lesson file, Add chapter
// from the current view, Edit chapter text, Add a stop here, Chapters, Save,
// Save as, Undo and Redo. The lesson itself lives in the Session
// (Session::lessonDocument); this tool only turns actions into its edits and
// says in the status bar why one was refused.
#include <QObject>
#include <QPointer>
#include <QString>

class QAction;
class QMenu;
class QUndoGroup;
class QWidget;

namespace remat::studio {

class LessonChaptersDialog;
class LessonTextDialog;
class Session;

class LessonEditor : public QObject {
    Q_OBJECT
public:
    // Adds its actions to `menu`; `stackByKind` is the chart's option a chapter takes and sets.
    LessonEditor(Session &session, QWidget *window, QMenu *menu, QAction *stackByKind);

    // The actions' work, "" when done, else why not (also said in the status bar).
    QString newLesson(const QString &title);
    QString openForEditing(const QString &path);
    QString addChapterFromView();
    QString addStopHere();
    QString save();
    QString saveAs(const QString &path);
    // The dialogs (window-modal text dialog, non-modal chapter list), deleted when closed.
    LessonTextDialog *editText();
    LessonChaptersDialog *showChapters();
    // Shows chapter `index` of the lesson being written in the session.
    void showChapter(int index);

private:
    QString said(const QString &problem);
    void updateActions();

    Session &session_;
    QWidget *window_;
    QAction *stackByKind_;
    QUndoGroup *undo_;
    QList<QAction *> needLesson_;
    QPointer<LessonChaptersDialog> chapters_;
};

} // namespace remat::studio
