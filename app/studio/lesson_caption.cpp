#include "app/studio/lesson_caption.h"

#include <QEvent>
#include <QGridLayout>
#include <QLabel>

namespace remat::studio {

namespace {

QFont scaledFont(QFont font, double factor, bool bold) {
    if (font.pointSizeF() > 0)
        font.setPointSizeF(font.pointSizeF() * factor);
    else
        font.setPixelSize(static_cast<int>(font.pixelSize() * factor + 0.5));
    font.setBold(bold);
    return font;
}

} // namespace

LessonCaption::LessonCaption(QWidget *parent) : QWidget(parent) {
    setObjectName(QStringLiteral("lessonCaption"));
    title_ = new QLabel(this);
    title_->setObjectName(QStringLiteral("lessonTitle"));
    title_->setTextFormat(Qt::PlainText);
    caption_ = new QLabel(this);
    caption_->setObjectName(QStringLiteral("lessonText"));
    caption_->setTextFormat(Qt::PlainText);
    caption_->setWordWrap(true);
    progress_ = new QLabel(this);
    progress_->setObjectName(QStringLiteral("lessonProgress"));
    progress_->setTextFormat(Qt::PlainText);
    progress_->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    progress_->setForegroundRole(QPalette::PlaceholderText);
    auto *layout = new QGridLayout(this);
    layout->setContentsMargins(4, 2, 4, 4);
    layout->setHorizontalSpacing(12);
    layout->setVerticalSpacing(2);
    layout->addWidget(title_, 0, 0);
    layout->addWidget(progress_, 0, 1);
    layout->addWidget(caption_, 1, 0, 1, 2);
    layout->setColumnStretch(0, 1);
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
    applyFonts();
}

void LessonCaption::setChapter(int index, int count, const QString &title, const QString &caption) {
    title_->setText(tr("%1 / %2  %3").arg(index + 1).arg(count).arg(title));
    caption_->setText(caption);
}

void LessonCaption::setProgress(int passed, int total, const QString &hint) {
    QString dots;
    for (int i = 0; i < total; ++i)
        dots += i < passed ? QStringLiteral("\u25CF") : QStringLiteral("\u25CB");
    progress_->setText(hint.isEmpty() ? dots : hint + QStringLiteral("   ") + dots);
}

QString LessonCaption::title() const {
    return title_->text();
}

QString LessonCaption::caption() const {
    return caption_->text();
}

QString LessonCaption::progress() const {
    return progress_->text();
}

void LessonCaption::changeEvent(QEvent *event) {
    // The window's text grows in presentation mode: the caption grows with it.
    if (event->type() == QEvent::FontChange)
        applyFonts();
    QWidget::changeEvent(event);
}

void LessonCaption::applyFonts() {
    title_->setFont(scaledFont(font(), kTitleScale, true));
    caption_->setFont(scaledFont(font(), kCaptionScale, false));
}

} // namespace remat::studio
