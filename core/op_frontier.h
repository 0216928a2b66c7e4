#pragma once
// The op-level trade-off (docs/planners.md, "Op level"): the exact op-level
// planner and the same planner restricted to block-level plans, at the same
// budgets, and the named policies (store-all, per-block checkpointing, "save
// matmuls", Megatron's attention core) on the same axes, each counted by the
// simulator. `remat plan --granularity op --frontier` prints it; the studio's
// trade-off view draws it (opFrontierCurves).
#include "core/frontier.h"
#include "core/op_plan.h"
#include "core/planners/op_exact.h"
#include "core/simulator.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace remat {

struct OpPolicy {
    std::string label;
    std::string strategy; // the registry's name that rebuilds it (core/strategies/op_level.cpp)
    KeepSet keep;
    Schedule schedule;
    Summary summary;
    double recompute = 0;
};

// The schedule of `keep`, counted.
OpPolicy countOpPolicy(const Model &model, const OpGraph &graph, std::string label, std::string strategy, KeepSet keep);

// store-all first, then per-block checkpointing, save matmuls, and Megatron's
// attention core where the model has one.
std::vector<OpPolicy> opNamedPolicies(const Model &model, const OpGraph &graph);

struct OpCurvePoint {
    std::int64_t budgetBytes = 0;
    std::optional<OpPlanResult> opLevel;    // nullopt: no plan fits
    std::optional<OpPlanResult> blockLevel; // nullopt: no block-level plan fits
};

struct OpFrontier {
    bool exact = true;
    bool cutByClock = false; // the time limit narrowed the op-level search (OpPlanResult::cutByClock)
    std::string inexactReason;
    // Where the enumeration is not exact and the op-level MILP solved the
    // points: how many it proved optimal, and the largest gap it stated (a
    // fraction; infinity where a point has no bound).
    bool solved = false;
    int provenPoints = 0;
    double largestGap = 0;
    std::int64_t replayedOps = 0;     // the op-level search's, which the effort bounds (OpPlanner::replayedOps)
    std::int64_t minimumBytes = 0;    // the least peak an op-level plan reaches
    std::int64_t storeAllBytes = 0;   // store-all's peak
    std::vector<OpCurvePoint> points; // `samples` budgets evenly from minimumBytes to storeAllBytes
    std::vector<OpPolicy> named;      // opNamedPolicies
};

// Throws like OpPlanner (InvalidArgument, Cancelled).
OpFrontier computeOpFrontier(const Model &model, const OpGraph &graph, int samples, const OpPlannerOptions &options);

// As a Frontier for the trade-off view: `curve` the op-level plans' Pareto
// front, `blockCurve` the block-level ones', `named` the policies. Peaks are
// the planner's (equal to the simulator's count), costs store-all's plus the
// re-runs.
Frontier opFrontierCurves(const OpFrontier &frontier);

} // namespace remat
