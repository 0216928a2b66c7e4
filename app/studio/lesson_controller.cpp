#include "app/studio/lesson_controller.h"

#include "app/export/lesson_export.h"
#include "app/studio/exercise_panel.h"
#include "app/studio/frontier_view.h"
#include "app/studio/lesson_caption.h"
#include "app/studio/lesson_capture.h"
#include "app/studio/lesson_gif_dialog.h"
#include "app/studio/player.h"
#include "app/studio/player_keys.h"
#include "app/studio/resource_files.h"
#include "app/studio/screen_blank.h"
#include "app/studio/session.h"

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QVBoxLayout>

#include <algorithm>

namespace remat::studio {

namespace {

using exporting::kSameMoment;

QString qs(const std::string &s) {
    return QString::fromStdString(s);
}

} // namespace

QString LessonController::lessonsDirectory() {
    return resourceDirectory(QStringLiteral("lessons"));
}

LessonController::LessonController(Session &session, QWidget *window, QMenu *fileMenu)
    : QObject(window), session_(session), window_(window) {
    caption_ = new LessonCaption(window);
    caption_->hide();
    exercise_ = new ExercisePanel(session, window);
    curveHolder_ = new QWidget(window);
    curveHolder_->setObjectName(QStringLiteral("lessonCurve"));
    auto *holderLayout = new QVBoxLayout(curveHolder_);
    holderLayout->setContentsMargins(0, 0, 0, 0);
    curveHolder_->hide();
    blank_ = new ScreenBlank(window);

    QAction *open = fileMenu->addAction(tr("Open &lesson\u2026"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(window_, tr("Open a lesson"), lessonsDirectory(),
                                                          tr("Lessons (*.json);;All files (*)"));
        if (!path.isEmpty())
            openWithDialog(path);
    });
    open->setObjectName(QStringLiteral("openLesson"));
    open->setShortcut(QKeySequence(tr("Ctrl+L")));
    QMenu *shipped = fileMenu->addMenu(tr("Lesso&ns"));
    shipped->setObjectName(QStringLiteral("lessonsMenu"));
    addFileEntries(
        shipped, lessonsDirectory(),
        [](const QString &path) { return lesson::loadLessonFile(path.toStdString()).title; },
        [this](const QString &path) { openWithDialog(path); }, tr("(no lessons found)"));
    closeAction_ = fileMenu->addAction(tr("Close lesson"), this, &LessonController::close);
    closeAction_->setObjectName(QStringLiteral("closeLesson"));
    closeAction_->setEnabled(false);
    exportAction_ = fileMenu->addAction(tr("Export lesson as GIFs…"), this, [this] { exportGifs(); });
    exportAction_->setObjectName(QStringLiteral("exportLessonGifs"));
    exportAction_->setEnabled(false);

    Player *player = &session.player();
    connect(player, &Player::positionChanged, this, &LessonController::onPosition);
    connect(player, &Player::rangeChanged, this, &LessonController::refreshStops);
    connect(player, &Player::playingChanged, this, &LessonController::updateCaption);
}

void LessonController::takeKeys(const Controls &controls) {
    controls_ = controls;
    // A menu of their own (the window puts it before Help): Help > Keyboard shortcuts lists them from there.
    auto *menu = new QMenu(tr("L&esson"), window_);
    menu->setObjectName(QStringLiteral("lessonMenu"));
    menu_ = menu;
    auto action = [this, menu](const QString &text, const QString &name, QList<QKeySequence> shortcuts, auto slot) {
        QAction *a = menu->addAction(text, this, slot);
        a->setObjectName(name);
        a->setShortcuts(shortcuts);
        a->setShortcutContext(Qt::WindowShortcut);
        window_->addAction(a);
        return a;
    };
    navigation_ << action(tr("Next stop or chapter (also Space, \u2192)"), QStringLiteral("lessonNext"),
                          {QKeySequence(Qt::Key_PageDown), QKeySequence(Qt::Key_Space), QKeySequence(Qt::Key_Right)},
                          &LessonController::next)
                << action(tr("Previous stop or chapter (also \u2190)"), QStringLiteral("lessonPrevious"),
                          {QKeySequence(Qt::Key_PageUp), QKeySequence(Qt::Key_Left)}, &LessonController::previous)
                << action(tr("First chapter"), QStringLiteral("lessonFirst"), {QKeySequence(Qt::Key_Home)},
                          &LessonController::firstChapter)
                << action(tr("Last chapter"), QStringLiteral("lessonLast"), {QKeySequence(Qt::Key_End)},
                          &LessonController::lastChapter);
    menu->addSeparator();
    blankAction_ = action(tr("Blank the screen (also .)"), QStringLiteral("blankScreen"),
                          {QKeySequence(Qt::Key_B), QKeySequence(Qt::Key_Period)}, &LessonController::toggleBlank);
    escapeAction_ = action(tr("Leave presentation mode"), QStringLiteral("leavePresentation"),
                           {QKeySequence(Qt::Key_Escape)}, &LessonController::leavePresentation);
    menu->addSeparator();
    checkAction_ = action(tr("Check the exercise's answer"), QStringLiteral("checkExercise"),
                          {QKeySequence(Qt::Key_Return), QKeySequence(Qt::Key_Enter)},
                          [this] { exercise_->check(); });
    QList<QAction *> all = navigation_;
    all << blankAction_ << escapeAction_ << checkAction_;
    controls.keys->addActions(all);
    // The player's actions on the same keys rest while a lesson is open.
    for (QAction *p : controls.playerActions)
        for (const QAction *mine : std::as_const(navigation_))
            for (const QKeySequence &key : mine->shortcuts())
                if (p->shortcuts().contains(key) && !restingPlayerActions_.contains(p))
                    restingPlayerActions_ << p;
    for (QAction *mode : {controls.presentation, controls.fullScreen})
        connect(mode, &QAction::toggled, this, &LessonController::updateActions);
    updateActions();
}

QString LessonController::open(const QString &path, int chapter) {
    std::unique_ptr<const lesson::Lesson> loaded;
    try {
        loaded = std::make_unique<const lesson::Lesson>(lesson::loadLessonFile(path.toStdString()));
    } catch (const std::exception &e) {
        return QString::fromUtf8(e.what());
    }
    lesson_ = std::move(loaded);
    file_ = QFileInfo(path).absoluteFilePath();
    caption_->show();
    updateActions();
    say(tr("Lesson \u201C%1\u201D, %2 chapters: Page Down plays to the next stop, then the next chapter; Page Up "
           "goes back; B blanks the screen.")
            .arg(qs(lesson_->title))
            .arg(chapterCount()));
    showChapter(std::clamp(chapter, 0, chapterCount() - 1));
    return {};
}

bool LessonController::openWithDialog(const QString &path) {
    const QString error = open(path);
    if (!error.isEmpty()) {
        // Window-modal and non-blocking, like the model's: tests can read it.
        auto *box =
            new QMessageBox(QMessageBox::Warning, tr("Cannot open the lesson"), error, QMessageBox::Ok, window_);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->setTextFormat(Qt::PlainText);
        box->open();
    }
    return error.isEmpty();
}

void LessonController::close() {
    if (!lesson_)
        return;
    lesson_.reset();
    file_.clear();
    stopTimes_.clear();
    caption_->hide();
    exercise_->setExercise(std::nullopt, nullptr);
    showStage(false);
    blank_->setBlank(false);
    updateActions();
    say(tr("Lesson closed; the panes stay as its last chapter left them."));
}

bool LessonController::isCurve() const {
    return lesson_ && current().view == lesson::ChapterView::TradeOffCurve;
}

FrontierPanel *LessonController::curve() const {
    return curve_.data();
}

bool LessonController::isBlank() const {
    return blank_->isBlank();
}

int LessonController::stopsPassed() const {
    const double now = session_.player().time();
    return static_cast<int>(
        std::count_if(stopTimes_.begin(), stopTimes_.end(), [now](double t) { return t <= now + kSameMoment; }));
}

void LessonController::showChapter(int index, bool atEnd) {
    if (!lesson_ || index < 0 || index >= chapterCount())
        return;
    Player *player = &session_.player();
    player->pause();
    chapter_ = index;
    const lesson::Chapter &chapter = current();
    stopTimes_.clear();
    lastTime_ = 0;
    pendingEnd_ = atEnd;
    caption_->setChapter(index, chapterCount(), qs(chapter.title), qs(chapter.caption));
    showStage(chapter.view == lesson::ChapterView::TradeOffCurve);

    // The chapter's scenario; its panes are added once the model is in place,
    // so each is planned once. A curve chapter keeps one pane behind the
    // curve, so the window stays whole when the lesson is closed there.
    loading_ = true;
    showChapterInSession(session_, chapter);
    if (controls_.stackByKind)
        controls_.stackByKind->setChecked(chapter.stackByKind);
    loading_ = false;
    exercise_->setExercise(chapter.exercise, chapter.model);
    updateActions();
    refreshStops();
    emit chapterShown(index);
}

void LessonController::showStage(bool curve) {
    delete curve_;
    if (curve) {
        curve_ = new FrontierPanel(current().model, curveHolder_);
        curveHolder_->layout()->addWidget(curve_);
        connect(curve_, &FrontierPanel::computed, this, &LessonController::updateCaption);
    }
    curveHolder_->setVisible(curve);
    emit stageChanged(curve);
}

void LessonController::refreshStops() {
    if (!lesson_ || loading_ || isCurve())
        return;
    const lesson::Chapter &chapter = current();
    stopTimes_.clear();
    if (session_.paneCount() != static_cast<int>(chapter.panes.size()))
        return;
    for (int i = 0; i < session_.paneCount(); ++i)
        if (!session_.run(i))
            return; // still planning (or failed: the pane says why)
    Player *player = &session_.player();
    std::vector<const Timeline *> timelines;
    for (int i = 0; i < session_.paneCount(); ++i)
        timelines.push_back(session_.run(i)->timeline.get());
    QStringList never;
    stopTimes_ = exporting::chapterStopTimes(chapter, timelines, player->axis(), &never);
    if (stopTimes_.empty() || player->endTime() - stopTimes_.back() > kSameMoment)
        stopTimes_.push_back(player->endTime()); // the chapter's end is its last stop
    // The chapter plays at the pace its author asked for, whatever the model's cost unit.
    session_.setSpeed(std::max(0.5, player->endTime() / chapter.seconds));
    if (!never.isEmpty())
        say(tr("Stops that never happen in this chapter are skipped: %1").arg(never.join(QStringLiteral(", "))));
    if (pendingEnd_) {
        pendingEnd_ = false;
        holdAt(player->endTime());
    }
    updateCaption();
}

void LessonController::holdAt(double time) {
    Player *player = &session_.player();
    holding_ = true; // our own pause and seek are no news to onPosition
    player->pause();
    player->seekTime(time);
    holding_ = false;
    lastTime_ = player->time();
    updateCaption();
}

void LessonController::onPosition() {
    Player *player = &session_.player();
    const double now = player->time();
    if (lesson_ && !holding_ && player->isPlaying())
        for (const double stop : stopTimes_)
            if (stop > lastTime_ + kSameMoment && stop <= now + kSameMoment) {
                holdAt(stop); // playback pauses by itself here (back to the stop if a frame went past it)
                return;
            }
    lastTime_ = player->time();
    updateCaption();
}

void LessonController::next() {
    if (!lesson_)
        return;
    if (isBlank()) {
        blank_->setBlank(false);
        return;
    }
    Player *player = &session_.player();
    const bool atChapterEnd =
        isCurve() || (!stopTimes_.empty() && stopsPassed() >= static_cast<int>(stopTimes_.size()));
    if (!isCurve() && stopTimes_.empty() && session_.isSimulating()) {
        say(tr("Still planning this chapter\u2026"));
        return;
    }
    if (atChapterEnd || stopTimes_.empty()) {
        if (chapter_ + 1 < chapterCount())
            showChapter(chapter_ + 1);
        else
            say(tr("The end of the lesson. Page Up goes back, Home to the first chapter."));
        return;
    }
    const double now = player->time();
    const auto upcoming = std::upper_bound(stopTimes_.begin(), stopTimes_.end(), now + kSameMoment);
    if (player->isPlaying()) {
        holdAt(*upcoming); // already on the way: be there now
        return;
    }
    lastTime_ = now;
    player->play();
}

void LessonController::previous() {
    if (!lesson_)
        return;
    if (isBlank()) {
        blank_->setBlank(false);
        return;
    }
    const double now = session_.player().time();
    if (!isCurve() && now > kSameMoment) {
        double target = 0; // the chapter's start, or the last stop before now
        for (const double stop : stopTimes_)
            if (stop < now - kSameMoment)
                target = stop;
        holdAt(target);
        return;
    }
    session_.player().pause();
    if (chapter_ > 0)
        showChapter(chapter_ - 1, true);
    else
        say(tr("The start of the lesson."));
}

void LessonController::firstChapter() {
    blank_->setBlank(false);
    showChapter(0);
}

void LessonController::lastChapter() {
    blank_->setBlank(false);
    showChapter(chapterCount() - 1);
}

void LessonController::toggleBlank() {
    blank_->setBlank(!isBlank());
    if (isBlank())
        session_.player().pause();
    updateActions();
}

void LessonController::leavePresentation() {
    blank_->setBlank(false);
    if (controls_.presentation && controls_.presentation->isChecked())
        controls_.presentation->trigger();
    if (window_->isFullScreen() && controls_.fullScreen) // as a slide show ends: the window as it was
        controls_.fullScreen->trigger();
    updateActions();
}

void LessonController::updateCaption() {
    if (!lesson_)
        return;
    if (isCurve()) {
        caption_->setProgress(0, 0, chapter_ + 1 < chapterCount() ? tr("Page Down: next chapter") : QString());
        return;
    }
    const int passed = stopsPassed();
    const int total = static_cast<int>(stopTimes_.size());
    QString hint;
    if (total > 0 && passed >= total && !session_.player().isPlaying())
        hint = chapter_ + 1 < chapterCount() ? tr("Page Down: next chapter") : tr("the end");
    caption_->setProgress(passed, total, hint);
}

void LessonController::updateActions() {
    if (!blankAction_)
        return;
    const bool open = isOpen();
    for (QAction *a : std::as_const(navigation_))
        a->setEnabled(open);
    for (QAction *a : std::as_const(restingPlayerActions_))
        a->setEnabled(!open);
    blankAction_->setEnabled(open || presenting() || isBlank());
    escapeAction_->setEnabled(presenting() || isBlank() || window_->isFullScreen());
    closeAction_->setEnabled(open);
    if (checkAction_)
        checkAction_->setEnabled(open && exercise_->hasExercise());
    if (exportAction_)
        exportAction_->setEnabled(open);
}

bool LessonController::presenting() const {
    return controls_.presentation && controls_.presentation->isChecked();
}

LessonGifDialog *LessonController::exportGifs() {
    if (!lesson_)
        return nullptr;
    auto *dialog = new LessonGifDialog(session_, *lesson_, window_);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setDirectory(QDir::home().filePath(QFileInfo(file_).completeBaseName() + QStringLiteral("-gifs")));
    dialog->open();
    return dialog;
}

void LessonController::say(const QString &message) {
    session_.say(message);
}

} // namespace remat::studio
