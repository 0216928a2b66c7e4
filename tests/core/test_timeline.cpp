// The timeline's compact storage (per-step bytes plus snapshots) must answer
// exactly what a full replay would, at every step.
#include "core/simulator.h"
#include "core/strategy_registry.h"

#include <QtTest>
#include <random>

using namespace remat;

namespace {
Replay replayOf(const char *strategy, int n, const ChainSpec &spec = {}) {
    auto m = std::make_shared<const Model>(Model::chain(n, spec));
    auto s = std::make_shared<const Schedule>(StrategyRegistry::builtin().get(strategy).makeSchedule(*m, {}));
    return Simulator::replay(m, s);
}
} // namespace

class TestTimeline : public QObject {
    Q_OBJECT
private slots:
    void stateAtMatchesStepByStepReplay_data() {
        QTest::addColumn<QString>("strategy");
        QTest::addColumn<int>("n");
        QTest::newRow("recompute-all spans many snapshots") << "recompute-all" << 90;
        QTest::newRow("periodic") << "periodic" << 500;
        QTest::newRow("store-all") << "store-all" << 40;
    }
    void stateAtMatchesStepByStepReplay() {
        QFETCH(QString, strategy);
        QFETCH(int, n);
        ChainSpec spec;
        spec.nodeBytes = 3;
        spec.forwardWorkspace = 2;
        spec.backwardWorkspace = 5;
        const Replay r = replayOf(strategy.toLatin1().constData(), n, spec);
        const Timeline &tl = r.timeline;
        QVERIFY(tl.steps() > tl.snapshotInterval() || strategy != "recompute-all");
        std::mt19937 rng(1);
        std::uniform_int_distribution<std::int64_t> pick(-1, tl.steps() - 1);
        std::vector<std::int64_t> probes{-1, 0, tl.snapshotInterval() - 1, tl.snapshotInterval(), tl.steps() - 1};
        for (int i = 0; i < 50; ++i)
            probes.push_back(pick(rng));
        StepState walk = tl.stateAt(-1);
        std::vector<StepState> walked{walk};
        for (std::int64_t t = 0; t < tl.steps(); ++t) {
            tl.advance(walk);
            walked.push_back(walk);
        }
        for (std::int64_t t : probes) {
            if (t >= tl.steps())
                continue;
            const StepState s = tl.stateAt(t);
            QCOMPARE(s.step, t);
            QCOMPARE(s.resident, walked[t + 1].resident);
            QCOMPARE(s.computeCount, walked[t + 1].computeCount);
            if (t < 0)
                continue;
            // bytesAt = resident bytes (+ workspace while computing).
            std::int64_t bytes = 0, count = 0;
            for (NodeId id = 0; id < s.resident.size(); ++id)
                if (s.resident[id]) {
                    bytes += tl.model().bytes(id);
                    ++count;
                }
            const Op op = tl.op(t);
            if (op.kind == OpKind::Compute)
                bytes += tl.model().workspace(op.node);
            QCOMPARE(tl.bytesAt(t), bytes);
            QCOMPARE(std::int64_t(tl.residentCountAt(t)), count);
        }
    }

    void costAxisMapsBackToSteps() {
        const Replay r = replayOf("recompute-all", 12);
        const Timeline &tl = r.timeline;
        QCOMPARE(tl.totalCost(), r.summary.cost);
        QCOMPARE(tl.stepAtCost(-1), std::int64_t(-1));
        QCOMPARE(tl.stepAtCost(tl.totalCost()), tl.steps() - 1);
        for (std::int64_t t = 0; t < tl.steps(); ++t) {
            const std::int64_t s = tl.stepAtCost(tl.costUntil(t));
            // The last op finished by that time: t itself or the frees after it.
            QVERIFY(s >= t);
            QCOMPARE(tl.costUntil(s), tl.costUntil(t));
        }
    }

    void rejectsStepsOutOfRange() {
        const Replay r = replayOf("store-all", 4);
        QVERIFY_THROWS_EXCEPTION(std::exception, r.timeline.stateAt(r.timeline.steps()));
        QVERIFY_THROWS_EXCEPTION(std::exception, r.timeline.stateAt(-2));
    }
};

QTEST_GUILESS_MAIN(TestTimeline)
#include "test_timeline.moc"
