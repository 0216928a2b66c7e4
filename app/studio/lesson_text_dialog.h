#pragma once
// Lesson > Edit chapter text: the title and caption of the lesson's current
// chapter, previewed as the stage shows them (LessonCaption, the same widget
// at the same size). OK applies them as one undoable edit; text the lesson
// format refuses (empty, too long) is named under the fields and the dialog stays.
#include <QDialog>

class QLabel;
class QLineEdit;
class QPlainTextEdit;

namespace remat::studio {

class LessonCaption;
class LessonDocument;

class LessonTextDialog : public QDialog {
    Q_OBJECT
public:
    LessonTextDialog(LessonDocument &document, int chapter, QWidget *parent);
    void setTexts(const QString &title, const QString &caption);
    LessonCaption *preview() const { return preview_; }
    QString problem() const; // the last refusal, "" when none

public slots:
    void accept() override;

private:
    void updatePreview();

    LessonDocument &document_;
    int chapter_;
    QLineEdit *title_;
    QPlainTextEdit *caption_;
    LessonCaption *preview_;
    QLabel *problem_;
};

} // namespace remat::studio
