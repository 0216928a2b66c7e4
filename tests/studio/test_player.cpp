// The player: one clock for every pane. Stepping, seeking, jumping to the
// peak and to the end, playing, and keeping panes in sync by time (op cost)
// or by op index.
#include "app/studio/pane_run.h"
#include "app/studio/player.h"

#include <QSignalSpy>
#include <QtTest>

using namespace remat;
using remat::render::TimeAxis;
using remat::studio::Player;

namespace {
studio::PaneRun run(const std::string &strategy, int n = 8) {
    studio::PaneConfig c;
    c.strategy = strategy;
    return studio::simulatePane(std::make_shared<const Model>(Model::chain(n)), c);
}
} // namespace

class TestPlayer : public QObject {
    Q_OBJECT
    std::vector<studio::PaneRun> runs_;

    void load(Player &player) {
        std::vector<Player::Track> tracks;
        for (const auto &r : runs_)
            tracks.push_back({r.timeline, r.summary.peakStep});
        player.setTracks(tracks);
    }

private slots:
    void initTestCase() { runs_ = {run("store-all"), run("recompute-all"), run("periodic")}; }

    void stepping() {
        Player player;
        load(player);
        QSignalSpy spy(&player, &Player::positionChanged);
        QCOMPARE(player.position(), 0);
        QCOMPARE(player.stepOf(0), -1); // before the first op
        player.stepForward();
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.takeFirst().at(0).toInt(), 1);
        QCOMPARE(player.stepOf(0), 0); // every pane computed a_1
        QCOMPARE(player.stepOf(1), 0);
        player.stepForward();
        player.stepBack();
        QCOMPARE(spy.count(), 2);
        QCOMPARE(player.position(), 1);
        player.jumpToStart();
        player.stepBack(); // nothing before the start
        QCOMPARE(player.position(), 0);
        QCOMPARE(spy.count(), 3);
    }

    void seekingClampsAndTheEndShowsEveryPaneFinished_data() {
        QTest::addColumn<int>("axis");
        QTest::newRow("by time") << 0;
        QTest::newRow("by op") << 1;
    }

    void seekingClampsAndTheEndShowsEveryPaneFinished() {
        QFETCH(int, axis);
        Player player;
        player.setAxis(axis ? TimeAxis::Ops : TimeAxis::Cost);
        load(player);
        QSignalSpy spy(&player, &Player::positionChanged);
        player.seek(1'000'000);
        QCOMPARE(player.position(), player.lastPosition());
        player.seek(-5);
        QCOMPARE(player.position(), 0);
        player.jumpToEnd();
        QCOMPARE(spy.count(), 3); // end, start, end again
        for (int i = 0; i < player.trackCount(); ++i) {
            const Timeline &tl = *runs_[std::size_t(i)].timeline;
            std::int64_t lastCompute = tl.steps() - 1;
            while (tl.op(lastCompute).kind != OpKind::Compute)
                --lastCompute;
            // By op every op is shown; by time the frees after the last compute take no time.
            QCOMPARE(player.stepOf(i), axis ? tl.steps() - 1 : lastCompute);
        }
    }

    void jumpToPeak_data() { seekingClampsAndTheEndShowsEveryPaneFinished_data(); }

    void jumpToPeak() {
        QFETCH(int, axis);
        Player player;
        player.setAxis(axis ? TimeAxis::Ops : TimeAxis::Cost);
        load(player);
        QSignalSpy peaks(&player, &Player::peakVisited);
        for (int i = 0; i < player.trackCount(); ++i) {
            player.jumpToPeak(i);
            const Summary &s = runs_[std::size_t(i)].summary;
            QCOMPARE(player.stepOf(i), s.peakStep);
            QCOMPARE(runs_[std::size_t(i)].timeline->bytesAt(player.stepOf(i)), s.peakBytes);
        }
        // P visits each pane's peak in turn.
        peaks.clear();
        player.jumpToNextPeak();
        player.jumpToNextPeak();
        QCOMPARE(peaks.count(), 2);
        QCOMPARE(peaks.at(0).at(0).toInt(), 0);
        QCOMPARE(peaks.at(1).at(0).toInt(), 1);
        QCOMPARE(player.stepOf(1), runs_[1].summary.peakStep);
    }

    void syncByTimeCostsEachOp() {
        Player player;
        load(player);
        const Timeline &storeAll = *runs_[0].timeline;
        const Timeline &recomputeAll = *runs_[1].timeline;
        for (int p = 0; p <= player.lastPosition(); ++p) {
            player.seek(p);
            for (int i = 0; i < player.trackCount(); ++i) {
                const Timeline &tl = *runs_[std::size_t(i)].timeline;
                const std::int64_t s = player.stepOf(i);
                // The op shown has finished by now, and the next compute has not.
                QVERIFY(s < 0 || tl.costUntil(s) <= player.time());
                std::int64_t next = s + 1;
                while (next < tl.steps() && tl.op(next).kind == OpKind::Free)
                    ++next;
                QVERIFY(next >= tl.steps() || tl.costUntil(next) > player.time());
            }
        }
        // Store-all is done while recompute-all still works: it finishes later in time.
        player.seekTime(storeAll.totalCost());
        QVERIFY(player.stepOf(1) < recomputeAll.steps() - 2);
        QCOMPARE(player.endTime(),
                 std::max({storeAll.totalCost(), recomputeAll.totalCost(), runs_[2].timeline->totalCost()}));
    }

    void syncByOpIndex() {
        Player player;
        player.setAxis(TimeAxis::Ops);
        load(player);
        for (const int p : {0, 1, 7, 40, player.lastPosition()}) {
            player.seek(p);
            for (int i = 0; i < player.trackCount(); ++i)
                QCOMPARE(player.stepOf(i), std::min<std::int64_t>(p - 1, runs_[std::size_t(i)].timeline->steps() - 1));
        }
    }

    void switchingAxisKeepsTheFirstPanesStep() {
        Player player;
        load(player);
        player.seek(9);
        const std::int64_t step = player.stepOf(0);
        player.setAxis(TimeAxis::Ops);
        QCOMPARE(player.stepOf(0), step);
        player.setAxis(TimeAxis::Cost);
        QCOMPARE(player.stepOf(0), step);
    }

    void newTracksKeepTheTime() {
        Player player;
        load(player);
        player.seek(12);
        const double t = player.time();
        load(player);
        QCOMPARE(player.time(), t);
    }

    void playsToTheEndAndStops() {
        Player player;
        load(player);
        player.setSpeed(2000);
        QSignalSpy playing(&player, &Player::playingChanged);
        QSignalSpy moved(&player, &Player::positionChanged);
        player.play();
        QVERIFY(player.isPlaying());
        QTRY_VERIFY_WITH_TIMEOUT(!player.isPlaying(), 5000);
        QCOMPARE(player.position(), player.lastPosition());
        QCOMPARE(playing.count(), 2);
        QVERIFY(moved.count() >= 1);
        // Positions only move forward while playing.
        int previous = 0;
        for (const auto &args : moved) {
            QVERIFY(args.at(0).toInt() > previous);
            previous = args.at(0).toInt();
        }
        // Play at the end starts over.
        player.play();
        QVERIFY(player.position() < player.lastPosition());
        player.pause();
    }
};

QTEST_GUILESS_MAIN(TestPlayer)
#include "test_player.moc"
