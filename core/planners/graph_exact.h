#pragma once
// The budget planner for graphs (docs/planners.md, "Graphs: a MILP with a
// proven bound"): the least compute within a budget over the class of
// GraphMilp (graph_milp.h), solved by the MILP solver of core/solver and
// started from every plan remat already knows (recompute-all, the graph
// heuristic, dtr under both heuristics and told the step ahead). The answer is the cheapest of the
// solver's plan and those, decoded into compute ops, given its frees by
// insertFrees and counted by the simulator. It is called optimal only when
// the solver proved it (gap 0), and otherwise carries the gap it proved
// against the class's optimum. The search is bounded by branch-and-bound
// nodes, not by the clock: the same model and budget give the same plan on
// every machine.
#include "core/model.h"
#include "core/planners/chain_budget.h"
#include "core/schedule.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace remat::planners {

// Branch-and-bound nodes a solve may take by default: 1000 on graphs of up to
// 12 layers, 50 up to 24, 10 beyond, where each node's LP is large and the
// bound barely moves with more (bench/graph_planner.sh gives the time and the
// gaps this reaches on the shipped and traced graphs).
std::int64_t defaultGraphEffort(const Model &model);
constexpr std::int64_t kMaxGraphEffort = 100'000'000;
// From this many branch-and-bound nodes on, the search branches strongly.
constexpr std::int64_t kStrongBranchingEffort = 100;

// Stage layouts the exact stage search (graph_stage_search.h) evaluates at
// most, by default: half before the solver, from the cheapest known plan,
// the rest after it, from the solver's plan and bound. About a second on a
// 2-core VM; on ResNet-18 it proves the budgets from about 470 MiB up, which
// the solver leaves open (bench/planners/bench_graph_search).
constexpr std::int64_t kDefaultStageSearchWork = 10'000'000;
constexpr std::int64_t kMaxStageSearchWork = 100'000'000'000;

struct GraphExactOptions {
    std::optional<std::int64_t> effort; // branch-and-bound nodes; empty: defaultGraphEffort(model)
    // Stage layouts the exact stage search may evaluate where the solver
    // leaves a gap; 0: no search. Empty: kDefaultStageSearchWork.
    std::optional<std::int64_t> searchWork;
    // Cores the stage search expands a stage's states on (0: every core this
    // process may use); the plan is the same on any number.
    int searchThreads = 0;
    // More known plans (compute ops with record flags) besides the ones the
    // planner makes itself, such as the plan at a nearby budget.
    std::vector<std::vector<Op>> incumbents;
    PlanCallbacks callbacks;
};

struct GraphExactPlan {
    std::vector<Op> computes; // compute ops with their record flags; insertFrees gives the schedule
    std::int64_t peak = 0;    // the simulator's, in the budget's unit
    double cost = 0;          // the simulator's
    // Proven: no schedule of the class within the budget costs less. 0
    // when nothing was proven (the plan lies outside the class).
    double lowerBound = 0;
    bool optimal = false;  // cost == lowerBound, proven
    bool storeAll = false; // the budget holds store-all: nothing to search
    std::string source;    // "solver", "stage search", "store-all", "dtr", "next-use eviction", "graph heuristic", "recompute-all", "given"
    int columns = 0, rows = 0, integerColumns = 0;
    std::int64_t nodes = 0; // branch-and-bound nodes taken
    // The exact stage search proved the plan (cost == lowerBound) where the
    // solver left a gap; the stage layouts it evaluated (0: it did not run).
    bool provenBySearch = false;
    std::int64_t searchWork = 0;
    // "optimal (gap 0)" or "within 0.80 % of the least (proven bound)".
    std::string proof() const;
};

// Throws InvalidArgument for a budget below every plan's peak (naming the
// least peak known and the proven bound), LimitExceeded for a model too
// large, SolverError, Cancelled.
GraphExactPlan planGraphExact(const Model &model, BudgetUnit unit, std::int64_t budget,
                              const GraphExactOptions &options = {});

struct GraphMinimum {
    std::int64_t peak = 0;       // the least peak of a plan found (the class's, or dtr's), counted by the simulator
    std::int64_t lowerBound = 0; // proven: no schedule at all peaks lower (dtrMinimumBudget: the largest op's need)
    std::int64_t classBound = 0; // proven: no schedule of the class peaks lower
    bool proven = false;         // peak == lowerBound
};

// The least peak (in `unit`) of a plan: the class's least, searched from
// recompute-all, or dtr's at its least budget where that is lower.
GraphMinimum minimumGraphPeak(const Model &model, BudgetUnit unit, const GraphExactOptions &options = {});

} // namespace remat::planners
