// The seed strategies keep the promises the README and the seed notes make:
// valid schedules, the stated forward evaluations, and the stated memory laws.
#include "core/errors.h"
#include "core/simulator.h"
#include "core/strategy_registry.h"

#include <QtTest>
#include <cmath>

using namespace remat;

namespace {
Summary run(const char *strategy, int n, const StrategyParams &params = {}) {
    const Model m = Model::chain(n);
    return Simulator::summarize(m, StrategyRegistry::builtin().get(strategy).makeSchedule(m, params));
}
} // namespace

class TestStrategies : public QObject {
    Q_OBJECT
private slots:
    void everyStrategyIsValid_data() {
        QTest::addColumn<QString>("strategy");
        for (const Strategy *s : StrategyRegistry::builtin().all())
            if (s->runsWithDefaults())
                QTest::newRow(std::string(s->name()).c_str()) << QString::fromStdString(std::string(s->name()));
    }
    void everyStrategyIsValid() {
        QFETCH(QString, strategy);
        for (int n = 1; n <= 200; ++n) {
            const Model m = Model::chain(n);
            const Schedule s = StrategyRegistry::builtin().get(strategy.toStdString()).makeSchedule(m, {});
            QCOMPARE(QString::fromStdString(s.strategy), strategy);
            const Summary sum = Simulator::summarize(m, s); // throws if invalid
            QCOMPARE(sum.backwardOps, std::int64_t(n + 1));
            QVERIFY(sum.peakNodes >= 3 || n == 0);
        }
    }

    void storeAllComputesEachNodeOnce() {
        for (int n : {1, 2, 7, 16, 100, 513}) {
            const Summary s = run("store-all", n);
            QCOMPARE(s.forwardEvaluations, std::int64_t(n));
            QCOMPARE(s.recomputations, std::int64_t(0));
            // Every activation plus the two gradients in flight.
            QCOMPARE(s.peakNodes, std::int64_t(n + 2));
        }
    }

    void recomputeAllIsQuadraticWithConstantMemory() {
        std::int64_t firstPeak = -1;
        for (int n = 1; n <= 300; n += (n < 10 ? 1 : 37)) {
            const Summary s = run("recompute-all", n);
            QCOMPARE(s.forwardEvaluations, std::int64_t(n) * (n + 1) / 2);
            if (n >= 3) {
                if (firstPeak < 0)
                    firstPeak = s.peakNodes;
                QCOMPARE(s.peakNodes, firstPeak); // does not grow with n
            }
        }
        QVERIFY(firstPeak <= 4);
    }

    void periodicStaysWithinTwoNAndTwoSqrtN() {
        for (int n = 1; n <= 400; ++n) {
            const Summary s = run("periodic", n);
            QVERIFY2(s.forwardEvaluations <= 2 * n, qPrintable(QString("n=%1 fe=%2").arg(n).arg(s.forwardEvaluations)));
            const std::int64_t bound = 2 * std::int64_t(std::ceil(std::sqrt(double(n)))) + 3;
            QVERIFY2(s.peakNodes <= bound,
                     qPrintable(QString("n=%1 peak=%2 bound=%3").arg(n).arg(s.peakNodes).arg(bound)));
        }
    }

    void periodicEveryKTradesMemoryForCompute() {
        const int n = 64;
        std::int64_t previousFe = 0;
        for (int k : {1, 2, 4, 8, 16, 32, 64}) {
            StrategyParams p;
            p.every = k;
            const Summary s = run("periodic", n, p);
            // Checkpoints at k, 2k, ... < n: 2n - |C| - 1 forward evaluations.
            const int checkpoints = (n - 1) / k;
            QCOMPARE(s.forwardEvaluations, std::int64_t(2 * n - checkpoints - 1));
            QVERIFY(s.forwardEvaluations >= previousFe);
            previousFe = s.forwardEvaluations;
        }
    }

    // The nodes held between the passes (after b_n is computed and a_n released)
    // are a_0 and exactly the chosen checkpoints.
    void explicitCheckpointsAreHeldBetweenPasses_data() {
        QTest::addColumn<int>("n");
        QTest::addColumn<QList<int>>("checkpoints");
        QTest::newRow("none") << 6 << QList<int>{};
        QTest::newRow("one") << 6 << QList<int>{3};
        QTest::newRow("seed example") << 16 << QList<int>{3, 7, 11};
        QTest::newRow("last node") << 8 << QList<int>{7};
        QTest::newRow("all") << 5 << QList<int>{1, 2, 3, 4};
    }
    void explicitCheckpointsAreHeldBetweenPasses() {
        QFETCH(int, n);
        QFETCH(QList<int>, checkpoints);
        auto m = std::make_shared<const Model>(Model::chain(n));
        StrategyParams p;
        p.checkpoints = std::vector<int>(checkpoints.begin(), checkpoints.end());
        auto s = std::make_shared<const Schedule>(StrategyRegistry::builtin().get("checkpoints").makeSchedule(*m, p));
        const Replay r = Simulator::replay(m, s);
        std::int64_t t = 0;
        while (r.timeline.op(t) != Op::compute(m->backwardNode(n)))
            ++t;
        while (t + 1 < r.timeline.steps() && r.timeline.op(t + 1).kind == OpKind::Free)
            ++t;
        const StepState state = r.timeline.stateAt(t);
        QList<int> held;
        for (int i = 1; i <= n; ++i)
            if (state.resident[m->forwardNode(i)])
                held << i;
        QCOMPARE(held, checkpoints);
        QVERIFY(state.resident[m->inputNode()]);
        QCOMPARE(r.summary.forwardEvaluations, std::int64_t(2 * n - checkpoints.size() - 1));
    }

    void rejectsBadParameters_data() {
        QTest::addColumn<QString>("strategy");
        QTest::addColumn<int>("every");
        QTest::addColumn<QList<int>>("checkpoints");
        QTest::addColumn<QString>("message");
        QTest::newRow("k zero") << "periodic" << 0 << QList<int>{} << "--every must be from 1 to n = 10, got 0";
        QTest::newRow("k > n") << "periodic" << 11 << QList<int>{} << "got 11";
        QTest::newRow("out of range") << "checkpoints" << -1 << QList<int>{3, 10} << "checkpoint 10 is out of range";
        QTest::newRow("zero") << "checkpoints" << -1 << QList<int>{0} << "checkpoint 0 is out of range";
        QTest::newRow("unsorted") << "checkpoints" << -1 << QList<int>{5, 3} << "increasing order, got 3 after 5";
        QTest::newRow("duplicated") << "checkpoints" << -1 << QList<int>{3, 3} << "checkpoint 3 is listed twice";
        QTest::newRow("every on store-all") << "store-all" << 3 << QList<int>{} << "--every applies to periodic";
    }
    void rejectsBadParameters() {
        QFETCH(QString, strategy);
        QFETCH(int, every);
        QFETCH(QList<int>, checkpoints);
        QFETCH(QString, message);
        StrategyParams p;
        if (every >= 0)
            p.every = every;
        if (strategy == "checkpoints")
            p.checkpoints = std::vector<int>(checkpoints.begin(), checkpoints.end());
        try {
            StrategyRegistry::builtin().get(strategy.toStdString()).makeSchedule(Model::chain(10), p);
            QFAIL("expected InvalidArgument");
        } catch (const InvalidArgument &e) {
            QVERIFY2(QString(e.what()).contains(message), e.what());
        }
    }

    // estimate is public (the studio sizes its work with it): it validates
    // like makeSchedule instead of trusting out-of-range values.
    void estimateValidatesItsParameters() {
        const Model m = Model::chain(10);
        StrategyParams zero;
        zero.every = 0;
        QVERIFY_THROWS_EXCEPTION(InvalidArgument, StrategyRegistry::builtin().get("periodic").estimate(m, zero));
        StrategyParams outside;
        outside.checkpoints = std::vector<int>{4, 400};
        QVERIFY_THROWS_EXCEPTION(InvalidArgument, StrategyRegistry::builtin().get("checkpoints").estimate(m, outside));
    }

    void unknownStrategyNamesTheKnownOnes() {
        try {
            StrategyRegistry::builtin().get("sqrt");
            QFAIL("expected InvalidArgument");
        } catch (const InvalidArgument &e) {
            QVERIFY(QString(e.what()).contains("'sqrt'"));
            QVERIFY(QString(e.what()).contains("store-all"));
        }
    }

    // Refused from the analytic count, before the 10^12 ops could be allocated.
    void refusesSchedulesOverTheOpLimit() {
        const Model m = Model::chain(1'000'000);
        try {
            StrategyRegistry::builtin().get("recompute-all").makeSchedule(m, {});
            QFAIL("expected LimitExceeded");
        } catch (const LimitExceeded &e) {
            QVERIFY2(QString(e.what()).contains("5.0e+11 forward evaluations"), e.what());
            QVERIFY2(QString(e.what()).contains("n(n+1)/2"), e.what());
        }
        // The linear strategies fit at the same n.
        QCOMPARE(run("periodic", 1'000'000).forwardEvaluations <= 2'000'000, true);
    }
};

QTEST_GUILESS_MAIN(TestStrategies)
#include "test_strategies.moc"
