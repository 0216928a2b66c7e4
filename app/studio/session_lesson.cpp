// The session's lesson being written (session.h, lesson_document.h).
#include "app/studio/lesson_document.h"
#include "app/studio/session.h"

namespace remat::studio {

LessonDocument *Session::newLessonDocument(const QString &title) {
    lesson::Lesson lesson;
    lesson.title = title.toStdString();
    delete lessonDocument_;
    lessonDocument_ = new LessonDocument(std::move(lesson), this);
    emit lessonDocumentChanged();
    return lessonDocument_;
}

QString Session::openLessonDocument(const QString &path) {
    lesson::Lesson lesson;
    try {
        lesson = lesson::loadLessonFile(path.toStdString());
    } catch (const std::exception &e) {
        return QString::fromUtf8(e.what());
    }
    delete lessonDocument_;
    lessonDocument_ = new LessonDocument(std::move(lesson), this);
    emit lessonDocumentChanged();
    return {};
}

void Session::closeLessonDocument() {
    if (!lessonDocument_)
        return;
    delete lessonDocument_;
    lessonDocument_ = nullptr;
    emit lessonDocumentChanged();
}

} // namespace remat::studio
