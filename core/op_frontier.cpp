#include "core/op_frontier.h"

#include <limits>

#include <algorithm>

namespace remat {

OpPolicy countOpPolicy(const Model &model, const OpGraph &graph, std::string label, std::string strategy,
                       KeepSet keep) {
    OpPolicy p{std::move(label), std::move(strategy), std::move(keep), {}, {}, 0};
    p.schedule = opSchedule(model, graph, p.keep, p.label);
    p.schedule.strategy = p.strategy;
    p.summary = Simulator::summarize(model, p.schedule);
    p.recompute = recomputeCost(model, graph, p.keep);
    return p;
}

std::vector<OpPolicy> opNamedPolicies(const Model &model, const OpGraph &graph) {
    std::vector<OpPolicy> out;
    out.push_back(countOpPolicy(model, graph, "store-all", "store-all", keepEverything(graph)));
    out.push_back(countOpPolicy(model, graph, "per-block checkpointing", "per-block", keepBlockOutputs(graph)));
    out.push_back(countOpPolicy(model, graph, "save matmuls (PyTorch's selective checkpointing recipe)", "save-matmuls",
                                keepMatmuls(model, graph)));
    KeepSet core = keepAllButAttentionCore(model, graph);
    if (!core.empty())
        out.push_back(
            countOpPolicy(model, graph, "selective (attention core, Megatron)", "attention-core", std::move(core)));
    return out;
}

OpFrontier computeOpFrontier(const Model &model, const OpGraph &graph, int samples, const OpPlannerOptions &options) {
    // One progress bar over both planners: the op-level search is most of the work.
    OpPlannerOptions opOnly = options, blockOnly = options;
    blockOnly.blockLevel = true;
    if (options.progress) {
        opOnly.progress = [&](double f) { options.progress(0.9 * f); };
        blockOnly.progress = [&](double f) { options.progress(0.9 + 0.1 * f); };
    }
    const OpPlanner op(model, graph, opOnly), block(model, graph, blockOnly);
    OpFrontier f;
    f.exact = op.exact();
    f.cutByClock = op.cutByClock();
    f.inexactReason = op.inexactReason();
    f.replayedOps = op.replayedOps();
    f.minimumBytes = op.minimumPeakBytes();
    f.storeAllBytes = op.storeAllPeakBytes();
    samples = std::max(samples, 2);
    for (int k = 0; k < samples; ++k) {
        const std::int64_t budget = f.minimumBytes + (f.storeAllBytes - f.minimumBytes) * k / (samples - 1);
        f.points.push_back({budget, op.plan(budget), block.plan(budget)});
        const auto &planned = f.points.back().opLevel;
        if (!planned)
            continue;
        f.solved = f.solved || planned->solverNodes >= 0;
        if (planned->exact)
            ++f.provenPoints;
        else
            f.largestGap =
                std::max(f.largestGap, planned->lowerBound > 0
                                           ? (planned->recomputeCost - planned->lowerBound) / planned->recomputeCost
                                           : std::numeric_limits<double>::infinity());
    }
    f.named = opNamedPolicies(model, graph);
    return f;
}

namespace {

// Sorted by increasing peak, strictly decreasing cost.
std::vector<FrontierPoint> paretoFront(std::vector<FrontierPoint> points) {
    std::sort(points.begin(), points.end(), [](const FrontierPoint &a, const FrontierPoint &b) {
        return a.peakBytes != b.peakBytes ? a.peakBytes < b.peakBytes : a.cost < b.cost;
    });
    std::vector<FrontierPoint> front;
    for (FrontierPoint &p : points)
        if (front.empty() || p.cost < front.back().cost)
            front.push_back(std::move(p));
    return front;
}

} // namespace

Frontier opFrontierCurves(const OpFrontier &f) {
    Frontier out;
    out.minimumBytes = f.minimumBytes;
    out.storeAllBytes = f.storeAllBytes;
    out.storeAllCost = f.named.front().summary.cost;
    std::vector<FrontierPoint> op, block;
    const auto point = [&](std::int64_t budget, const OpPlanResult &r) {
        FrontierPoint p;
        p.budgetBytes = budget;
        p.peakBytes = r.predictedPeakBytes;
        p.cost = out.storeAllCost + r.recomputeCost;
        return p;
    };
    for (const OpCurvePoint &c : f.points) {
        if (c.opLevel)
            op.push_back(point(c.budgetBytes, *c.opLevel));
        if (c.blockLevel)
            block.push_back(point(c.budgetBytes, *c.blockLevel));
    }
    out.curve = paretoFront(std::move(op));
    out.blockCurve = paretoFront(std::move(block));
    for (const OpPolicy &p : f.named) {
        NamedPoint n;
        n.label = p.label;
        n.strategy = p.strategy;
        n.schedule = p.schedule;
        n.peakBytes = p.summary.peakBytes;
        n.peakSavedBytes = p.summary.peakSavedBytes;
        n.cost = p.summary.cost;
        out.named.push_back(std::move(n));
    }
    return out;
}

} // namespace remat
