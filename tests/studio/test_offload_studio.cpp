// Offloading in the studio, offscreen: the offload scenario times every pane
// on a link and paints each pane's host lane (cells, the moving arrow of the
// copy under way, the stalls the simulator timed) in its window; picking an
// offload strategy without a link is not a dead end (the default link, said
// in the status bar); and a bad link or budget in Panes > Link and budgets
// gives the CLI's message with the dialog's field name, changes nothing and
// never crashes.
#include "app/render/host_lane_painter.h"
#include "app/render/palette.h"
#include "app/render/stream_narration.h"
#include "app/studio/link_dialog.h"
#include "app/studio/main_window.h"
#include "app/studio/pane_widget.h"
#include "app/studio/summary_table.h"
#include "core/rates.h"
#include "tests/studio/studio_test_main.h"

#include <QLabel>
#include <QLineEdit>
#include <QSettings>
#include <QStatusBar>
#include <QtTest>

using namespace remat;
using remat::studio::LinkSettings;
using remat::studio::MainWindow;

namespace {

const studio::Scenario &offloadScenario() {
    static const std::vector<studio::Scenario> all = studio::builtinScenarios();
    const studio::Scenario *s = studio::findScenario(all, QStringLiteral("offload"));
    Q_ASSERT(s);
    return *s;
}

} // namespace

class TestOffloadStudio : public QObject {
    Q_OBJECT
private slots:
    // The host lane in the window's own pixels, at moments the simulator says a copy or a stall is under way.
    void paintsTheHostLaneInThePane() {
        MainWindow window(remat::testing::freshWindow());
        window.resize(1600, 1000);
        window.setTheme(studio::Theme::Light);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.session().loadScenario(offloadScenario());
        QCOMPARE(window.session().paneCount(), 3);
        QVERIFY(window.session().link().on());
        for (int i = 0; i < window.session().paneCount(); ++i) {
            QVERIFY(window.session().run(i));
            QVERIFY(window.session().run(i)->timeline->timed()); // all panes on one clock: all timed
            QVERIFY(window.pane(i)->view()->hasHostLane());
        }
        const Timeline &tl = *window.session().run(2)->timeline;
        QCOMPARE(tl.schedule().strategy, std::string("offload-all"));
        QVERIFY(!tl.stalls().empty());
        const render::Palette palette = render::Palette::light();
        studio::ScheduleView *view = window.pane(2)->view();
        // Moments: mid-copy of a few transfers, and the middle of the first stall.
        std::vector<double> moments;
        for (std::size_t k = 0; k < tl.transfers().size(); k += 7)
            moments.push_back(tl.transfers()[k].start + 0.7 * (tl.transfers()[k].end - tl.transfers()[k].start));
        const Stall firstStall = tl.stalls().front();
        moments.push_back((firstStall.from + firstStall.to) / 2);
        int arrows = 0;
        for (const double t : moments) {
            window.player()->seekTime(t);
            const double now = window.player()->time(); // the player's nearest moment at or before t
            QCOMPARE(view->time(), now);
            const QImage image = view->grab().toImage();
            const double dpr = image.devicePixelRatio();
            const render::HostLaneLayout lane = view->hostLane();
            for (int i = 1; i <= tl.model().layers(); ++i) {
                const render::HostCell cell = render::HostLanePainter::cellOf(tl, view->state(), i, now);
                QCOMPARE(QColor(image.pixel((lane.cellProbe(i) * dpr).toPoint())),
                         QColor(render::HostLanePainter::cellColour(cell.kind, palette).rgb()));
                if (cell.kind == render::HostCell::Kind::ToHost || cell.kind == render::HostCell::Kind::ToDevice) {
                    const QLineF a = lane.arrow(i, cell.kind == render::HostCell::Kind::ToHost, cell.progress);
                    QCOMPARE(QColor(image.pixel((a.pointAt(0.4) * dpr).toPoint())), QColor(palette.text.rgb()));
                    ++arrows;
                }
            }
            // A stall is outlined in the badge's red while it lasts, and the narration names it.
            if (const std::optional<Stall> stall = render::stallAt(tl, now)) {
                // Framed in red: the frame's top row is red from end to end (the hatch alone colours a few pixels).
                const QRect frame = render::HostLanePainter::stallFrame(lane, *stall);
                QVERIFY(frame.width() >= 4);
                for (int x = frame.left(); x <= frame.right(); ++x)
                    if (std::abs(x - lane.timeToX(now)) > 2) // the playhead crosses it
                        QCOMPARE(QColor(image.pixel((QPointF(x, frame.top()) * dpr).toPoint())),
                                 QColor(palette.badge.rgb()));
                QVERIFY2(window.pane(2)->narration().startsWith("Stalled "), qPrintable(window.pane(2)->narration()));
            }
        }
        QVERIFY(arrows >= 2);
        // The first stall was one of the moments: the player stops inside it.
        QVERIFY(render::stallAt(tl, window.player()->time()).has_value());
        // The table's timed columns show the simulator's figures.
        const studio::SummaryTable *table = window.summaryTable();
        QVERIFY(!table->isColumnHidden(studio::SummaryTable::Makespan));
        QCOMPARE(table->item(2, studio::SummaryTable::Makespan)->text(),
                 QString::fromStdString(formatSeconds(window.session().run(2)->summary.makespanSeconds)));
        window.setTheme(studio::Theme::System);
    }

    // Picking offload-all on a chain without a link: the default link, said and shown.
    void offloadWithoutALinkGetsTheDefault() {
        MainWindow window(remat::testing::freshWindow());
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(!window.session().link().on());
        QVERIFY(!window.session().run(0)->timeline->timed());
        studio::PaneConfig config;
        config.strategy = "offload-all";
        window.session().setPaneConfig(0, config);
        QCOMPARE(window.session().link(), LinkSettings::defaults());
        QVERIFY(window.session().run(0));
        QVERIFY(window.session().run(0)->timeline->timed());
        QVERIFY(window.session().run(0)->summary.transferBytes > 0);
        QVERIFY(window.statusBar()->currentMessage().contains("default"));
        QVERIFY(window.findChild<QLabel *>("linkLabel")->text().contains("16GB/s"));
        // Turning the link off again: untimed panes, and offload-all says what it needs.
        QCOMPARE(window.session().setLink({}), QString());
        QVERIFY(!window.session().link().on());
        QVERIFY(!window.session().run(1)->timeline->timed());
        QVERIFY(!window.session().run(0));
        QVERIFY2(window.pane(0)->narration().contains("link"), qPrintable(window.pane(0)->narration()));
    }

    void badLinkValuesGiveAMessage_data() {
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("message");
        QTest::newRow("bandwidth") << "link"
                                   << "fast"
                                   << "Link bandwidth must be";
        QTest::newRow("negative bandwidth") << "link"
                                            << "-16GB/s"
                                            << "Link bandwidth must be";
        QTest::newRow("latency") << "latency"
                                 << "soon"
                                 << "Latency must be";
        QTest::newRow("device budget") << "deviceBudget"
                                       << "0B"
                                       << "Device budget must be at least 1 byte";
        QTest::newRow("host budget") << "hostBudget"
                                     << "lots"
                                     << "Host budget";
        QTest::newRow("device rate on a chain timed in seconds") << "deviceRate"
                                                                 << "100TFLOP/s"
                                                                 << "a device rate applies only to costs in FLOP";
        QTest::newRow("activation size") << "nodeBytes"
                                         << "0B"
                                         << "Activation size must be at least 1 byte";
        QTest::newRow("forward time") << "forwardTime"
                                      << "2 parsecs"
                                      << "Forward time must be";
        QTest::newRow("no forward time") << "forwardTime"
                                         << ""
                                         << "Forward time is needed with a link";
        QTest::newRow("backward time") << "backwardTime"
                                       << "-1ms"
                                       << "Backward time must be";
    }
    void badLinkValuesGiveAMessage() {
        QFETCH(QString, field);
        QFETCH(QString, text);
        QFETCH(QString, message);
        MainWindow window(remat::testing::freshWindow());
        window.session().loadScenario(offloadScenario());
        const LinkSettings before = window.session().link();
        const double makespan = window.session().run(2)->summary.makespanSeconds;
        bool applied = false;
        studio::LinkDialog dialog(before, true, [&](const LinkSettings &s) {
            const QString refused = window.session().setLink(s);
            applied = refused.isEmpty();
            return refused;
        });
        dialog.findChild<QLineEdit *>(field)->setText(text);
        dialog.accept();
        QVERIFY(!applied);
        QVERIFY2(dialog.message().contains(message), qPrintable(dialog.message()));
        QVERIFY(dialog.result() != QDialog::Accepted);
        // Nothing changed: the link, the panes.
        QCOMPARE(window.session().link(), before);
        QCOMPARE(window.session().run(2)->summary.makespanSeconds, makespan);
        // Fixed, the same dialog applies: a slower link, a longer step.
        dialog.setSettings(before);
        dialog.findChild<QLineEdit *>("link")->setText("8GB/s");
        dialog.accept();
        QVERIFY(applied);
        QCOMPARE(dialog.result(), int(QDialog::Accepted));
        QVERIFY(window.session().run(2)->summary.makespanSeconds > makespan);
    }

    // The link is part of the session; one edited into nonsense is dropped, not a crash.
    void linkPersists() {
        LinkSettings slow = LinkSettings::defaults();
        slow.machine.link = "8GB/s";
        slow.machine.hostBudget = "4GiB";
        {
            MainWindow window(remat::testing::freshWindow());
            window.session().loadScenario(offloadScenario());
            QCOMPARE(window.session().setLink(slow), QString());
            QVERIFY(window.close());
        }
        {
            MainWindow restored({});
            QCOMPARE(restored.session().link(), slow);
            QVERIFY(restored.session().run(2)->timeline->timed());
            QCOMPARE(restored.session().run(2)->timeline->machine().link.bytesPerSecond, 8e9);
        }
        QSettings().setValue("link/forwardTime", "2 parsecs");
        // Dropped; the offload pane then gets the default link, as when it is picked without one.
        MainWindow restored({});
        QCOMPARE(restored.session().link(), LinkSettings::defaults());
        QCOMPARE(restored.session().paneCount(), 3);
        QVERIFY(restored.session().run(2)->timeline->timed());
    }

    // A budget offload-budget plans for comes from the dialog.
    void offloadBudgetPlansForTheDeviceBudget() {
        MainWindow window(remat::testing::freshWindow());
        window.session().loadScenario(offloadScenario());
        LinkSettings link = window.session().link();
        link.machine.deviceBudget = "512MiB";
        QCOMPARE(window.session().setLink(link), QString());
        studio::PaneConfig config;
        config.strategy = "offload-budget";
        window.session().setPaneConfig(1, config);
        QTRY_VERIFY(window.session().run(1) != nullptr); // planned off the GUI thread
        QCOMPARE(window.session().run(1)->timeline->schedule().strategy, std::string("offload-budget"));
        QVERIFY(window.session().run(1)->summary.peakBytes <= std::int64_t{512} << 20);
    }
};

int main(int argc, char **argv) {
    TestOffloadStudio test;
    return remat::testing::runStudioTest(test, "test_offload_studio", argc, argv);
}
#include "test_offload_studio.moc"
