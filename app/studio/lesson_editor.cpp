#include "app/studio/lesson_editor.h"

#include "app/studio/lesson_capture.h"
#include "app/studio/lesson_chapters_dialog.h"
#include "app/studio/lesson_controller.h"
#include "app/studio/lesson_document.h"
#include "app/studio/lesson_text_dialog.h"
#include "app/studio/session.h"

#include <QAction>
#include <QFileDialog>
#include <QMenu>
#include <QMessageBox>
#include <QUndoGroup>

namespace remat::studio {

LessonEditor::LessonEditor(Session &session, QWidget *window, QMenu *menu, QAction *stackByKind)
    : QObject(window), session_(session), window_(window), stackByKind_(stackByKind), undo_(new QUndoGroup(this)) {
    menu->addSeparator();
    auto action = [this, menu](const QString &text, const char *name, auto slot, bool needsLesson = true) {
        QAction *a = menu->addAction(text, this, slot);
        a->setObjectName(QLatin1String(name));
        if (needsLesson)
            needLesson_ << a;
        return a;
    };
    action(tr("&New lesson"), "newLesson", [this] { newLesson(tr("My lesson")); }, false);
    action(tr("Edit a lesson &file\u2026"), "editLessonFile", [this] {
        const QString path = QFileDialog::getOpenFileName(window_, tr("Edit a lesson"),
                                                          LessonController::lessonsDirectory(),
                                                          tr("Lessons (*.json);;All files (*)"));
        if (!path.isEmpty())
            openForEditing(path);
    }, false);
    action(tr("&Add chapter from the current view"), "addChapter", [this] { addChapterFromView(); });
    action(tr("Edit chapter &text\u2026"), "editChapterText", [this] { editText(); });
    action(tr("Add a sto&p here (the player's moment)"), "addStop", [this] { addStopHere(); });
    action(tr("&Chapters\u2026"), "lessonChapters", [this] { showChapters(); });
    QAction *saveAction = action(tr("&Save lesson"), "saveLesson", [this] { save(); });
    saveAction->setShortcut(QKeySequence::Save);
    action(tr("Sa&ve lesson as\u2026"), "saveLessonAs", [this] {
        const QString path = QFileDialog::getSaveFileName(window_, tr("Save the lesson"), QString(),
                                                          tr("Lessons (*.json)"));
        if (!path.isEmpty())
            saveAs(path);
    });
    QAction *undo = undo_->createUndoAction(this, tr("&Undo"));
    undo->setObjectName(QStringLiteral("undoLesson"));
    undo->setShortcut(QKeySequence::Undo);
    QAction *redo = undo_->createRedoAction(this, tr("&Redo"));
    redo->setObjectName(QStringLiteral("redoLesson"));
    redo->setShortcut(QKeySequence::Redo);
    menu->addAction(undo);
    menu->addAction(redo);
    connect(&session_, &Session::lessonDocumentChanged, this, [this] {
        if (LessonDocument *d = session_.lessonDocument()) {
            undo_->addStack(d->undoStack());
            undo_->setActiveStack(d->undoStack());
        }
        updateActions();
    });
    updateActions();
}

void LessonEditor::updateActions() {
    for (QAction *a : std::as_const(needLesson_))
        a->setEnabled(session_.lessonDocument() != nullptr);
}

QString LessonEditor::said(const QString &problem) {
    if (!problem.isEmpty())
        session_.say(problem);
    return problem;
}

QString LessonEditor::newLesson(const QString &title) {
    const LessonDocument *old = session_.lessonDocument();
    if (old && old->isModified() &&
        QMessageBox::question(window_, tr("New lesson"),
                              tr("The lesson \u201C%1\u201D has unsaved changes. Leave them?")
                                  .arg(QString::fromStdString(old->lesson().title))) != QMessageBox::Yes)
        return tr("The lesson being written stays");
    session_.newLessonDocument(title);
    session_.say(tr("New lesson: set up a view, then Lesson > Add chapter from the current view."));
    return {};
}

QString LessonEditor::openForEditing(const QString &path) {
    if (const QString error = session_.openLessonDocument(path); !error.isEmpty()) {
        auto *box = new QMessageBox(QMessageBox::Warning, tr("Cannot edit the lesson"), error, QMessageBox::Ok,
                                    window_);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->setTextFormat(Qt::PlainText);
        box->open();
        return error;
    }
    if (session_.lessonDocument()->chapterCount() > 0)
        showChapter(0);
    return {};
}

QString LessonEditor::addChapterFromView() {
    LessonDocument *d = session_.lessonDocument();
    if (!d)
        return said(tr("No lesson is being written: Lesson > New lesson first"));
    lesson::Chapter chapter;
    if (const QString error = chapterFromView(session_, stackByKind_ && stackByKind_->isChecked(), &chapter);
        !error.isEmpty())
        return said(error);
    const QString error = d->insertChapter(d->currentChapter() + 1, std::move(chapter));
    if (error.isEmpty())
        session_.say(tr("Chapter %1 added: Lesson > Edit chapter text to name it, Add a stop here to pause it.")
                         .arg(d->currentChapter() + 1));
    return said(error);
}

QString LessonEditor::addStopHere() {
    LessonDocument *d = session_.lessonDocument();
    if (!d || d->currentChapter() < 0)
        return said(tr("No chapter to add a stop to: add one from the current view first"));
    lesson::Stop stop;
    if (const QString error = stopAtPlayerMoment(session_, d->chapter(d->currentChapter()), &stop); !error.isEmpty())
        return said(error);
    const QString error = d->addStop(d->currentChapter(), stop);
    if (error.isEmpty())
        session_.say(stop.kind == lesson::StopKind::Time
                         ? tr("Stop added at time %1 of chapter %2").arg(stop.time, 0, 'g', 6).arg(d->currentChapter() + 1)
                         : tr("Stop added at the %1 of pane %2")
                               .arg(QLatin1String(lesson::stopKindName(stop.kind)))
                               .arg(stop.pane + 1));
    return said(error);
}

QString LessonEditor::save() {
    LessonDocument *d = session_.lessonDocument();
    if (!d)
        return said(tr("No lesson is being written"));
    if (d->file().isEmpty()) {
        const QString path =
            QFileDialog::getSaveFileName(window_, tr("Save the lesson"), QString(), tr("Lessons (*.json)"));
        return path.isEmpty() ? QString() : saveAs(path);
    }
    return saveAs(d->file());
}

QString LessonEditor::saveAs(const QString &path) {
    LessonDocument *d = session_.lessonDocument();
    if (!d)
        return said(tr("No lesson is being written"));
    const QString error = d->saveAs(path);
    if (error.isEmpty())
        session_.say(tr("Lesson saved to %1").arg(path));
    return said(error);
}

LessonTextDialog *LessonEditor::editText() {
    LessonDocument *d = session_.lessonDocument();
    if (!d || d->currentChapter() < 0) {
        said(tr("No chapter to edit: add one from the current view first"));
        return nullptr;
    }
    auto *dialog = new LessonTextDialog(*d, d->currentChapter(), window_);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->open();
    return dialog;
}

LessonChaptersDialog *LessonEditor::showChapters() {
    if (!chapters_) {
        chapters_ = new LessonChaptersDialog(
            session_, [this] { editText(); }, [this](int index) { showChapter(index); }, window_);
        chapters_->setAttribute(Qt::WA_DeleteOnClose);
    }
    chapters_->show();
    chapters_->raise();
    return chapters_;
}

void LessonEditor::showChapter(int index) {
    LessonDocument *d = session_.lessonDocument();
    if (!d || index < 0 || index >= d->chapterCount())
        return;
    d->setCurrentChapter(index);
    showChapterInSession(session_, d->chapter(index));
    if (stackByKind_)
        stackByKind_->setChecked(d->chapter(index).stackByKind);
}

} // namespace remat::studio
