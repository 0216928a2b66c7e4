#pragma once
// The budget planner for chains: the minimum-cost schedule whose peak, as the
// simulator counts it, stays within a memory budget. Dynamic programming over
// segments (s, t) and discretized memory, after Beaumont et al. 2019
// ("Optimal checkpointing for heterogeneous chains", the rotor algorithm),
// adapted to the read sets of docs/model.md. Short chains get the exact
// recurrence of chain_exact.h (over all schedules); longer ones the
// keep-until-gradient recurrence in chain_budget.cpp. docs/planners.md has
// both, the discretization and its error bound.
#include "core/model.h"
#include "core/schedule.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace remat::planners {

enum class BudgetUnit {
    Bytes, // peak bytes (resident nodes + workspace) as Summary::peakBytes
    Nodes, // peak resident nodes as Summary::peakNodes
    Slots, // revolve's checkpoint slots: held snapshots, a_0 included; the
           // working nodes and gradients are not counted
};

struct ChainBudget {
    BudgetUnit unit = BudgetUnit::Bytes;
    std::int64_t amount = 0;
    int memorySteps = 512; // Bytes only: the budget is cut into this many equal steps
    // False: use only the keep-until-gradient recurrence even where the exact
    // one would run (to measure the difference between the two).
    bool allowExact = true;
};

struct ChainPlan {
    std::vector<NodeId> order; // compute order; insertFrees adds the frees
    // Instead of `order` when the plan chooses which runs record (byte budgets
    // on chains whose layers save internals): insertFrees(model, computes).
    std::vector<Op> computes;
    std::vector<int> checkpoints; // kept by the first forward sweep
    std::string description;
};

struct PlanCallbacks {
    std::function<void(double)> progress; // fraction done, may be empty
    std::function<bool()> cancelled;      // true: stop with Cancelled, may be empty
};

// Largest chain the budget planner takes (its tables grow as n^2 * steps).
constexpr int kMaxBudgetLayers = 2048;
// Largest table, in bytes, the planner allocates.
constexpr std::int64_t kMaxBudgetTableBytes = std::int64_t{1} << 30;

// The smallest budget (in `unit`) for which any schedule exists, exact (no
// discretization). Throws InvalidArgument for a model that is not a chain.
std::int64_t minimumFeasibleBudget(const Model &chain, BudgetUnit unit);

// Throws InvalidArgument when the budget is below minimumFeasibleBudget,
// LimitExceeded when the tables would be too big, Cancelled when asked to stop.
ChainPlan planChainBudget(const Model &chain, const ChainBudget &budget, const PlanCallbacks &callbacks = {});

} // namespace remat::planners
