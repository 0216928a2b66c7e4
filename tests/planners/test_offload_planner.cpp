// The offload planner (offload-budget, core/planners/chain_offload.h): its
// recurrence predicts exactly the makespan the simulator times; it is never
// slower than the best recompute-only plan for the same device budget and
// equal to it on a link of 0 B/s; on an instant link it reaches store-all's
// time as soon as offload-all's memory fits; and against the exhaustive
// search over every schedule with transfers (core/planners/exhaustive_offload.h)
// it is never faster than the fastest (the referee is right) and its gap is
// reported.
#include "random_models.h"

#include "core/errors.h"
#include "core/frontier.h"
#include "core/planners/chain_offload.h"
#include "core/planners/exhaustive_offload.h"
#include "core/schedule_builder.h"
#include "core/simulator.h"
#include "core/strategy_registry.h"

#include <QTest>
#include <cmath>
#include <limits>

using namespace remat;

namespace {

Machine linkOf(double bandwidth, double latency = 0) {
    Machine m;
    m.link.bytesPerSecond = bandwidth;
    m.link.latencySeconds = latency;
    m.secondsPerCost = 1;
    return m;
}

Schedule planWith(const Model &model, const char *strategy, std::int64_t budget,
                  const std::optional<Machine> &machine) {
    StrategyParams p;
    p.budgetBytes = budget;
    p.machine = machine;
    return StrategyRegistry::builtin().get(strategy).makeSchedule(model, p);
}

std::int64_t storeAllPeak(const Model &model) {
    return Simulator::summarize(model, StrategyRegistry::builtin().get("store-all").makeSchedule(model, {})).peakBytes;
}

bool near(double a, double b) {
    return std::fabs(a - b) <= 1e-9 * std::max(1.0, std::fabs(b));
}

Model modelFor(int n, unsigned seed) {
    return seed % 2 ? test::randomChain(n, seed) : test::randomChainWithSaved(n, seed);
}

} // namespace

class OffloadPlannerTest : public QObject {
    Q_OBJECT
private slots:
    // The recurrence's value is the simulated makespan of the plan it emits:
    // its stalls really are local (docs/planners.md), and its plans fit.
    void predictedMakespanIsTheSimulated_data() {
        QTest::addColumn<int>("n");
        QTest::addColumn<unsigned>("seed");
        for (unsigned seed = 1; seed <= 30; ++seed)
            QTest::addRow("n=%d seed=%u", 2 + int(seed % 11), seed) << 2 + int(seed % 11) << seed;
    }
    void predictedMakespanIsTheSimulated() {
        QFETCH(int, n);
        QFETCH(unsigned, seed);
        const Model model = modelFor(n, seed);
        const planners::Weights w = planners::weightsFor(model, planners::BudgetUnit::Bytes);
        const std::int64_t low = planners::offloadMinimumPeak(model, w, true), top = storeAllPeak(model);
        int withTransfers = 0;
        for (const Machine &machine : {linkOf(0.3), linkOf(1, 0.5), linkOf(4), linkOf(1e12)})
            for (std::int64_t budget : {low, low + 1, low + 3, (low + top) / 2, top}) {
                const auto plan = planners::offloadChainPlan(model, w, static_cast<int>(budget), machine, {});
                QVERIFY2(plan.has_value(),
                         qPrintable(QString("budget %1 >= the class's minimum %2").arg(budget).arg(low)));
                Schedule s;
                s.ops = insertFrees(model, plan->ops);
                const Summary sum = Simulator::summarize(model, s, machine);
                QVERIFY2(near(sum.makespanSeconds, plan->seconds),
                         qPrintable(QString("budget %1: predicted %2, simulated %3")
                                        .arg(budget)
                                        .arg(plan->seconds)
                                        .arg(sum.makespanSeconds)));
                QVERIFY(sum.peakBytes <= budget);
                withTransfers += sum.offloads > 0 ? 1 : 0;
            }
        if (n >= 4)
            QVERIFY2(withTransfers > 0, "some plan offloads");
        // Below the class's minimum nothing fits.
        QVERIFY(!planners::offloadChainPlan(model, w, static_cast<int>(low - 1), linkOf(1), {}).has_value());
    }

    // Never slower than the least-compute recompute-only plan (budget) for the
    // same device budget, and the same plan on a link of 0 B/s.
    void neverSlowerThanRecomputation_data() {
        QTest::addColumn<int>("n");
        QTest::addColumn<unsigned>("seed");
        for (unsigned seed = 1; seed <= 16; ++seed)
            QTest::addRow("n=%d seed=%u", 3 + int(seed % 14), seed) << 3 + int(seed % 14) << seed;
    }
    void neverSlowerThanRecomputation() {
        QFETCH(int, n);
        QFETCH(unsigned, seed);
        const Model model = modelFor(n, seed);
        const std::int64_t low = planners::minimumFeasibleBudget(model, planners::BudgetUnit::Bytes);
        const std::int64_t top = storeAllPeak(model);
        for (std::int64_t budget : {low, low + 2, (2 * low + top) / 3, (low + top) / 2, top}) {
            const Schedule recompute = planWith(model, "budget", budget, std::nullopt);
            for (const Machine &machine : {linkOf(0.25), linkOf(2, 0.1), linkOf(50)}) {
                const Summary r = Simulator::summarize(model, recompute, machine);
                const Summary o =
                    Simulator::summarize(model, planWith(model, "offload-budget", budget, machine), machine);
                QVERIFY2(o.makespanSeconds <= r.makespanSeconds * (1 + 1e-12),
                         qPrintable(QString("budget %1: offload %2 > recompute %3")
                                        .arg(budget)
                                        .arg(o.makespanSeconds)
                                        .arg(r.makespanSeconds)));
                QVERIFY(o.peakBytes <= budget);
            }
            // A link of 0 B/s offloads nothing: the recompute-only plan itself.
            const Machine none = linkOf(0);
            const Schedule zero = planWith(model, "offload-budget", budget, none);
            QVERIFY(zero.ops == recompute.ops);
            QCOMPARE(Simulator::summarize(model, zero, none).makespanSeconds,
                     Simulator::summarize(model, recompute, none).makespanSeconds);
        }
    }

    // An instant link hides every transfer: once offload-all's memory fits,
    // the planner runs in store-all's time, recomputing nothing.
    void instantLinkReachesStoreAllsTime() {
        for (int n : {3, 8, 20, 64}) {
            const Model model = Model::chain(n);
            const Machine instant = linkOf(std::numeric_limits<double>::infinity());
            StrategyParams p;
            p.machine = instant;
            const Summary all = Simulator::summarize(
                model, StrategyRegistry::builtin().get("offload-all").makeSchedule(model, p), instant);
            const Summary storeAll = Simulator::summarize(
                model, StrategyRegistry::builtin().get("store-all").makeSchedule(model, {}), instant);
            const Summary planned =
                Simulator::summarize(model, planWith(model, "offload-budget", all.peakBytes, instant), instant);
            QCOMPARE(planned.makespanSeconds, storeAll.makespanSeconds);
            QCOMPARE(planned.recomputations, std::int64_t(0));
            QVERIFY(planned.peakBytes <= all.peakBytes);
        }
    }

    // The exhaustive search over every schedule (computes, frees, offloads,
    // prefetches, in any order) finds the fastest; the planner is never
    // faster, ties it where its class holds the fastest, and is reported.
    void againstExhaustiveSearch_data() {
        QTest::addColumn<int>("n");
        QTest::addColumn<unsigned>("seed");
        for (unsigned seed = 1; seed <= 12; ++seed)
            QTest::addRow("n=%d seed=%u", 2 + int(seed % 3), seed) << 2 + int(seed % 3) << seed;
    }
    void againstExhaustiveSearch() {
        QFETCH(int, n);
        QFETCH(unsigned, seed);
        const Model model = test::randomChain(n, seed);
        const planners::Weights w = planners::weightsFor(model, planners::BudgetUnit::Bytes);
        const std::int64_t low = planners::offloadMinimumPeak(model, w, true), top = storeAllPeak(model);
        int ties = 0, budgets = 0;
        double worst = 1;
        for (const Machine &machine : {linkOf(0.5), linkOf(2)})
            for (std::int64_t budget : {low, low + 2, (low + top) / 2, top}) {
                const auto referee = planners::fastestSchedule(model, budget, machine);
                QVERIFY(referee.has_value());
                // The referee's schedule is valid, fits, and takes what it says.
                const Summary counted = Simulator::summarize(model, referee->schedule, machine);
                QVERIFY(near(counted.makespanSeconds, referee->makespanSeconds));
                QVERIFY(counted.peakBytes <= budget);
                const Summary planned =
                    Simulator::summarize(model, planWith(model, "offload-budget", budget, machine), machine);
                QVERIFY2(planned.makespanSeconds >= referee->makespanSeconds - 1e-9,
                         "the referee searches every schedule");
                ties += planned.makespanSeconds <= referee->makespanSeconds + 1e-9 ? 1 : 0;
                worst = std::max(worst, planned.makespanSeconds / referee->makespanSeconds);
                ++budgets;
            }
        qInfo("n = %d: planner equals exhaustive search at %d of %d budgets, worst %.3f x", n, ties, budgets, worst);
        // With every byte store-all needs, both run in store-all's time.
        QVERIFY(ties >= 2);
    }

    // The referee itself: nothing fits below a_0, and with a link it is never
    // slower than the recompute-only referee's cheapest schedule.
    void refereeAgreesWithTheRecomputeOnlyOneWithoutTransfers() {
        const Model model = test::randomChain(3, 7);
        QVERIFY(!planners::fastestSchedule(model, model.bytes(model.inputNode()) - 1, linkOf(1)).has_value());
        const std::int64_t top = storeAllPeak(model);
        const auto withLink = planners::fastestSchedule(model, top, linkOf(1));
        QVERIFY(withLink.has_value());
        // Store-all's memory: nothing beats computing everything once.
        const Summary storeAll = Simulator::summarize(
            model, StrategyRegistry::builtin().get("store-all").makeSchedule(model, {}), linkOf(1));
        QVERIFY(near(withLink->makespanSeconds, storeAll.makespanSeconds));
        QVERIFY_THROWS_EXCEPTION(LimitExceeded, planners::fastestSchedule(test::randomChain(9, 1), 100, linkOf(1)));
        QVERIFY_THROWS_EXCEPTION(InvalidArgument,
                                 planners::fastestSchedule(test::randomChainWithSaved(3, 2), 100, linkOf(1)));
    }

    void refusesWhatItCannotPlan_data() {
        QTest::addColumn<int>("what");
        QTest::addColumn<QString>("message");
        QTest::newRow("no machine") << 0 << "offload-budget moves activations between device and host";
        QTest::newRow("a node budget") << 1 << "offload-budget needs a device budget in bytes";
        QTest::newRow("a graph") << 2 << "offload-budget works on chains";
        QTest::newRow("below the minimum") << 3 << "is below the least device memory of these plans";
    }
    void refusesWhatItCannotPlan() {
        QFETCH(int, what);
        QFETCH(QString, message);
        Model model = what == 2 ? test::randomGraph(6, 3) : Model::chain(6);
        StrategyParams p;
        if (what != 0)
            p.machine = linkOf(1);
        if (what == 1)
            p.budgetNodes = 5;
        else
            p.budgetBytes = what == 3 ? 2 : 100;
        try {
            StrategyRegistry::builtin().get("offload-budget").makeSchedule(model, p);
            QFAIL("expected InvalidArgument");
        } catch (const InvalidArgument &e) {
            QVERIFY2(QString(e.what()).contains(message), e.what());
        }
    }

    // A host budget is respected: a plan over it is dropped for one that fits.
    void respectsTheHostBudget() {
        const Model model = Model::chain(20);
        Machine machine = linkOf(1e12);
        const std::int64_t budget = 8;
        const Summary free = Simulator::summarize(model, planWith(model, "offload-budget", budget, machine), machine);
        QVERIFY(free.peakHostBytes > 1);
        machine.hostBudgetBytes = 1;
        const Schedule tight = planWith(model, "offload-budget", budget, machine);
        QVERIFY(Simulator::summarize(model, tight, machine).peakHostBytes <= 1);
        QVERIFY(QString::fromStdString(tight.description).contains("over the host budget"));
    }

    // The trade-off curve with a link: offload points never above
    // recomputation's time at their peak, offload-all among the named points,
    // and where offloading wins (4 MiB layers, a fast link) it is seen.
    void frontierShowsWhereOffloadingWins() {
        ChainSpec spec;
        spec.nodeBytes = 4 << 20;
        spec.forwardCost = 0.43e-3; // 8.59 GFLOP at 20 TFLOP/s
        spec.backwardCost = 0.86e-3;
        Model model = Model::chain(16, spec);
        model.setCostUnit("s");
        FrontierOptions options;
        options.samples = 8;
        options.machine = linkOf(16e9);
        const Frontier f = computeFrontier(model, options);
        QVERIFY(f.timed);
        QVERIFY(!f.offloadCurve.empty());
        bool wins = false;
        for (const FrontierPoint &p : f.offloadCurve) {
            const double recompute = frontierCostAt(f, p.peakBytes) * f.secondsPerCost;
            QVERIFY(p.makespanSeconds <= recompute * (1 + 1e-12));
            wins = wins || (p.offloads > 0 && p.makespanSeconds < recompute * 0.9);
        }
        QVERIFY2(wins, "offloading beats recomputation by 10% somewhere");
        bool offloadAll = false;
        for (const NamedPoint &p : f.named)
            offloadAll = offloadAll || p.strategy == "offload-all";
        QVERIFY(offloadAll);
        // The recompute curve is the one without a link.
        options.machine.reset();
        const Frontier plain = computeFrontier(model, options);
        QCOMPARE(plain.curve.size(), f.curve.size());
        for (std::size_t k = 0; k < f.curve.size(); ++k)
            QCOMPARE(plain.curve[k].cost, f.curve[k].cost);
        QVERIFY(QString::fromStdString(frontierCsv(f)).contains("\noffload,"));
        QVERIFY(!QString::fromStdString(frontierCsv(plain)).contains("makespan"));
    }
};

QTEST_GUILESS_MAIN(OffloadPlannerTest)
#include "test_offload_planner.moc"
