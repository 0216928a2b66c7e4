#include "app/studio/lesson_text_dialog.h"

#include "app/studio/lesson_caption.h"
#include "app/studio/lesson_document.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QVBoxLayout>

namespace remat::studio {

LessonTextDialog::LessonTextDialog(LessonDocument &document, int chapter, QWidget *parent)
    : QDialog(parent), document_(document), chapter_(chapter) {
    setObjectName(QStringLiteral("lessonTextDialog"));
    setWindowTitle(tr("Chapter %1: title and caption").arg(chapter + 1));
    title_ = new QLineEdit(this);
    title_->setObjectName(QStringLiteral("chapterTitle"));
    caption_ = new QPlainTextEdit(this);
    caption_->setObjectName(QStringLiteral("chapterCaption"));
    caption_->setTabChangesFocus(true);
    caption_->setMaximumHeight(fontMetrics().lineSpacing() * 5);
    preview_ = new LessonCaption(this);
    preview_->setAutoFillBackground(true);
    problem_ = new QLabel(this);
    problem_->setObjectName(QStringLiteral("textProblem"));
    problem_->setTextFormat(Qt::PlainText);
    problem_->setWordWrap(true);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    auto *form = new QFormLayout;
    form->addRow(tr("Title (one line, at most %1 characters)").arg(lesson::kMaxTitleChars), title_);
    form->addRow(tr("Caption (one or two sentences, at most %1)").arg(lesson::kMaxCaptionChars), caption_);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(new QLabel(tr("As the stage shows it:"), this));
    layout->addWidget(preview_);
    layout->addWidget(problem_);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &LessonTextDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(title_, &QLineEdit::textChanged, this, &LessonTextDialog::updatePreview);
    connect(caption_, &QPlainTextEdit::textChanged, this, &LessonTextDialog::updatePreview);
    const lesson::Chapter &c = document.chapter(chapter);
    setTexts(QString::fromStdString(c.title), QString::fromStdString(c.caption));
    resize(760, sizeHint().height());
}

void LessonTextDialog::setTexts(const QString &title, const QString &caption) {
    title_->setText(title);
    caption_->setPlainText(caption);
    updatePreview();
}

QString LessonTextDialog::problem() const {
    return problem_->text();
}

void LessonTextDialog::updatePreview() {
    preview_->setChapter(chapter_, document_.chapterCount(), title_->text(), caption_->toPlainText());
    problem_->clear();
}

void LessonTextDialog::accept() {
    // Line breaks typed in the caption are spaces on stage, where it wraps by itself.
    const QString caption = caption_->toPlainText().simplified();
    if (const QString problem = document_.setChapterText(chapter_, title_->text().simplified(), caption);
        !problem.isEmpty()) {
        problem_->setText(problem);
        return;
    }
    QDialog::accept();
}

} // namespace remat::studio
