// Writing a lesson in the studio, as a teacher does it in the real window
// offscreen: Lesson > New lesson, chapters added from the view, their text
// edited in the dialog, stops added at the player's moment, chapters
// reordered and deleted in the chapter list, Save as; the saved file reopens
// as exactly the lesson built (and plays), and every edit undoes and redoes.
#include "app/lesson/lesson_write.h"
#include "app/studio/lesson_caption.h"
#include "app/studio/lesson_chapters_dialog.h"
#include "app/studio/lesson_controller.h"
#include "app/studio/lesson_document.h"
#include "app/studio/lesson_editor.h"
#include "app/studio/lesson_text_dialog.h"
#include "app/studio/main_window.h"
#include "app/studio/player.h"
#include "app/studio/session.h"
#include "tests/common/lesson_checks.h"
#include "tests/studio/studio_test_main.h"

#include <QAction>
#include <QDir>
#include <QListWidget>
#include <QTemporaryDir>
#include <QtTest>

using namespace remat;
using remat::studio::MainWindow;

namespace {

struct Window {
    MainWindow window{remat::testing::freshWindow()};
    studio::Session &session = window.session();
    studio::LessonEditor *editor = window.lessonEditor();
    studio::Player *player = window.player();

    Window() {
        window.resize(1280, 800);
        window.show();
    }
    QAction *action(const char *name) const {
        auto *a = window.findChild<QAction *>(QLatin1String(name));
        if (!a)
            qFatal("no action %s", name);
        return a;
    }
    studio::LessonDocument *document() const { return session.lessonDocument(); }
    bool planned() const {
        if (session.isSimulating())
            return false;
        for (int i = 0; i < session.paneCount(); ++i)
            if (!session.run(i))
                return false;
        return true;
    }
    void panes(const std::vector<studio::PaneConfig> &configs) {
        while (session.paneCount() > 1)
            session.removePane(session.paneCount() - 1);
        session.setPaneConfig(0, configs.front());
        for (std::size_t i = 1; i < configs.size(); ++i)
            session.addPane(configs[i]);
    }
    std::string text() const { return lesson::lessonJson(document()->lesson(), QDir::tempPath().toStdString()); }
};

studio::PaneConfig pane(const char *strategy, std::function<void(StrategyParams &)> set = {}) {
    studio::PaneConfig c;
    c.strategy = strategy;
    if (set)
        set(c.params);
    return c;
}

QString example(const char *name) {
    return qEnvironmentVariable("REMAT_SOURCE_DIR") + "/resources/models/" + name;
}

} // namespace

class TestLessonEditor : public QObject {
    Q_OBJECT
private:
    // Three chapters with stops, built through the editor's actions.
    void buildThreeChapters(Window &w) {
        w.action("newLesson")->trigger();
        QVERIFY(w.document());
        QCOMPARE(w.document()->chapterCount(), 0);
        QCOMPARE(w.document()->setTitle("Checkpointing, by hand"), QString());

        w.session.useChain();
        w.session.setLayers(8);
        w.panes({pane("store-all"), pane("recompute-all")});
        QTRY_VERIFY(w.planned());
        w.action("addChapter")->trigger();
        QCOMPARE(w.document()->chapterCount(), 1);
        // A stop at pane 1's peak, then one at a moment no kind names.
        w.session.setCurrentPane(0);
        w.player->jumpToPeak(w.session.trackOf(0));
        w.action("addStop")->trigger();
        w.player->seekTime(w.player->endTime() * 0.37);
        w.action("addStop")->trigger();
        const lesson::Chapter &first = w.document()->chapter(0);
        QCOMPARE(first.stops.size(), std::size_t{2});
        QVERIFY(first.stops[0].kind == lesson::StopKind::Peak);
        QVERIFY(first.stops[1].kind == lesson::StopKind::Time);
        QCOMPARE(first.stops[1].time, w.player->time());

        QCOMPARE(w.session.openModelFile(example("mlp-uniform.json")), QString());
        w.panes({pane("store-all"), pane("budget", [](StrategyParams &p) { p.budgetBytes = 3LL << 30; })});
        QTRY_VERIFY(w.planned());
        w.action("addChapter")->trigger();
        QCOMPARE(w.document()->chapterCount(), 2);
        studio::LessonTextDialog *text = w.editor->editText();
        QVERIFY(text);
        text->setTexts("A real model", "Sixteen layers of a wide MLP under a 3 GiB budget.");
        QCOMPARE(text->preview()->caption(), QString("Sixteen layers of a wide MLP under a 3 GiB budget."));
        text->accept();
        QCOMPARE(w.document()->chapter(1).title, std::string("A real model"));

        w.session.useChain();
        w.session.setLayers(16);
        w.panes({pane("periodic", [](StrategyParams &p) { p.every = 4; }),
                 pane("checkpoints", [](StrategyParams &p) { p.checkpoints = std::vector<int>{3, 7}; })});
        w.session.setSyncByTime(false);
        QTRY_VERIFY(w.planned());
        w.action("addChapter")->trigger();
        w.session.setCurrentPane(1);
        w.player->seek(w.player->lastPosition());
        w.player->seekTime(0);
        for (int i = 0; i <= w.player->lastPosition(); ++i) { // to pane 2's end of the forward pass
            w.player->seek(i);
            if (w.player->stepOf(w.session.trackOf(1)) >= 0 &&
                w.session.run(1)->timeline->op(w.player->stepOf(w.session.trackOf(1))).node ==
                    w.session.model()->outputNode())
                break;
        }
        w.action("addStop")->trigger();
        QCOMPARE(w.document()->chapterCount(), 3);
        QCOMPARE(w.document()->chapter(2).stops.size(), std::size_t{1});
        QVERIFY(w.document()->chapter(2).stops[0].kind == lesson::StopKind::ForwardEnd);
        QCOMPARE(w.document()->chapter(2).stops[0].pane, 1);
        QVERIFY(!w.document()->chapter(2).syncByCost);
    }

private slots:
    void aLessonBuiltInTheEditorReopensAsBuilt() {
        Window w;
        buildThreeChapters(w);
        if (QTest::currentTestFailed())
            return;
        QTemporaryDir dir;
        const QString path = dir.filePath("mine.json");
        QCOMPARE(w.editor->saveAs(path), QString());
        QVERIFY(!w.document()->isModified());
        const lesson::Lesson built = w.document()->lesson();
        const lesson::Lesson reopened = lesson::loadLessonFile(path.toStdString());
        remat::test::compareLessons(built, reopened);
        // Edited again in the studio: the same lesson.
        QCOMPARE(w.editor->openForEditing(path), QString());
        remat::test::compareLessons(built, w.document()->lesson());
        // And it plays: every stop falls inside its chapter.
        studio::LessonController *player = w.window.lesson();
        QCOMPARE(player->open(path), QString());
        QTRY_VERIFY(!player->stopTimes().empty());
        QCOMPARE(static_cast<int>(player->stopTimes().size()), 3); // peak, the time, the chapter's end
    }

    void everyEditUndoesAndRedoes() {
        Window w;
        buildThreeChapters(w);
        if (QTest::currentTestFailed())
            return;
        studio::LessonChaptersDialog *list = w.editor->showChapters();
        QCOMPARE(list->chapters()->count(), 3);
        std::vector<std::string> states{w.text()};
        list->chapters()->setCurrentRow(2);
        QCOMPARE(w.document()->currentChapter(), 2);
        QVERIFY(w.session.paneCount() == 2 && w.session.layers() == 16); // the chapter is on screen
        list->moveCurrent(-1);
        QCOMPARE(w.document()->chapter(1).model->layers(), 16);
        states.push_back(w.text());
        list->stops()->setCurrentRow(0);
        list->removeCurrentStop();
        QVERIFY(w.document()->chapter(1).stops.empty());
        states.push_back(w.text());
        list->deleteCurrent();
        QCOMPARE(w.document()->chapterCount(), 2);
        states.push_back(w.text());
        // Undo walks back through every state, redo forward again.
        for (auto s = states.rbegin() + 1; s != states.rend(); ++s) {
            w.action("undoLesson")->trigger();
            QCOMPARE(w.text(), *s);
        }
        for (auto s = states.begin() + 1; s != states.end(); ++s) {
            w.action("redoLesson")->trigger();
            QCOMPARE(w.text(), *s);
        }
        // Back to the empty lesson, one edit at a time.
        while (w.document()->undoStack()->canUndo())
            w.action("undoLesson")->trigger();
        QCOMPARE(w.document()->chapterCount(), 0);
        QCOMPARE(w.document()->lesson().title, std::string("My lesson"));
    }

    void refusedEditsChangeNothing() {
        Window w;
        buildThreeChapters(w);
        if (QTest::currentTestFailed())
            return;
        const std::string before = w.text();
        studio::LessonTextDialog *text = w.editor->editText();
        text->setTexts(" ", "A caption.");
        text->accept();
        QVERIFY(text->isVisible());
        QVERIFY2(text->problem().contains("The title: expected a non-empty text"), qPrintable(text->problem()));
        text->setTexts("A title", QString(300, 'x'));
        text->accept();
        QVERIFY2(text->problem().contains("is 300 characters long; at most 240"), qPrintable(text->problem()));
        text->reject();
        // A stop at the chapter's start, and one on a view that is not the chapter.
        w.player->seekTime(0);
        QVERIFY(w.editor->addStopHere().contains("start"));
        w.session.setLayers(5);
        QTRY_VERIFY(w.planned());
        w.player->seekTime(w.player->endTime());
        QVERIFY(w.editor->addStopHere().contains("is not the chapter"));
        // A save into a folder that does not exist writes nothing.
        QTemporaryDir dir;
        QVERIFY(!w.editor->saveAs(dir.filePath("absent/mine.json")).isEmpty());
        QVERIFY(!QFile::exists(dir.filePath("absent/mine.json")));
        QCOMPARE(w.text(), before);
    }
};

int main(int argc, char **argv) {
    TestLessonEditor test;
    return remat::testing::runStudioTest(test, "test_lesson_editor", argc, argv);
}
#include "test_lesson_editor.moc"
