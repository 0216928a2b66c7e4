#pragma once
// The budget planner on graphs with skip connections: a HEURISTIC, not exact.
// It searches checkpoint sets for the segment plan of dag_plans.h greedily:
// start from every node kept (store-all's memory, no recomputation), drop one
// checkpoint at a time, always the one whose removal lowers the simulated peak
// most (then the cheapest), and return the cheapest set seen whose simulated
// peak fits the budget; recompute-all and the articulation-point choice of
// `auto` are candidates too. Every candidate is counted by the simulator. The
// gap to the optimum, measured against exhaustive search on small graphs, is
// in docs/planners.md.
#include "core/model.h"
#include "core/planners/chain_budget.h"

#include <cstdint>
#include <string>
#include <vector>

namespace remat::planners {

struct DagPlan {
    std::vector<NodeId> order;
    std::vector<int> checkpoints;
    std::string description;
};

// Largest graph the heuristic takes: it simulates about n^2 candidate plans.
constexpr int kMaxGraphBudgetLayers = 400;

// unit: Bytes or Nodes. Throws InvalidArgument when no candidate fits,
// naming the smallest peak found; Cancelled when asked to stop.
DagPlan planDagBudget(const Model &model, BudgetUnit unit, std::int64_t budget, const PlanCallbacks &callbacks = {});

// The `auto` choice: about sqrt(n) of the articulation points, evenly spaced
// (all of them when there are fewer), as the "memory" mode of the
// gradient-checkpointing package for TensorFlow picks them.
std::vector<int> autoCheckpoints(const Model &model);

} // namespace remat::planners
