#pragma once
// The trade-off curve between memory and compute: for every peak from the
// least any schedule needs to store-all's, the least compute the budget
// planner finds within it (a staircase, Pareto front), and the named
// strategies as points on the same axes (store-all, periodic, revolve,
// per-layer checkpointing, selective recomputation of attention cores). It
// answers "how much compute does each GiB cost me". Every point is a schedule
// counted by the simulator. `remat plan --frontier` and the studio's
// trade-off view show it; docs/planners.md explains it.
#include "core/machine.h"
#include "core/model.h"
#include "core/schedule.h"
#include "core/strategy.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace remat {

// One step of the curve: a schedule's simulated peak and cost. Either the
// budget planner run with `budgetBytes` (rebuild it with strategy "budget" and
// StrategyParams::budgetBytes = budgetBytes), or a named strategy that no
// budget plan beat (`label` names it: rebuild it from Frontier::named).
struct FrontierPoint {
    std::int64_t budgetBytes = 0; // 0 when the point is a named strategy
    std::string label;            // empty for budget plans
    std::int64_t peakBytes = 0;
    std::int64_t peakSavedBytes = 0; // saved internals held at the peak
    double cost = 0;
    std::string description; // the plan in words, as Schedule::description
    // Timed frontiers (FrontierOptions::machine) only: the schedule on its
    // two streams. Recompute-only points move nothing: makespan = compute.
    double makespanSeconds = 0;
    double stallSeconds = 0;
    std::int64_t peakHostBytes = 0;
    std::int64_t transferBytes = 0;
    std::int64_t offloads = 0;
};

// A named strategy on the same axes. Rebuild its schedule with
// StrategyRegistry::builtin().get(strategy).makeSchedule(model, params).
struct NamedPoint {
    std::string label;    // "store-all", "per-layer checkpointing", "selective (attention core)"...
    std::string strategy; // registry name
    std::string options;  // its CLI options ("--every 1"), empty when none
    StrategyParams params;
    Schedule schedule; // as counted (the selective plan is not a registry strategy: use this)
    std::int64_t peakBytes = 0;
    std::int64_t peakSavedBytes = 0;
    double cost = 0;
    // Timed frontiers only, as in FrontierPoint.
    double makespanSeconds = 0;
    double stallSeconds = 0;
    std::int64_t peakHostBytes = 0;
    std::int64_t transferBytes = 0;
    std::int64_t offloads = 0;
};

struct FrontierOptions {
    int samples = 48;      // budgets tried, evenly spaced from the minimum to store-all's peak
    int memorySteps = 512; // the budget planner's discretization (StrategyParams::memorySteps)
    bool namedPoints = true;
    // A link and a clock (offloading): every point is also timed, offload-all
    // joins the named points, and on chains the offload planner
    // (offload-budget) runs at the same budgets, giving Frontier::offloadCurve.
    std::optional<Machine> machine;
    std::function<void(double)> progress; // fraction done, may be empty
    std::function<bool()> cancelled;      // true: stop with Cancelled, may be empty
    // The runtime's answer beside the planner's: dtr (no plan, evictions by
    // h_DTR) run at the same budgets, giving Frontier::dtrCurve.
    bool dtr = true;
    // The graph planner's branch-and-bound nodes a budget (GraphExactOptions::effort); empty: its default.
    std::optional<std::int64_t> effort;
    // The graph planner's stage layouts a budget (GraphExactOptions::searchWork); empty: its default.
    std::optional<std::int64_t> searchWork;
    // Budgets planned at once (0: every core). The curve is the same on any
    // number; progress and cancelled are then called from several threads.
    int threads = 0;
};

struct Frontier {
    // The Pareto front of every schedule counted (the budget sweep and the
    // named strategies): sorted by increasing peak, strictly decreasing cost,
    // so more memory never costs more compute. The last point has
    // store-all's cost.
    std::vector<FrontierPoint> curve;
    std::vector<NamedPoint> named;
    std::int64_t minimumBytes = 0;  // least peak the budget planner can plan for
    std::int64_t storeAllBytes = 0; // store-all's peak: the end of the curve
    double storeAllCost = 0;
    // Timed frontiers only: the Pareto front of peak against makespan of the
    // offload planner's plans (recompute-only ones included where no offload
    // was faster), sorted by peak, strictly decreasing makespan. Where it lies
    // below the recompute curve's makespan (cost x secondsPerCost), offloading
    // beats recomputation.
    bool timed = false;
    double secondsPerCost = 0;
    std::vector<FrontierPoint> offloadCurve;
    // FrontierOptions::dtr: dtr at every budget tried from its own minimum
    // up, one point per budget in increasing order (label "dtr"). Not a
    // front: an online heuristic may pay more with more memory, and the
    // curve shows it. frontierCostAt(budgetBytes) is the optimum beside it.
    std::vector<FrontierPoint> dtrCurve;
    std::int64_t dtrMinimumBytes = 0; // the least budget dtr takes
    // Op-level models only (core/op_frontier.h): `curve` is then the op-level
    // plans' front and this the block-level plans' (each block kept whole or
    // re-run), same order; never below `curve`.
    std::vector<FrontierPoint> blockCurve;
};

// Throws LimitExceeded for models the budget planner cannot take (too large),
// Cancelled when asked to stop.
Frontier computeFrontier(const Model &model, const FrontierOptions &options = {});

// The least cost on the curve at `peakBytes` (the staircase's value);
// +infinity below the first point.
double frontierCostAt(const Frontier &frontier, std::int64_t peakBytes);

// The least makespan on the offload curve at `peakBytes`; +infinity below
// its first point (timed frontiers).
double offloadMakespanAt(const Frontier &frontier, std::int64_t peakBytes);

// DTR's compute over the planner's least at the same budget, for each point
// of dtrCurve (1 = optimal; NaN where the planner found no plan within that
// budget).
std::vector<double> dtrOverOptimal(const Frontier &frontier);

// The curve and the named points as one CSV table (`remat plan --frontier
// --csv` and the studio's export): kind ("curve" or "named"), label,
// peak_bytes, peak_saved_bytes, cost, overhead_vs_store_all, budget_bytes.
// A timed frontier adds makespan, stall_time, peak_host_bytes,
// transfer_bytes, offloads, and the offload curve's lines (kind "offload");
// dtr's points are lines of kind "dtr".
std::string frontierCsv(const Frontier &frontier);

} // namespace remat
