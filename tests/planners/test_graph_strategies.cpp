// Strategies on graphs with skip connections: articulation points, the DAG
// forms of recompute-all and checkpoints, `auto`, and the graph heuristic's
// gap to exhaustive search (the heuristic now starts the graph planner's
// search; tests/planners/test_graph_exact.cpp checks the planner itself).
#include "random_models.h"

#include "core/errors.h"
#include "core/planners/dag_budget.h"
#include "core/planners/dag_plans.h"
#include "core/planners/exhaustive.h"
#include "core/schedule_builder.h"
#include "core/simulator.h"
#include "core/strategy_registry.h"

#include <QTest>

using namespace remat;

namespace {

Summary run(const std::string &strategy, const Model &model, StrategyParams params = {}) {
    return Simulator::summarize(model, StrategyRegistry::builtin().get(strategy).makeSchedule(model, params));
}

// Two residual blocks: 0 -> 1 -> 2 -> 3 (+1) -> 4 -> 5 (+3) -> 6.
Model residualPair() {
    std::vector<ForwardSpec> specs(7);
    specs[1].inputs = {0};
    specs[2].inputs = {1};
    specs[3].inputs = {2, 1};
    specs[4].inputs = {3};
    specs[5].inputs = {4, 3};
    specs[6].inputs = {5};
    return Model::fromForward(specs);
}

} // namespace

class GraphStrategiesTest : public QObject {
    Q_OBJECT
private slots:
    void articulationPointsAreTheBottlenecks() {
        QCOMPARE(planners::articulationPoints(residualPair()), (std::vector<int>{1, 3, 5}));
        QCOMPARE(planners::articulationPoints(Model::chain(5)), (std::vector<int>{1, 2, 3, 4}));
    }

    void autoTakesAboutSqrtNOfThem() {
        // A chain of 100: 99 bottlenecks, about 10 kept, evenly spaced.
        const auto picked = planners::autoCheckpoints(Model::chain(100));
        QVERIFY(picked.size() >= 9 && picked.size() <= 11);
        for (std::size_t k = 1; k < picked.size(); ++k)
            QCOMPARE(picked[k] - picked[k - 1], picked[1] - picked[0]);
        // sqrt(6) < 3 bottlenecks: every second one.
        QCOMPARE(planners::autoCheckpoints(residualPair()), (std::vector<int>{3}));
    }

    // On a chain the segment plan recomputes each segment once: 2n - |C| - 1
    // forward evaluations, and the count without building agrees with the order.
    void segmentOrderOnAChainRecomputesEachSegmentOnce() {
        const Model chain = Model::chain(20);
        for (const std::vector<int> &cps : {std::vector<int>{}, std::vector<int>{5, 10, 15}, std::vector<int>{1, 19}}) {
            const auto order = planners::segmentOrder(chain, cps);
            const auto forward =
                std::count_if(order.begin(), order.end(), [&](NodeId id) { return !chain.isBackward(id); });
            QCOMPARE(double(forward), double(2 * 20 - cps.size() - 1));
            QCOMPARE(planners::segmentOrderForwardEvaluations(chain, cps), double(forward));
        }
    }

    void graphStrategiesProduceValidSchedules_data() {
        QTest::addColumn<unsigned>("seed");
        for (unsigned seed = 1; seed <= 12; ++seed)
            QTest::addRow("seed=%u", seed) << seed;
    }
    void graphStrategiesProduceValidSchedules() {
        QFETCH(unsigned, seed);
        const Model model = test::randomGraph(30, seed);
        for (const char *name : {"store-all", "recompute-all", "auto"}) {
            const Summary s = run(name, model); // throws if the simulator rejects it
            QCOMPARE(s.backwardOps, std::int64_t(model.forwardCount()));
        }
        StrategyParams p;
        p.checkpoints = std::vector<int>{4, 11, 20};
        const Summary cps = run("checkpoints", model, p);
        QVERIFY(cps.forwardEvaluations >= model.layers());
        // recompute-all holds least, store-all recomputes nothing.
        QCOMPARE(run("store-all", model).recomputations, std::int64_t(0));
        QVERIFY(run("recompute-all", model).peakNodes <= run("store-all", model).peakNodes);
    }

    void chainOnlyStrategiesRefuseGraphs() {
        for (const char *name : {"revolve", "recursive", "periodic"}) {
            try {
                run(name, residualPair());
                QFAIL(name);
            } catch (const InvalidArgument &e) {
                QVERIFY2(QString(e.what()).contains("skip connections"), e.what());
            }
        }
    }

    // The heuristic stays within budget; its cost against exhaustive search is
    // the gap reported in docs/planners.md.
    void budgetHeuristicGapAgainstExhaustiveSearch() {
        double worst = 1, total = 0;
        int cases = 0, missed = 0;
        for (unsigned seed = 1; seed <= 30; ++seed) {
            const Model model = test::randomGraph(4 + int(seed % 4), seed);
            if (model.isChain())
                continue;
            const std::int64_t top = run("store-all", model).peakBytes;
            for (std::int64_t budget = 1; budget <= top; ++budget) {
                const auto best = planners::cheapestSchedule(model, budget);
                if (!best)
                    continue;
                try {
                    const planners::DagPlan plan = planners::planDagBudget(model, planners::BudgetUnit::Bytes, budget);
                    Schedule schedule;
                    schedule.ops = insertFrees(model, plan.order, lastCheckpoint(plan.checkpoints));
                    const Summary s = Simulator::summarize(model, schedule);
                    QVERIFY(s.peakBytes <= budget);
                    QVERIFY(s.cost >= best->cost - 1e-9); // the referee is never beaten
                    const double ratio = s.cost / best->cost;
                    worst = std::max(worst, ratio);
                    total += ratio;
                    ++cases;
                } catch (const InvalidArgument &) {
                    ++missed; // feasible, but below what the heuristic reaches
                }
            }
        }
        qInfo("graph budget heuristic: %d budgets, mean cost ratio %.3f, worst %.3f, %d feasible budgets missed", cases,
              total / cases, worst, missed);
        // Regression bounds around what was measured (mean 1.046, worst 2.125,
        // 2 of 164 feasible budgets missed; docs/planners.md): the heuristic
        // only searches checkpoint-segment plans, which tight budgets punish.
        QVERIFY(cases > 150);
        QVERIFY2(total / cases <= 1.08, qPrintable(QString::number(total / cases)));
        QVERIFY2(worst <= 2.2, qPrintable(QString::number(worst)));
        QVERIFY2(missed <= 4, qPrintable(QString::number(missed)));
    }
};

QTEST_GUILESS_MAIN(GraphStrategiesTest)
#include "test_graph_strategies.moc"
