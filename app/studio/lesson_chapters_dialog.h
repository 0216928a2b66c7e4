#pragma once
// Lesson > Chapters: the lesson being written as a list. Its title; its
// chapters in order, to reorder (Up, Down), delete or retitle (Edit text);
// selecting one shows it in the session, where Add a stop here adds to it;
// its stops, to remove. Every change goes through the LessonDocument, so
// each one is undoable. Non-modal: the teacher plays the view beside it.
#include <QDialog>

#include <functional>

class QLabel;
class QLineEdit;
class QListWidget;

namespace remat::studio {

class LessonDocument;
class Session;

class LessonChaptersDialog : public QDialog {
    Q_OBJECT
public:
    // `editText` opens the text dialog of the current chapter; `show` puts a chapter on screen.
    LessonChaptersDialog(Session &session, std::function<void()> editText, std::function<void(int)> show,
                         QWidget *parent);
    QListWidget *chapters() const { return chapters_; }
    QListWidget *stops() const { return stops_; }

    void moveCurrent(int step); // -1 up, +1 down
    void deleteCurrent();
    void removeCurrentStop();

private:
    LessonDocument *document() const;
    void refresh();
    void report(const QString &problem);

    Session &session_;
    std::function<void(int)> show_;
    QLineEdit *title_;
    QListWidget *chapters_;
    QListWidget *stops_;
    QLabel *problem_;
};

} // namespace remat::studio
