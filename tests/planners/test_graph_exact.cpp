// The graph planner (core/planners/graph_exact.h): on random small graphs,
// with and without saved internals, its plan at every budget costs exactly
// what exhaustive search over its class finds, never less than exhaustive
// search over every schedule, and it is called optimal there; on chains it
// agrees with the dynamic programme; store-all's budget gives store-all;
// below every plan it names the least peak; on the shipped graph models dtr
// is never cheaper than its plan.
#include "random_models.h"
#include "tests/common/sanitized_sample.h"

#include "core/errors.h"
#include "core/model_io.h"
#include "core/planners/chain_budget.h"
#include "core/planners/dtr_runtime.h"
#include "core/planners/exhaustive.h"
#include "core/planners/graph_exact.h"
#include "core/planners/graph_milp.h"
#include "core/schedule_builder.h"
#include "core/simulator.h"
#include "core/strategy_registry.h"
#include "core/units.h"

#include <QDir>
#include <QTest>

#include <optional>

using namespace remat;

namespace {

Summary counted(const Model &model, const std::vector<Op> &computes) {
    Schedule s;
    s.ops = insertFrees(model, computes);
    return Simulator::summarize(model, s);
}

std::int64_t storeAllPeak(const Model &model) {
    return counted(model, computeOps(model, storeAllOrder(model))).peakBytes;
}

planners::GraphExactOptions proving() {
    planners::GraphExactOptions o;
    o.effort = 1'000'000; // small problems: the solver closes them long before
    return o;
}

} // namespace

class GraphExactTest : public QObject {
    Q_OBJECT
private slots:
    void equalsExhaustiveSearchOverItsClass_data() {
        QTest::addColumn<bool>("withSaved");
        QTest::newRow("plain") << false;
        QTest::newRow("saved internals") << true;
    }
    void equalsExhaustiveSearchOverItsClass() {
        QFETCH(bool, withSaved);
        int budgets = 0, graphs = 0, outsideCheaper = 0;
        for (unsigned seed = 1; seed <= 100; ++seed) {
            if (!test::caseRuns(seed))
                continue;
            const Model model = test::randomSmallGraph(seed, withSaved);
            ++graphs;
            const std::int64_t top = storeAllPeak(model);
            // From store-all's peak down: below the first budget the class cannot meet, none meets it.
            for (std::int64_t budget = top; budget >= 1; --budget) {
                const auto inClass = planners::cheapestSchedule(model, budget, planners::Measure::Bytes,
                                                                planners::ScheduleClass::StoreAllOrderStages);
                // Over every schedule the search grows fastest: the largest graphs are left to the class check.
                const auto overAll = model.forwardCount() <= 5 ? planners::cheapestSchedule(model, budget)
                                                               : std::optional<planners::ExhaustiveResult>();
                const bool refereed = model.forwardCount() <= 5;
                if (!inClass) {
                    try {
                        const auto plan = planners::planGraphExact(model, planners::BudgetUnit::Bytes, budget);
                        // Only a plan from outside the class (dtr's) may fit here.
                        QVERIFY(overAll || !refereed);
                        QVERIFY(plan.peak <= budget);
                        QVERIFY(!plan.optimal);
                    } catch (const InvalidArgument &e) {
                        QVERIFY2(QString(e.what()).contains("below every plan"), e.what());
                    }
                    break;
                }
                QVERIFY(overAll || !refereed);
                const auto plan = planners::planGraphExact(model, planners::BudgetUnit::Bytes, budget, proving());
                const Summary s = counted(model, plan.computes);
                QCOMPARE(s.peakBytes, plan.peak);
                QCOMPARE(s.cost, plan.cost);
                QVERIFY(plan.peak <= budget);
                if (overAll)
                    QVERIFY2(plan.cost >= overAll->cost - 1e-9, "cheaper than exhaustive search over every schedule");
                QVERIFY2(plan.cost <= inClass->cost + 1e-9,
                         qPrintable(QString("seed %1 budget %2: plan %3, class optimum %4")
                                        .arg(seed)
                                        .arg(budget)
                                        .arg(plan.cost)
                                        .arg(inClass->cost)));
                if (plan.optimal)
                    QVERIFY2(std::abs(plan.cost - inClass->cost) <= 1e-9 || plan.cost < inClass->cost,
                             "called optimal but not the class's optimum");
                QVERIFY2(plan.optimal || plan.cost < inClass->cost - 1e-9,
                         qPrintable(QString("seed %1 budget %2: not proven").arg(seed).arg(budget)));
                if (overAll && inClass->cost > overAll->cost + 1e-9)
                    ++outsideCheaper;
                ++budgets;
            }
        }
        qInfo("%d graphs, %d budgets: every plan equals the class's optimum; a schedule outside the class is "
              "cheaper at %d of them",
              graphs, budgets, outsideCheaper);
        QVERIFY(budgets > test::sampledCount(300));
    }

    // Where the stage search runs out of work between the bounds it raises,
    // the lower bound it leaves stays true: never above the class's optimum,
    // and above what the solver alone proved at some budgets.
    void boundsRaisedByAnUnfinishedSearchHold() {
        int budgets = 0, raised = 0, stopped = 0;
        for (unsigned seed = 1; seed <= 40; ++seed) {
            if (!test::caseRuns(seed))
                continue;
            const Model model = test::randomSmallGraph(seed, true);
            const std::int64_t top = storeAllPeak(model);
            for (std::int64_t budget = top - 1; budget >= top / 3; budget -= std::max<std::int64_t>(1, top / 30)) {
                const auto inClass = planners::cheapestSchedule(model, budget, planners::Measure::Bytes,
                                                                planners::ScheduleClass::StoreAllOrderStages);
                if (!inClass)
                    break;
                planners::GraphExactOptions milpOnly, cut;
                milpOnly.effort = cut.effort = 1;
                milpOnly.searchWork = 0;
                cut.searchWork = 2'000;
                planners::GraphExactPlan alone, plan;
                try {
                    alone = planners::planGraphExact(model, planners::BudgetUnit::Bytes, budget, milpOnly);
                    plan = planners::planGraphExact(model, planners::BudgetUnit::Bytes, budget, cut);
                } catch (const InvalidArgument &) {
                    continue; // with this little work nothing was found that fits
                }
                const QString where = QString("seed %1, budget %2").arg(seed).arg(budget);
                QVERIFY2(plan.lowerBound <= inClass->cost + 1e-9,
                         qPrintable(where + QString(": bound %1 above the optimum %2")
                                                .arg(plan.lowerBound)
                                                .arg(inClass->cost)));
                QVERIFY2(plan.cost >= plan.lowerBound - 1e-9, qPrintable(where + ": plan below its own bound"));
                if (plan.optimal)
                    QVERIFY2(std::abs(plan.cost - inClass->cost) <= 1e-9, qPrintable(where + ": optimal but not least"));
                raised += plan.lowerBound > alone.lowerBound + 1e-9;
                stopped += !plan.optimal;
                ++budgets;
            }
        }
        qInfo("%d budgets: the search stopped short at %d, raised the solver's bound at %d", budgets, stopped, raised);
        QVERIFY(stopped > 0);
        QVERIFY(raised > 0);
    }

    // On a chain the class is every schedule: the planner equals exhaustive
    // search, and the dynamic programme where that one says it is exact.
    void agreesWithTheChainProgramme() {
        int exactDp = 0;
        for (unsigned seed = 1; seed <= 20; ++seed) {
            if (!test::caseRuns(seed))
                continue;
            const Model chain = seed % 2 ? test::randomChain(3 + int(seed % 4), seed)
                                         : test::randomChainWithSaved(3 + int(seed % 4), seed);
            const std::int64_t top = storeAllPeak(chain);
            for (std::int64_t budget = planners::minimumFeasibleBudget(chain, planners::BudgetUnit::Bytes);
                 budget <= top; ++budget) {
                planners::ChainBudget b;
                b.amount = budget;
                const planners::ChainPlan dp = planners::planChainBudget(chain, b);
                const double dpCost = counted(chain, dp.computes.empty()
                                                         ? computeOps(chain, dp.order, lastCheckpoint(dp.checkpoints))
                                                         : dp.computes)
                                          .cost;
                const auto best = planners::cheapestSchedule(chain, budget);
                QVERIFY(best);
                const auto plan = planners::planGraphExact(chain, planners::BudgetUnit::Bytes, budget, proving());
                const QString where = QString("seed %1 budget %2: MILP %3, DP %4 (%5), exhaustive %6")
                                          .arg(seed)
                                          .arg(budget)
                                          .arg(plan.cost)
                                          .arg(dpCost)
                                          .arg(QString::fromStdString(dp.description))
                                          .arg(best->cost);
                QVERIFY2(plan.optimal, qPrintable(where));
                QVERIFY2(std::abs(plan.cost - best->cost) <= 1e-9, qPrintable(where));
                QVERIFY2(plan.cost <= dpCost + 1e-9, qPrintable(where));
                if (dp.description.find("exact") != std::string::npos &&
                    dp.description.find("keep") == std::string::npos) {
                    QVERIFY2(std::abs(plan.cost - dpCost) <= 1e-9, qPrintable(where));
                    ++exactDp;
                }
            }
        }
        QVERIFY(exactDp > test::sampledCount(20));
    }

    void storeAllAtItsOwnPeak() {
        const Model model = test::randomGraph(12, 5);
        const std::int64_t top = storeAllPeak(model);
        for (std::int64_t budget : {top, top + 1, 2 * top}) {
            const auto plan = planners::planGraphExact(model, planners::BudgetUnit::Bytes, budget);
            QVERIFY(plan.storeAll && plan.optimal);
            QCOMPARE(plan.cost, counted(model, computeOps(model, storeAllOrder(model))).cost);
        }
    }

    void belowEveryPlanNamesTheLeastPeak() {
        const Model model = test::randomGraph(6, 3);
        try {
            planners::planGraphExact(model, planners::BudgetUnit::Bytes, 1, proving());
            QFAIL("planned within 1 byte");
        } catch (const InvalidArgument &e) {
            const QString message = e.what();
            QVERIFY2(message.contains("budget 1 B") && message.contains("least peak of a plan"), e.what());
            // The least peak named is a plan's: planning at it succeeds.
            const auto least = planners::minimumGraphPeak(model, planners::BudgetUnit::Bytes, proving());
            QVERIFY2(message.contains(QString::fromStdString(formatBytes(least.peak))), e.what());
            QVERIFY(least.lowerBound <= least.peak);
            const auto plan = planners::planGraphExact(model, planners::BudgetUnit::Bytes, least.peak, proving());
            QVERIFY(plan.peak <= least.peak);
            try {
                planners::planGraphExact(model, planners::BudgetUnit::Bytes, least.lowerBound - 1, proving());
                QFAIL("planned below the proven bound");
            } catch (const InvalidArgument &) {
            }
        }
    }

    // What a plan says of its proof: a gap too small for two decimals keeps its
    // exponent rather than reading "0.0000 %" beside a plan not called optimal.
    void proofTexts() {
        planners::GraphExactPlan plan;
        plan.cost = 100;
        QCOMPARE(plan.proof(), std::string("no bound proven"));
        plan.lowerBound = 96;
        QCOMPARE(plan.proof(), std::string("within 4.17 % of the least (proven bound)"));
        plan.lowerBound = 100 - 1e-5;
        QCOMPARE(plan.proof(), std::string("within 1.0e-05 % of the least (proven bound)"));
        plan.optimal = true;
        QCOMPARE(plan.proof(), std::string("optimal (gap 0)"));
    }

    void badEffortIsRefused() {
        planners::GraphExactOptions o;
        o.effort = -1;
        const Model model = test::randomGraph(6, 3);
        try {
            planners::planGraphExact(model, planners::BudgetUnit::Bytes, storeAllPeak(model) - 1, o);
            QFAIL("negative effort taken");
        } catch (const InvalidArgument &e) {
            QVERIFY2(QString(e.what()).contains("got -1"), e.what());
        }
    }

    // A node's frees share its presence (graph_milp.cpp): without that row the
    // LP frees a node after each of its readers, and the root bound at U-Net's
    // least budget proved only 56 % (the plan costs 1.56 times the bound);
    // with it the root alone proves 29.62 %.
    void freesSharePresenceAtTheRoot() {
        const Model model =
            loadModelFile(std::string(qgetenv("REMAT_SOURCE_DIR").constData()) + "/resources/models/unet-batch8.json")
                .model;
        planners::GraphExactOptions root;
        root.effort = 0;
        const auto plan = planners::planGraphExact(model, planners::BudgetUnit::Bytes, 706'740'224, root);
        QVERIFY(plan.lowerBound > 0);
        QVERIFY2(plan.cost <= 1.35 * plan.lowerBound, qPrintable(QString::fromStdString(plan.proof())));
    }

    // The runtime never beats a plan: the planner starts from dtr's
    // schedules, so at every budget its plan costs no more. Every shipped
    // model that is a graph the MILP takes, op-level files planned at block
    // level included (beyond kMaxGraphMilpLayers a plan is never called
    // optimal: it is the cheapest known one, dtr's among them).
    void dtrNeverCheaperOnShippedGraphs_data() {
        QTest::addColumn<QString>("file");
        const QDir models(QString::fromLocal8Bit(qgetenv("REMAT_SOURCE_DIR")) + "/resources/models");
        int graphs = 0;
        for (const QString &f : models.entryList({"*.json"}, QDir::Files, QDir::Name))
            if (const Model m = loadModelFile(models.filePath(f).toStdString()).model;
                !m.isChain() && m.layers() <= planners::kMaxGraphMilpLayers) {
                QTest::newRow(qPrintable(f)) << f;
                ++graphs;
            }
        QVERIFY(graphs >= 5);
    }
    void dtrNeverCheaperOnShippedGraphs() {
        QFETCH(QString, file);
        const Model model = loadModelFile(std::string(qgetenv("REMAT_SOURCE_DIR").constData()) + "/resources/models/" + file.toStdString()).model;
        QVERIFY(!model.isChain());
        const std::int64_t top = storeAllPeak(model);
        const std::int64_t low = planners::dtrMinimumBudget(model, false);
        planners::GraphExactOptions quick;
        quick.effort = 0;
        int compared = 0;
        for (int k = 0; k <= 4; ++k) {
            if (test::kSanitizedStride > 1 && k != 2)
                continue; // a sanitizer build: the middle budget
            const std::int64_t budget = low + (top - low) * k / 4;
            StrategyParams params;
            params.budgetBytes = budget;
            double dtrCost = 0;
            try {
                dtrCost = Simulator::summarize(model, StrategyRegistry::builtin().get("dtr").makeSchedule(model, params))
                              .cost;
            } catch (const InvalidArgument &) {
                continue; // dtr runs out of memory here
            }
            const auto plan = planners::planGraphExact(model, planners::BudgetUnit::Bytes, budget, quick);
            QVERIFY(plan.peak <= budget);
            QVERIFY2(plan.cost <= dtrCost * (1 + 1e-12), qPrintable(file));
            ++compared;
        }
        QVERIFY(compared >= test::sampledCount(3));
    }

    // The runtime told the step ahead (next-use eviction: h = c/(m·d), d the
    // program's ops until the node is next read) is a plan the planner
    // starts from. At these tight budgets it runs within the budget for
    // less than the runtime under either of its own heuristics, and the
    // planner's plan costs no more than it.
    void startsFromNextUseEviction_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<qint64>("budget");
        QTest::newRow("U-Net, 766.35 MB") << "unet-batch8.json" << qint64(766'352'885);
        QTest::newRow("U-Net, 855.77 MB") << "unet-batch8.json" << qint64(855'771'876);
        QTest::newRow("ResNet-18, 373.39 MB") << "resnet18-batch32.json" << qint64(373'388'381);
    }
    void startsFromNextUseEviction() {
        QFETCH(QString, file);
        QFETCH(qint64, budget);
        const Model model = loadModelFile(std::string(qgetenv("REMAT_SOURCE_DIR").constData()) + "/resources/models/" + file.toStdString()).model;
        const auto run = [&](planners::DtrHeuristic h) -> std::optional<Summary> {
            try {
                Schedule s;
                s.ops = planners::runDtr(model, {false, budget}, h, Strategy::kMaxOps).ops;
                return Simulator::summarize(model, s);
            } catch (const InvalidArgument &) {
                return std::nullopt; // out of memory at this budget
            }
        };
        const auto ahead = run(planners::DtrHeuristic::NextUse);
        QVERIFY(ahead);
        QVERIFY(ahead->peakBytes <= budget);
        int runtimeRuns = 0;
        for (auto h : {planners::DtrHeuristic::Dtr, planners::DtrHeuristic::CostPerByte})
            if (const auto other = run(h)) {
                QVERIFY2(ahead->cost < other->cost, qPrintable(QString("next-use %1, %2 %3")
                                                                  .arg(ahead->cost)
                                                                  .arg(QString::fromUtf8(planners::dtrHeuristicName(h).data()))
                                                                  .arg(other->cost)));
                ++runtimeRuns;
            }
        QVERIFY(runtimeRuns >= 1);
        planners::GraphExactOptions quick;
        quick.effort = 0;
        quick.searchWork = 100'000;
        const auto plan = planners::planGraphExact(model, planners::BudgetUnit::Bytes, budget, quick);
        QVERIFY(plan.peak <= budget);
        QVERIFY(plan.cost <= ahead->cost * (1 + 1e-12));
    }
};

QTEST_GUILESS_MAIN(GraphExactTest)
#include "test_graph_exact.moc"
