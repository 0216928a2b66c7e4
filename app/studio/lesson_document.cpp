#include "app/studio/lesson_document.h"

#include "app/lesson/lesson_write.h"

#include <QFileInfo>
#include <QSaveFile>
#include <QUndoCommand>

#include <algorithm>

namespace remat::studio {

// One edit: the lesson before and after it. Lessons are small (their models
// are shared), so whole copies make undo exact with no edit-specific inverse.
class LessonEdit : public QUndoCommand {
public:
    LessonEdit(LessonDocument &document, const QString &text, lesson::Lesson after, int currentAfter)
        : QUndoCommand(text), document_(document), before_(document.lesson_), after_(std::move(after)),
          currentBefore_(document.current_), currentAfter_(currentAfter) {}
    void undo() override { document_.replace(before_, currentBefore_); }
    void redo() override { document_.replace(after_, currentAfter_); }

private:
    LessonDocument &document_;
    lesson::Lesson before_, after_;
    int currentBefore_, currentAfter_;
};

namespace {

bool inRange(int index, std::size_t size) {
    return index >= 0 && static_cast<std::size_t>(index) < size;
}

QString textProblem(const QString &what, const QString &text, std::size_t maxChars) {
    const std::string problem = lesson::screenTextProblem(text.toStdString(), maxChars);
    return problem.empty() ? QString() : what + QStringLiteral(": ") + QString::fromStdString(problem);
}

} // namespace

LessonDocument::LessonDocument(lesson::Lesson lesson, QObject *parent)
    : QObject(parent), lesson_(std::move(lesson)), file_(QString::fromStdString(lesson_.file)),
      current_(lesson_.chapters.empty() ? -1 : 0) {
    undo_.setClean();
}

void LessonDocument::setCurrentChapter(int index) {
    if (!inRange(index, lesson_.chapters.size()) || index == current_)
        return;
    current_ = index;
    emit currentChapterChanged(index);
}

void LessonDocument::replace(const lesson::Lesson &lesson, int current) {
    lesson_ = lesson;
    const bool moved = current != current_;
    current_ = current;
    emit changed();
    if (moved)
        emit currentChapterChanged(current_);
}

QString LessonDocument::push(const QString &what, lesson::Lesson after, int current) {
    undo_.push(new LessonEdit(*this, what, std::move(after), current)); // redo() applies it
    return {};
}

QString LessonDocument::setTitle(const QString &title) {
    if (const QString problem = textProblem(tr("The lesson's title"), title, lesson::kMaxTitleChars);
        !problem.isEmpty())
        return problem;
    if (title.toStdString() == lesson_.title)
        return {};
    lesson::Lesson after = lesson_;
    after.title = title.toStdString();
    return push(tr("Rename the lesson"), std::move(after), current_);
}

QString LessonDocument::insertChapter(int at, lesson::Chapter chapter) {
    if (at < 0 || at > chapterCount())
        return tr("Cannot insert a chapter at %1: from 1 to %2").arg(at + 1).arg(chapterCount() + 1);
    if (chapterCount() >= lesson::kMaxChapters)
        return tr("A lesson has at most %1 chapters").arg(lesson::kMaxChapters);
    lesson::Lesson after = lesson_;
    after.chapters.insert(after.chapters.begin() + at, std::move(chapter));
    return push(tr("Add chapter %1").arg(at + 1), std::move(after), at);
}

QString LessonDocument::removeChapter(int index) {
    if (!inRange(index, lesson_.chapters.size()))
        return tr("There is no chapter %1").arg(index + 1);
    lesson::Lesson after = lesson_;
    after.chapters.erase(after.chapters.begin() + index);
    const int current = after.chapters.empty() ? -1 : std::min(index, static_cast<int>(after.chapters.size()) - 1);
    return push(tr("Delete chapter %1").arg(index + 1), std::move(after), current);
}

QString LessonDocument::moveChapter(int from, int to) {
    if (!inRange(from, lesson_.chapters.size()) || !inRange(to, lesson_.chapters.size()))
        return tr("Chapters are 1 to %1").arg(chapterCount());
    if (from == to)
        return {};
    lesson::Lesson after = lesson_;
    lesson::Chapter moved = std::move(after.chapters[static_cast<std::size_t>(from)]);
    after.chapters.erase(after.chapters.begin() + from);
    after.chapters.insert(after.chapters.begin() + to, std::move(moved));
    return push(tr("Move chapter %1 to %2").arg(from + 1).arg(to + 1), std::move(after), to);
}

QString LessonDocument::setChapterText(int index, const QString &title, const QString &caption) {
    if (!inRange(index, lesson_.chapters.size()))
        return tr("There is no chapter %1").arg(index + 1);
    for (const QString &problem : {textProblem(tr("The title"), title, lesson::kMaxTitleChars),
                                   textProblem(tr("The caption"), caption, lesson::kMaxCaptionChars)})
        if (!problem.isEmpty())
            return problem;
    lesson::Lesson after = lesson_;
    lesson::Chapter &chapter = after.chapters[static_cast<std::size_t>(index)];
    chapter.title = title.toStdString();
    chapter.caption = caption.toStdString();
    return push(tr("Edit the text of chapter %1").arg(index + 1), std::move(after), index);
}

QString LessonDocument::addStop(int chapter, const lesson::Stop &stop) {
    if (!inRange(chapter, lesson_.chapters.size()))
        return tr("There is no chapter %1").arg(chapter + 1);
    const lesson::Chapter &target = this->chapter(chapter);
    if (target.stops.size() >= static_cast<std::size_t>(lesson::kMaxStops))
        return tr("A chapter has at most %1 stops").arg(lesson::kMaxStops);
    if (!inRange(stop.pane, target.panes.size()))
        return tr("Chapter %1 has panes 1 to %2, not %3").arg(chapter + 1).arg(target.panes.size()).arg(stop.pane + 1);
    lesson::Lesson after = lesson_;
    after.chapters[static_cast<std::size_t>(chapter)].stops.push_back(stop);
    return push(tr("Add a stop to chapter %1").arg(chapter + 1), std::move(after), chapter);
}

QString LessonDocument::removeStop(int chapter, int stop) {
    if (!inRange(chapter, lesson_.chapters.size()) || !inRange(stop, this->chapter(chapter).stops.size()))
        return tr("There is no stop %1 in chapter %2").arg(stop + 1).arg(chapter + 1);
    lesson::Lesson after = lesson_;
    auto &stops = after.chapters[static_cast<std::size_t>(chapter)].stops;
    stops.erase(stops.begin() + stop);
    return push(tr("Remove stop %1 of chapter %2").arg(stop + 1).arg(chapter + 1), std::move(after), chapter);
}

QString LessonDocument::saveAs(const QString &path) {
    if (path.isEmpty())
        return tr("The lesson has no file yet: use Save lesson as\u2026");
    if (lesson_.chapters.empty())
        return tr("A lesson needs at least one chapter: add one from the current view first");
    const QFileInfo info(path);
    const std::string text = lesson::lessonJson(lesson_, info.absolutePath().toStdString());
    QSaveFile out(path);
    if (!out.open(QIODevice::WriteOnly) || out.write(text.data(), static_cast<qint64>(text.size())) < 0 ||
        !out.commit())
        return tr("Cannot write the lesson to %1: %2").arg(path, out.errorString());
    file_ = info.absoluteFilePath();
    lesson_.file = file_.toStdString();
    undo_.setClean();
    emit fileChanged();
    return {};
}

} // namespace remat::studio
