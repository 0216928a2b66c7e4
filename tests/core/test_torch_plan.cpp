// How a schedule runs under torch.utils.checkpoint (core/torch_plan.h): the
// segments python/remat_torch wraps, the schedule PyTorch then runs (checked
// and counted by the Simulator), and the plans it must refuse.
#include "core/schedule_builder.h"
#include "core/simulator.h"
#include "core/strategy_registry.h"
#include "core/torch_plan.h"

#include <QTest>

#include <algorithm>

using namespace remat;

namespace {

constexpr int kLayers = 6;

Model traced() {
    ChainSpec spec;
    spec.nodeBytes = 100;
    spec.savedBytes = 300; // every block keeps internals, as traced blocks do
    return Model::chain(kLayers, spec);
}

std::vector<std::vector<std::string>> modules() {
    std::vector<std::vector<std::string>> names(kLayers + 1);
    for (int i = 1; i <= kLayers; ++i)
        names[i] = {"blocks." + std::to_string(i - 1)};
    return names;
}

std::vector<bool> allChained() {
    std::vector<bool> chained(kLayers + 1, true);
    chained[0] = false;
    return chained;
}

Schedule plan(const Model &model, const std::string &strategy, StrategyParams params = {}) {
    return StrategyRegistry::builtin().get(strategy).makeSchedule(model, params);
}

std::vector<int> evaluationsOf(const Model &model, const Schedule &s) {
    std::vector<int> count(model.forwardCount(), 0);
    for (const Op &op : s.ops)
        if (op.kind == OpKind::Compute && !model.isBackward(op.node))
            ++count[op.node];
    return count;
}

std::vector<std::pair<int, int>> ranges(const TorchPlan &p) {
    std::vector<std::pair<int, int>> out;
    for (const TorchSegment &s : p.segments)
        out.emplace_back(s.first, s.last);
    return out;
}

} // namespace

class TorchPlanTest : public QObject {
    Q_OBJECT
private slots:
    void storeAllWrapsNothing() {
        const Model model = traced();
        const TorchPlan p = torchPlan(model, plan(model, "store-all"), modules(), allChained());
        QVERIFY2(p.appliable, p.reason.c_str());
        QVERIFY(p.segments.empty());
        QVERIFY(p.matchesPlan);
        for (int i = 1; i <= kLayers; ++i)
            QCOMPARE(p.forwardEvaluations[i], 1);
    }

    // Seed 002: torch.utils.checkpoint around every layer but the last.
    void perBlockIsOneSegmentPerBlock() {
        const Model model = traced();
        StrategyParams every1;
        every1.every = 1;
        const Schedule s = plan(model, "periodic", every1);
        const TorchPlan p = torchPlan(model, s, modules(), allChained());
        QVERIFY2(p.appliable, p.reason.c_str());
        QCOMPARE(ranges(p), (std::vector<std::pair<int, int>>{{1, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 5}}));
        QVERIFY(p.matchesPlan);
        QCOMPARE(Simulator::summarize(model, p.schedule).peakBytes, Simulator::summarize(model, s).peakBytes);
    }

    void unkeptOutputsJoinOneSegment() {
        const Model model = traced();
        StrategyParams params;
        params.checkpoints = std::vector<int>{3, 5};
        const TorchPlan p = torchPlan(model, plan(model, "checkpoints", params), modules(), allChained());
        QVERIFY2(p.appliable, p.reason.c_str());
        // a_3 and a_5 are kept: 1..3 and 4..5 are re-run from a_0 and a_3; the output records at once.
        QCOMPARE(ranges(p), (std::vector<std::pair<int, int>>{{1, 3}, {4, 5}}));
        QVERIFY(p.matchesPlan);
        QCOMPARE(p.forwardEvaluations[2], 2);
        QCOMPARE(p.forwardEvaluations[6], 1);
    }

    // remat may free a segment's last output in the forward pass and re-make
    // it before the next node's backward; in PyTorch the next (stored) node
    // saved it as its input, so it stays. remat counts what PyTorch runs.
    void aSegmentOutputAStoredNodeReadsStays() {
        const Model model = traced();
        StrategyParams params;
        params.checkpoints = std::vector<int>{3};
        const Schedule s = plan(model, "checkpoints", params);
        const TorchPlan p = torchPlan(model, s, modules(), allChained());
        QVERIFY2(p.appliable, p.reason.c_str());
        QCOMPARE(ranges(p), (std::vector<std::pair<int, int>>{{1, 3}, {4, 5}}));
        QVERIFY(!p.matchesPlan);
        QCOMPARE(p.forwardEvaluations, evaluationsOf(model, s)); // the same runs, in PyTorch's order
        const auto kept = keptIntoBackward(model, p.schedule.ops);
        QVERIFY(std::find(kept.begin(), kept.end(), 5) != kept.end());
        const auto planKept = keptIntoBackward(model, s.ops);
        QVERIFY(std::find(planKept.begin(), planKept.end(), 5) == planKept.end());
    }

    // Code between blocks 1 and 2 (chained false): one checkpoint cannot span
    // them. PyTorch keeps block 2's input, so it runs another schedule, which
    // remat counts instead of the plan's.
    void segmentsAreCutWhereCodeRunsBetweenNodes() {
        const Model model = traced();
        StrategyParams params;
        params.checkpoints = std::vector<int>{3, 5};
        const Schedule s = plan(model, "checkpoints", params);
        std::vector<bool> chained = allChained();
        chained[2] = false;
        const TorchPlan p = torchPlan(model, s, modules(), chained);
        QVERIFY2(p.appliable, p.reason.c_str());
        QCOMPARE(ranges(p), (std::vector<std::pair<int, int>>{{1, 1}, {2, 3}, {4, 5}}));
        QVERIFY(!p.matchesPlan);
        QVERIFY(Simulator::summarize(model, p.schedule).peakBytes > 0); // a valid schedule
        QCOMPARE(p.forwardEvaluations[1], 2);
    }

    void nestedPlansAreRefusedSayingWhy() {
        const Model model = traced();
        StrategyParams revolveSlots;
        revolveSlots.checkpointSlots = 2;
        const TorchPlan p = torchPlan(model, plan(model, "revolve", revolveSlots), modules(), allChained());
        QVERIFY(!p.appliable);
        QVERIFY(!p.recomputedMoreThanOnce.empty());
        QVERIFY2(p.reason.find("nested checkpoints") != std::string::npos, p.reason.c_str());
        const TorchPlan all = torchPlan(model, plan(model, "recompute-all"), modules(), allChained());
        QVERIFY(!all.appliable);
    }

    void untracedModelsAreRefused() {
        const Model model = traced();
        StrategyParams every1;
        every1.every = 1;
        const Schedule s = plan(model, "periodic", every1);
        const TorchPlan none = torchPlan(model, s, {}, {});
        QVERIFY(!none.appliable);
        QVERIFY2(none.reason.find("remat_torch trace") != std::string::npos, none.reason.c_str());
        auto names = modules();
        names[2].clear();
        const TorchPlan missing = torchPlan(model, s, names, allChained());
        QVERIFY(!missing.appliable);
        QVERIFY2(missing.reason.find("names no PyTorch module") != std::string::npos, missing.reason.c_str());
    }

    // A budget plan that recomputes each block at most once is run as planned.
    void budgetPlansRunAsPlanned() {
        const Model model = traced();
        const Summary storeAll = Simulator::summarize(model, plan(model, "store-all"));
        StrategyParams budget;
        budget.budgetBytes = storeAll.peakBytes * 6 / 10;
        const Schedule s = plan(model, "budget", budget);
        const TorchPlan p = torchPlan(model, s, modules(), allChained());
        QVERIFY2(p.appliable, p.reason.c_str());
        QVERIFY(!p.segments.empty());
        QVERIFY(p.matchesPlan);
        QVERIFY(Simulator::summarize(model, p.schedule).peakBytes <= *budget.budgetBytes);
    }
};

QTEST_APPLESS_MAIN(TorchPlanTest)
#include "test_torch_plan.moc"
