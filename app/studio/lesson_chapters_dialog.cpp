#include "app/studio/lesson_chapters_dialog.h"

#include "app/studio/lesson_document.h"
#include "app/studio/session.h"

#include <QGridLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSignalBlocker>

namespace remat::studio {

namespace {

QString stopText(const lesson::Stop &stop) {
    if (stop.kind == lesson::StopKind::Time)
        return QObject::tr("at time %1 on the clock (pane %2)").arg(stop.time, 0, 'g', 6).arg(stop.pane + 1);
    return QObject::tr("%1 of pane %2").arg(QLatin1String(lesson::stopKindName(stop.kind))).arg(stop.pane + 1);
}

} // namespace

LessonChaptersDialog::LessonChaptersDialog(Session &session, std::function<void()> editText,
                                           std::function<void(int)> show, QWidget *parent)
    : QDialog(parent), session_(session), show_(std::move(show)) {
    setObjectName(QStringLiteral("lessonChaptersDialog"));
    setWindowTitle(tr("Lesson chapters"));
    title_ = new QLineEdit(this);
    title_->setObjectName(QStringLiteral("lessonTitleEdit"));
    chapters_ = new QListWidget(this);
    chapters_->setObjectName(QStringLiteral("chapterList"));
    stops_ = new QListWidget(this);
    stops_->setObjectName(QStringLiteral("stopList"));
    problem_ = new QLabel(this);
    problem_->setTextFormat(Qt::PlainText);
    problem_->setWordWrap(true);
    auto button = [this](const QString &text, const char *name, auto slot) {
        auto *b = new QPushButton(text, this);
        b->setObjectName(QLatin1String(name));
        b->setAutoDefault(false);
        connect(b, &QPushButton::clicked, this, slot);
        return b;
    };
    auto *layout = new QGridLayout(this);
    layout->addWidget(new QLabel(tr("Lesson title"), this), 0, 0);
    layout->addWidget(title_, 0, 1, 1, 4);
    layout->addWidget(chapters_, 1, 0, 1, 5);
    layout->addWidget(button(tr("Up"), "chapterUp", [this] { moveCurrent(-1); }), 2, 0);
    layout->addWidget(button(tr("Down"), "chapterDown", [this] { moveCurrent(1); }), 2, 1);
    layout->addWidget(button(tr("Delete"), "chapterDelete", [this] { deleteCurrent(); }), 2, 2);
    layout->addWidget(button(tr("Edit text\u2026"), "chapterText", [editText] { editText(); }), 2, 3);
    layout->addWidget(new QLabel(tr("Stops of the selected chapter (Lesson > Add a stop here adds one)"), this), 3, 0,
                      1, 5);
    layout->addWidget(stops_, 4, 0, 1, 5);
    layout->addWidget(button(tr("Remove stop"), "stopRemove", [this] { removeCurrentStop(); }), 5, 0);
    layout->addWidget(problem_, 6, 0, 1, 5);
    layout->setColumnStretch(4, 1);

    connect(title_, &QLineEdit::editingFinished, this, [this] {
        if (LessonDocument *d = document())
            report(d->setTitle(title_->text()));
    });
    connect(chapters_, &QListWidget::currentRowChanged, this, [this](int row) {
        LessonDocument *d = document();
        if (!d || row < 0 || row == d->currentChapter())
            return;
        d->setCurrentChapter(row);
        show_(row);
    });
    auto follow = [this] {
        if (LessonDocument *d = document()) {
            connect(d, &LessonDocument::changed, this, &LessonChaptersDialog::refresh, Qt::UniqueConnection);
            connect(d, &LessonDocument::currentChapterChanged, this, &LessonChaptersDialog::refresh,
                    Qt::UniqueConnection);
        }
        refresh();
    };
    connect(&session_, &Session::lessonDocumentChanged, this, follow);
    follow();
    resize(560, 520);
}

LessonDocument *LessonChaptersDialog::document() const {
    return session_.lessonDocument();
}

void LessonChaptersDialog::refresh() {
    const QSignalBlocker blockChapters(chapters_), blockTitle(title_);
    chapters_->clear();
    stops_->clear();
    LessonDocument *d = document();
    setEnabled(d != nullptr);
    if (!d)
        return;
    if (!title_->hasFocus())
        title_->setText(QString::fromStdString(d->lesson().title));
    for (int i = 0; i < d->chapterCount(); ++i) {
        const lesson::Chapter &c = d->chapter(i);
        chapters_->addItem(tr("%1. %2 (%3)%4")
                               .arg(i + 1)
                               .arg(QString::fromStdString(c.title))
                               .arg(c.stops.size() == 1 ? tr("1 stop") : tr("%1 stops").arg(c.stops.size()))
                               .arg(c.exercise ? tr(", an exercise") : QString()));
    }
    chapters_->setCurrentRow(d->currentChapter());
    if (d->currentChapter() >= 0)
        for (const lesson::Stop &stop : d->chapter(d->currentChapter()).stops)
            stops_->addItem(stopText(stop));
}

void LessonChaptersDialog::report(const QString &problem) {
    problem_->setText(problem);
}

void LessonChaptersDialog::moveCurrent(int step) {
    if (LessonDocument *d = document())
        report(d->moveChapter(d->currentChapter(), d->currentChapter() + step));
}

void LessonChaptersDialog::deleteCurrent() {
    if (LessonDocument *d = document())
        report(d->removeChapter(d->currentChapter()));
}

void LessonChaptersDialog::removeCurrentStop() {
    if (LessonDocument *d = document())
        report(d->removeStop(d->currentChapter(), stops_->currentRow()));
}

} // namespace remat::studio
