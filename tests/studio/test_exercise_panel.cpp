// An exercise as a student solves it in the real window offscreen: clicks on
// pane 1's forward nodes (the session's checkpoint toggle) make the answer,
// Enter checks it, the verdict on screen is the core's, over the budget the
// player stands at the answer's peak, and Show the best plan adds the best set.
#include "app/studio/exercise_panel.h"
#include "app/studio/lesson_controller.h"
#include "app/studio/main_window.h"
#include "app/studio/player.h"
#include "app/studio/session.h"
#include "tests/studio/studio_test_main.h"

#include <QtTest>
#include <numeric>

using namespace remat;
using remat::studio::MainWindow;

namespace {

QString exercises() {
    return qEnvironmentVariable("REMAT_SOURCE_DIR") + "/resources/lessons/checkpoint-exercises.json";
}

struct Window {
    MainWindow window{remat::testing::freshWindow()};
    studio::LessonController *lesson = window.lesson();
    studio::ExercisePanel *panel = lesson->exercise();
    studio::Session &session = window.session();

    Window() {
        window.resize(1280, 800);
        window.show();
        QApplication::setActiveWindow(&window);
    }
    bool planned() const { return !session.isSimulating() && session.run(0); }
    void keep(const std::vector<int> &nodes) {
        for (int node : nodes)
            session.toggleCheckpoint(0, session.model()->forwardNode(node));
    }
    QString expected(const std::vector<int> &kept) const {
        const lesson::Chapter &chapter = lesson->lesson()->chapters[static_cast<std::size_t>(lesson->chapter())];
        return QString::fromStdString(verdictText(*chapter.model, chapter.exercise->budget,
                                                  gradeExercise(*chapter.model, chapter.exercise->budget, kept)));
    }
};

} // namespace

class TestExercisePanel : public QObject {
    Q_OBJECT
private slots:
    void shownOnlyOnExerciseChapters() {
        Window w;
        QCOMPARE(w.lesson->open(exercises()), QString());
        QVERIFY(w.panel->isVisibleTo(&w.window));
        w.lesson->showChapter(1); // an answer chapter
        QVERIFY(!w.panel->isVisibleTo(&w.window));
        w.lesson->showChapter(2);
        QVERIFY(w.panel->isVisibleTo(&w.window));
        w.lesson->close();
        QVERIFY(!w.panel->isVisibleTo(&w.window));
    }

    void enterGradesTheClickedNodes_data() {
        QTest::addColumn<int>("chapter");
        QTest::addColumn<std::vector<int>>("kept");
        QTest::newRow("over") << 0 << std::vector<int>{4};
        QTest::newRow("fits") << 0 << std::vector<int>{3, 6};
        QTest::newRow("best") << 0 << std::vector<int>{1, 2, 5, 7};
        QTest::newRow("sixteen") << 2 << std::vector<int>{6, 10, 13, 15};
    }
    void enterGradesTheClickedNodes() {
        QFETCH(int, chapter);
        QFETCH(std::vector<int>, kept);
        Window w;
        QVERIFY(QTest::qWaitForWindowActive(&w.window));
        QCOMPARE(w.lesson->open(exercises(), chapter), QString());
        QTRY_VERIFY(w.planned());
        w.keep(kept);
        QCOMPARE(*w.session.paneConfig(0).params.checkpoints, kept);
        QTRY_VERIFY(w.planned());
        QTest::keyClick(&w.window, Qt::Key_Return);
        QCOMPARE(w.panel->verdict(), w.expected(kept));
        QVERIFY(w.panel->grade());
        if (w.panel->grade()->verdict == Verdict::OverBudget)
            // The player stands at the answer's peak, where the chart marks it.
            QCOMPARE(w.window.player()->stepOf(w.session.trackOf(0)), w.session.run(0)->summary.peakStep);
        // A click changes the answer: the verdict asks for a new check.
        w.keep({kept.front()});
        QVERIFY(!w.panel->grade());
    }

    // The shipped exercise lesson plays through on the clicker's Page Down,
    // every chapter in turn, to the lesson's end.
    void theExerciseLessonPlaysWithTheClicker() {
        Window w;
        QVERIFY(QTest::qWaitForWindowActive(&w.window));
        QCOMPARE(w.lesson->open(exercises()), QString());
        std::vector<int> shown{0};
        for (int press = 0; press < 200; ++press) {
            QTRY_VERIFY(!w.session.isSimulating() && !w.lesson->stopTimes().empty());
            const bool last = w.lesson->chapter() + 1 == w.lesson->chapterCount();
            if (last && w.lesson->stopsPassed() >= static_cast<int>(w.lesson->stopTimes().size()) &&
                !w.window.player()->isPlaying())
                break;
            QTest::keyClick(&w.window, Qt::Key_PageDown);
            if (w.lesson->chapter() != shown.back())
                shown.push_back(w.lesson->chapter());
        }
        std::vector<int> every(static_cast<std::size_t>(w.lesson->chapterCount()));
        std::iota(every.begin(), every.end(), 0);
        QCOMPARE(shown, every);
        QCOMPARE(w.panel->isVisibleTo(&w.window), w.lesson->lesson()->chapters.back().exercise.has_value());
    }

    void showTheBestPlanAddsItsPane() {
        Window w;
        QCOMPARE(w.lesson->open(exercises(), 2), QString());
        QTRY_VERIFY(w.planned());
        const int panes = w.session.paneCount();
        w.panel->showBestPlan();
        QVERIFY(w.panel->grade());
        QVERIFY(w.session.paneCount() > panes);
        const studio::PaneConfig &best = w.session.paneConfig(panes);
        QCOMPARE(best.strategy, std::string("checkpoints"));
        QCOMPARE(*best.params.checkpoints, w.panel->grade()->best.kept);
    }
};

int main(int argc, char **argv) {
    TestExercisePanel test;
    return remat::testing::runStudioTest(test, "test_exercise_panel", argc, argv);
}
#include "test_exercise_panel.moc"
