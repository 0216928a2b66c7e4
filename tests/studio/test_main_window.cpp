// The studio window end to end, offscreen: it starts with the three seed
// strategies, plays to the end, draws exactly the simulator's resident set,
// turns a click on a node into a checkpoint (and the summary follows),
// remembers the session, and never prints a Qt warning.
#include "app/render/palette.h"
#include "app/studio/main_window.h"
#include "app/studio/memory_chart_view.h"
#include "app/studio/pane_widget.h"
#include "app/studio/summary_table.h"
#include "core/simulator.h"
#include "core/strategy_registry.h"
#include "tests/studio/studio_test_main.h"

#include <QApplication>
#include <QSpinBox>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QtTest>

using namespace remat;
using remat::studio::MainWindow;

namespace {

QStringList warnings;

void failOnWarnings(QtMsgType type, const QMessageLogContext &, const QString &message) {
    // The offscreen platform itself says this for every top-level window.
    if (message.contains(QLatin1String("does not support propagateSizeHints")))
        return;
    if (type != QtDebugMsg && type != QtInfoMsg)
        warnings << message;
}

MainWindow::Options fresh() {
    return remat::testing::freshWindow();
}

} // namespace

class TestMainWindow : public QObject {
    Q_OBJECT
private slots:
    void init() {
        warnings.clear();
        qInstallMessageHandler(failOnWarnings);
    }

    void cleanup() {
        qInstallMessageHandler(nullptr);
        QVERIFY2(warnings.isEmpty(), qPrintable(warnings.join('\n')));
    }

    void startsWithTheSeedStrategiesAndPlaysToTheEnd() {
        MainWindow window(fresh());
        window.resize(1280, 800);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QCOMPARE(window.session().layers(), 16);
        QCOMPARE(window.session().paneCount(), 3);
        const char *expected[] = {"store-all", "recompute-all", "periodic"};
        for (int i = 0; i < 3; ++i) {
            QVERIFY(window.session().run(i));
            QCOMPARE(QString::fromStdString(window.session().run(i)->timeline->schedule().strategy),
                     QString(expected[i]));
            QCOMPARE(window.summaryTable()->item(i, studio::SummaryTable::PeakNodes)->text(),
                     QString::number(window.session().run(i)->summary.peakNodes));
        }
        window.session().setSpeed(5000);
        window.player()->play();
        QTRY_VERIFY_WITH_TIMEOUT(!window.player()->isPlaying(), 10000);
        QCOMPARE(window.player()->position(), window.player()->lastPosition());
        QVERIFY(window.pane(1)->narration().contains("backward pass is complete"));
        QVERIFY(window.close());
    }

    void panesDrawTheSimulatorsResidentSet() {
        MainWindow window(fresh());
        window.resize(1280, 800);
        window.setTheme(studio::Theme::Light);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const render::Palette palette = render::Palette::light();
        const QColor residentFills[] = {palette.resident, palette.recomputed, palette.current};
        for (const double fraction : {0.1, 0.3, 0.6}) {
            window.player()->seekTime(fraction * window.player()->endTime());
            for (int i = 0; i < window.session().paneCount(); ++i) {
                studio::ScheduleView *view = window.pane(i)->view();
                const QImage image = view->grab().toImage();
                const auto layout = view->layout();
                const Timeline &tl = *window.session().run(i)->timeline;
                const StepState state = tl.stateAt(window.player()->stepOf(i));
                QCOMPARE(view->step(), state.step);
                for (NodeId id = 0; id < NodeId(tl.model().nodeCount()); ++id) {
                    const QPointF c = layout.center(tl.model(), id) * image.devicePixelRatio();
                    const QColor pixel = image.pixelColor(c.toPoint());
                    const bool drawn =
                        std::find(std::begin(residentFills), std::end(residentFills), pixel) != std::end(residentFills);
                    QCOMPARE(drawn, state.resident[id] != 0);
                }
            }
        }
        window.setTheme(studio::Theme::System);
    }

    void keyboardShortcutsDriveThePlayer() {
        MainWindow window(fresh());
        window.resize(1280, 800);
        window.show();
        QApplication::setActiveWindow(&window);
        QVERIFY(QTest::qWaitForWindowActive(&window));
        studio::Player *player = window.player();
        QSignalSpy moved(player, &studio::Player::positionChanged);
        QTest::keyClick(&window, Qt::Key_Right);
        QCOMPARE(player->position(), 1);
        QTest::keyClick(&window, Qt::Key_End);
        QCOMPARE(player->position(), player->lastPosition());
        QTest::keyClick(&window, Qt::Key_Left);
        QCOMPARE(player->position(), player->lastPosition() - 1);
        QTest::keyClick(&window, Qt::Key_Home);
        QCOMPARE(player->position(), 0);
        QTest::keyClick(&window, Qt::Key_P); // the first pane's peak
        QCOMPARE(player->stepOf(0), window.session().run(0)->summary.peakStep);
        QCOMPARE(moved.count(), 5);
        QTest::keyClick(&window, Qt::Key_Space);
        QVERIFY(player->isPlaying());
        QTest::keyClick(&window, Qt::Key_Space);
        QVERIFY(!player->isPlaying());
    }

    void clickingANodeTogglesACheckpoint() {
        MainWindow window(fresh());
        window.resize(1280, 800);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        studio::ScheduleView *view = window.pane(2)->view(); // periodic, k = 4
        const Model &model = *window.session().run(2)->model;
        const QPoint a5 = view->layout().center(model, 5).toPoint();
        QTest::mouseClick(view, Qt::LeftButton, {}, a5);
        QCOMPARE(window.session().paneConfig(2).strategy, std::string("checkpoints"));
        QCOMPARE(*window.session().paneConfig(2).params.checkpoints, (std::vector<int>{4, 5, 8, 12}));
        // The summary shows the simulator's counts for the new schedule at once.
        StrategyParams params;
        params.checkpoints = std::vector<int>{4, 5, 8, 12};
        const Summary expected =
            Simulator::summarize(model, StrategyRegistry::builtin().get("checkpoints").makeSchedule(model, params));
        auto cell = [&](int column) { return window.summaryTable()->item(2, column)->text(); };
        QCOMPARE(cell(studio::SummaryTable::Strategy), QString("checkpoints"));
        QCOMPARE(cell(studio::SummaryTable::ForwardEvaluations), QString::number(expected.forwardEvaluations));
        QCOMPARE(cell(studio::SummaryTable::PeakNodes), QString::number(expected.peakNodes));
        QCOMPARE(cell(studio::SummaryTable::Recomputations), QString::number(expected.recomputations));
        // Clicking again drops it.
        QTest::mouseClick(view, Qt::LeftButton, {}, view->layout().center(model, 5).toPoint());
        QCOMPARE(*window.session().paneConfig(2).params.checkpoints, (std::vector<int>{4, 8, 12}));
        QCOMPARE(cell(studio::SummaryTable::ForwardEvaluations),
                 QString::number(window.session().run(2)->summary.forwardEvaluations));
        // Backward nodes and a_0 are not checkpoints: nothing changes.
        QTest::mouseClick(view, Qt::LeftButton, {}, view->layout().center(model, model.backwardNode(3)).toPoint());
        QTest::mouseClick(view, Qt::LeftButton, {}, view->layout().center(model, 0).toPoint());
        QCOMPARE(*window.session().paneConfig(2).params.checkpoints, (std::vector<int>{4, 8, 12}));
    }

    void surprisesAreExplained() {
        MainWindow window(fresh());
        window.resize(1280, 800);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        // A click on recompute-all turns the pane into `checkpoints`: the status bar says so and why the peak moved.
        const std::int64_t peakBefore = window.session().run(1)->summary.peakNodes;
        studio::ScheduleView *view = window.pane(1)->view();
        QTest::mouseClick(view, Qt::LeftButton, {},
                          view->layout().center(*window.session().run(1)->model, 5).toPoint());
        QCOMPARE(window.session().paneConfig(1).strategy, std::string("checkpoints"));
        const QString message = window.statusBar()->currentMessage();
        const std::int64_t peakAfter = window.session().run(1)->summary.peakNodes;
        QVERIFY(peakAfter != peakBefore);
        QVERIFY2(message.contains("now uses 'checkpoints'") && message.contains("recompute-all") &&
                     message.contains(QStringLiteral("Peak %1 \u2192 %2 nodes").arg(peakBefore).arg(peakAfter)),
                 qPrintable(message));
        QCOMPARE(QString::fromStdString(window.session().run(1)->timeline->schedule().description),
                 QStringLiteral("1 chosen checkpoint"));

        // Boxes show what the schedule used: a budget of 1 node, revolve's slots at n = 1.
        QVERIFY(window.planForBudget(QStringLiteral("1 nodes")));
        QTRY_VERIFY(!window.session().isSimulating());
        QCOMPARE(window.pane(3)->findChild<QSpinBox *>("budget")->value(), 1);
        studio::PaneConfig revolve;
        revolve.strategy = "revolve";
        revolve.params.checkpointSlots = 4;
        window.session().setPaneConfig(0, revolve);
        window.session().setLayers(1);
        QTRY_VERIFY(!window.session().isSimulating() && window.session().run(0));
        const int slotCount = window.pane(0)->findChild<QSpinBox *>("slots")->value();
        const QString title = QString::fromStdString(window.session().run(0)->timeline->schedule().description);
        QVERIFY2(title.startsWith(QStringLiteral("%1 slot").arg(slotCount)), qPrintable(title));
    }

    void tooltipsExplainANode() {
        MainWindow window(fresh());
        window.resize(1280, 800);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.player()->seek(5);
        const QString text = window.pane(0)->view()->describeNode(0);
        QVERIFY(text.contains("a_0") && text.contains("the input: always kept") && text.contains("Computed 0 times"));
        const QString chart = window.chart()->describeTime(0.5);
        QVERIFY2(chart.contains("compute a_1") && chart.contains("store-all"), qPrintable(chart));
    }

    void badParametersReachTheUser() {
        MainWindow window(fresh());
        studio::PaneConfig config;
        config.strategy = "checkpoints";
        config.params.checkpoints = std::vector<int>{99};
        window.session().setPaneConfig(0, config);
        QVERIFY(!window.session().run(0)); // not simulated, and the pane says why
        QVERIFY2(window.pane(0)->narration().contains("checkpoint 99 is out of range"),
                 qPrintable(window.pane(0)->narration()));
        QCOMPARE(window.summaryTable()->item(0, 0)->text(), QString("(not simulated)"));
        // Out-of-range parameters are refused with a message, never estimated blindly.
        studio::PaneConfig periodic;
        periodic.strategy = "periodic";
        periodic.params.every = 0;
        window.session().setPaneConfig(2, periodic);
        QVERIFY(!window.session().run(2));
        QVERIFY2(window.pane(2)->narration().contains("must be from 1 to n = 16, got 0"),
                 qPrintable(window.pane(2)->narration()));
        // The other panes still play.
        window.player()->jumpToEnd();
        QVERIFY(window.player()->stepOf(0) >= 0);
    }

    void changingNKeepsThePanes() {
        MainWindow window(fresh());
        window.session().setLayers(64);
        QCOMPARE(window.session().paneCount(), 3);
        for (int i = 0; i < 3; ++i)
            QCOMPARE(window.session().run(i)->model->layers(), 64);
        window.session().setSyncByTime(false);
        window.player()->jumpToEnd();
        QCOMPARE(window.player()->stepOf(1), window.session().run(1)->timeline->steps() - 1);
    }

    void longWorkRunsOffTheGuiThread() {
        MainWindow window(fresh());
        // recompute-all at n = 1500 has about 2.3 million ops: simulated in the background.
        window.session().setLayers(1500);
        QVERIFY(window.session().isSimulating());
        QVERIFY(!window.session().run(1));
        QVERIFY(window.session().run(0) && window.session().run(2)); // the cheap panes are ready at once
        QTRY_VERIFY_WITH_TIMEOUT(window.session().run(1) != nullptr, 60000);
        QCOMPARE(window.session().run(1)->model->layers(), 1500);
        QCOMPARE(window.session().run(1)->summary.recomputations,
                 window.session().run(1)->summary.forwardEvaluations - 1500);
        QCOMPARE(window.summaryTable()->item(1, studio::SummaryTable::ForwardEvaluations)->text(),
                 QString::number(window.session().run(1)->summary.forwardEvaluations));
    }

    void plannersRunInTheBackgroundToo() {
        if (!StrategyRegistry::builtin().find("budget"))
            QSKIP("the budget planner is not built in");
        MainWindow window(fresh());
        studio::PaneConfig budget;
        budget.strategy = "budget";
        budget.params.budgetNodes = 7;
        window.session().setPaneConfig(0, budget);
        QTRY_VERIFY_WITH_TIMEOUT(window.session().run(0) != nullptr, 30000);
        QCOMPARE(QString::fromStdString(window.session().run(0)->timeline->schedule().strategy), QString("budget"));
        QVERIFY(window.session().run(0)->summary.peakNodes <= 7);
        QCOMPARE(window.summaryTable()->item(0, studio::SummaryTable::PeakNodes)->text(),
                 QString::number(window.session().run(0)->summary.peakNodes));
    }

    void oneToFourPanes() {
        MainWindow window(fresh());
        studio::PaneConfig config;
        config.strategy = "periodic";
        config.params.every = 2;
        window.session().addPane(config);
        QCOMPARE(window.session().paneCount(), 4);
        QCOMPARE(window.player()->trackCount(), 4);
        window.session().addPane(config); // refused: four is the most
        QCOMPARE(window.session().paneCount(), 4);
        QCOMPARE(window.summaryTable()->rowCount(), 4);
        window.session().removePane(0);
        QCOMPARE(window.session().paneCount(), 3);
        QCOMPARE(window.player()->trackCount(), 3);
        QCOMPARE(QString::fromStdString(window.session().run(0)->timeline->schedule().strategy),
                 QString("recompute-all"));
        while (window.session().paneCount() > 1)
            window.session().removePane(0);
        window.session().removePane(0); // the last pane stays
        QCOMPARE(window.session().paneCount(), 1);
        QCOMPARE(window.summaryTable()->rowCount(), 1);
    }

    void sessionPersists() {
        QStandardPaths::setTestModeEnabled(true);
        {
            MainWindow window(fresh());
            window.session().setLayers(20);
            studio::PaneConfig config;
            config.strategy = "checkpoints";
            config.params.checkpoints = std::vector<int>{2, 9};
            window.session().setPaneConfig(1, config);
            window.session().setSyncByTime(false);
            window.session().setSpeed(12);
            QVERIFY(window.close());
        }
        MainWindow restored({});
        QCOMPARE(restored.session().layers(), 20);
        QCOMPARE(restored.session().paneCount(), 3);
        QCOMPARE(restored.session().paneConfig(1).strategy, std::string("checkpoints"));
        QCOMPARE(*restored.session().paneConfig(1).params.checkpoints, (std::vector<int>{2, 9}));
        QVERIFY(!restored.session().syncByTime());
        QCOMPARE(restored.player()->speed(), 12.0);
    }
};

int main(int argc, char **argv) {
    TestMainWindow test;
    return remat::testing::runStudioTest(test, "remat-studio-test", argc, argv);
}

#include "test_main_window.moc"
