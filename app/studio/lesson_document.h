#pragma once
// The lesson being written in the studio (Lesson > New lesson, docs/lessons.md
// "Writing a lesson in the studio"): the lesson, the file it is saved to, the
// chapter being edited, and an undo stack on which every edit is one
// command. The Session owns it (Session::lessonDocument), so the editor's
// actions, its dialogs and the tests all change the same object, and no
// window holds the lesson. Saving writes app/lesson/lesson_write.h's text
// through a QSaveFile: a failed save leaves the file as it was.
#include "app/lesson/lesson.h"

#include <QObject>
#include <QString>
#include <QUndoStack>

namespace remat::studio {

class LessonDocument : public QObject {
    Q_OBJECT
public:
    explicit LessonDocument(lesson::Lesson lesson, QObject *parent = nullptr);

    const lesson::Lesson &lesson() const { return lesson_; }
    int chapterCount() const { return static_cast<int>(lesson_.chapters.size()); }
    const lesson::Chapter &chapter(int index) const { return lesson_.chapters[static_cast<std::size_t>(index)]; }
    // Where Save writes; "" until the lesson was saved or opened.
    const QString &file() const { return file_; }
    QUndoStack *undoStack() { return &undo_; }
    bool isModified() const { return !undo_.isClean(); }

    // The chapter Add a stop and Edit text work on: the one last added or
    // selected in the chapter list; -1 without chapters.
    int currentChapter() const { return current_; }
    void setCurrentChapter(int index); // out of range: ignored

    // Edits, each one command on the undo stack. Out-of-range indices and
    // texts the format refuses are refused with the reason ("" when done).
    QString setTitle(const QString &title);
    QString insertChapter(int at, lesson::Chapter chapter);
    QString removeChapter(int index);
    QString moveChapter(int from, int to);
    QString setChapterText(int index, const QString &title, const QString &caption);
    QString addStop(int chapter, const lesson::Stop &stop);
    QString removeStop(int chapter, int stop);

    // Writes the lesson to `path` (and takes it as file()): "" or why not.
    QString saveAs(const QString &path);
    QString save() { return saveAs(file_); }

signals:
    void changed();             // any edit, undo or redo
    void currentChapterChanged(int index);
    void fileChanged();

private:
    friend class LessonEdit;
    void replace(const lesson::Lesson &lesson, int current);
    QString push(const QString &what, lesson::Lesson after, int current);

    lesson::Lesson lesson_;
    QString file_;
    int current_ = -1;
    QUndoStack undo_;
};

} // namespace remat::studio
