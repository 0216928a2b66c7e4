// revolve and recursive on chains: forward evaluations counted by the
// simulator against Griewank & Walther's formula, computed here from its
// definition with Pascal's triangle (no code shared with the planner).
#include "core/errors.h"
#include "core/planners/binomial.h"
#include "core/simulator.h"
#include "core/strategy_registry.h"

#include <QTest>
#include <cmath>

using namespace remat;

namespace {

// C(m, k) from Pascal's triangle, as doubles (exact below 2^53 for our sizes).
double choose(int m, int k) {
    if (k < 0 || k > m)
        return 0;
    std::vector<double> row{1};
    for (int i = 1; i <= m; ++i) {
        std::vector<double> next(i + 1, 1);
        for (int j = 1; j < i; ++j)
            next[j] = row[j - 1] + row[j];
        row = std::move(next);
    }
    return row[k];
}

// T(l, c) = r l - beta(c+1, r-1) with beta(c, r-1) < l <= beta(c, r), beta(s, t) = C(s+t, s).
double binomialMinimum(int l, int c) {
    auto beta = [](int s, int t) { return t < 0 ? 0.0 : choose(s + t, s); };
    int r = 0;
    while (beta(c, r) < l)
        ++r;
    return r * double(l) - beta(c + 1, r - 1);
}

Summary run(const std::string &strategy, const Model &model, StrategyParams params = {}) {
    return Simulator::summarize(model, StrategyRegistry::builtin().get(strategy).makeSchedule(model, params));
}

} // namespace

class RevolveTest : public QObject {
    Q_OBJECT
private slots:
    void forwardEvaluationsAreTheBinomialMinimum_data() {
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("c");
        for (int n : {1, 2, 3, 4, 7, 10, 16, 31, 64, 100, 255, 1000})
            for (int c : {1, 2, 3, 4, 5, 8, 13})
                QTest::addRow("n=%d c=%d", n, c) << n << c;
        QTest::addRow("n=5000 c=20") << 5000 << 20;
        QTest::addRow("n=5000 c=3") << 5000 << 3;
    }
    void forwardEvaluationsAreTheBinomialMinimum() {
        QFETCH(int, n);
        QFETCH(int, c);
        StrategyParams p;
        p.checkpointSlots = c;
        const Summary s = run("revolve", Model::chain(n), p);
        QCOMPARE(double(s.forwardEvaluations), binomialMinimum(n + 1, c));
        QCOMPARE(s.backwardOps, std::int64_t(n + 1));
        // c slots, the working node and the one it came from, two gradients.
        QVERIFY2(s.peakNodes <= c + 3, qPrintable(QString::number(s.peakNodes)));
    }

    // The formula is the least cost of any split plan: the recurrence over the
    // first advance d, solved by brute force, gives the same numbers.
    void formulaIsTheMinimumOverSplits() {
        const int maxL = 80, maxC = 6;
        std::vector<std::vector<double>> best(maxL + 1, std::vector<double>(maxC + 1, INFINITY));
        for (int c = 0; c <= maxC; ++c)
            best[1][c] = 0;
        for (int l = 2; l <= maxL; ++l)
            for (int c = 1; c <= maxC; ++c)
                for (int d = 1; d < l; ++d)
                    best[l][c] = std::min(best[l][c], d + best[l - d][c - 1] + best[d][c]);
        for (int l = 1; l <= maxL; ++l)
            for (int c = 1; c <= maxC; ++c) {
                QCOMPARE(best[l][c], binomialMinimum(l, c));
                QCOMPARE(double(planners::revolveForwardSteps(l, c)), binomialMinimum(l, c));
                if (l >= 2) {
                    const auto d = planners::revolveAdvance(l, c);
                    QVERIFY(d >= 1 && d < l);
                    QCOMPARE(d + best[l - d][c - 1] + best[d][c], best[l][c]);
                }
            }
    }

    void lessThanOneSlotIsRefused() {
        StrategyParams p;
        p.checkpointSlots = 0;
        try {
            StrategyRegistry::builtin().get("revolve").makeSchedule(Model::chain(10), p);
            QFAIL("no error for 0 slots");
        } catch (const InvalidArgument &e) {
            QVERIFY2(QString(e.what()).contains("--slots must be at least 1"), e.what());
        }
    }

    void enoughSlotsIsStoreAll_data() {
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("c");
        QTest::newRow("c = n+1") << 12 << 13;
        QTest::newRow("c > n+1") << 12 << 40;
    }
    void enoughSlotsIsStoreAll() {
        QFETCH(int, n);
        QFETCH(int, c);
        const Model m = Model::chain(n);
        StrategyParams p;
        p.checkpointSlots = c;
        const Schedule revolve = StrategyRegistry::builtin().get("revolve").makeSchedule(m, p);
        const Schedule storeAll = StrategyRegistry::builtin().get("store-all").makeSchedule(m, {});
        QCOMPARE(revolve.ops, storeAll.ops);
    }

    void largeChainStaysCheap() {
        StrategyParams p;
        p.checkpointSlots = 100;
        const Summary s = run("revolve", Model::chain(100000), p);
        QCOMPARE(double(s.forwardEvaluations), binomialMinimum(100001, 100));
    }

    void recursiveIsLogarithmic_data() {
        QTest::addColumn<int>("n");
        for (int n : {1, 2, 3, 8, 15, 16, 100, 1000, 4096, 10000})
            QTest::addRow("n=%d", n) << n;
    }
    void recursiveIsLogarithmic() {
        QFETCH(int, n);
        const Summary s = run("recursive", Model::chain(n));
        const double levels = std::ceil(std::log2(n + 1.0));
        // One kept node per halving, plus the working pair and two gradients.
        QVERIFY2(s.peakNodes <= levels + 4, qPrintable(QString("peak %1, levels %2").arg(s.peakNodes).arg(levels)));
        // Each halving level re-runs at most the whole chain once.
        QVERIFY2(s.forwardEvaluations <= n * (levels + 1), qPrintable(QString("forward %1").arg(s.forwardEvaluations)));
        QCOMPARE(s.backwardOps, std::int64_t(n + 1));
    }
};

QTEST_GUILESS_MAIN(RevolveTest)
#include "test_revolve.moc"
