#pragma once
// An exact search of the graph planner's class (graph_milp.h) of remat's own,
// stage by stage (docs/planners.md, "Graphs: an exact stage search").
//
// Stage t ends with the first computation of the node at position t; the
// state between two stages is which forward nodes are resident and which
// layers' internals are held. A dynamic programme over those states is exact
// for the class. Three facts keep it small:
//   - a state holding less is reachable for no more (keep less at the end of
//     the stage before), so each stage only keeps sets that cannot take one
//     more node, and a state is dropped when another holds a superset for no
//     more cost;
//   - within a stage the computations run in position order, so what a stage
//     recomputes is decided node by node from the last position down, each
//     decision adding the reads it needs (and what the positions left must
//     compute whatever is decided there is charged at once);
//   - every node not resident that a later stage reads, and what computing
//     it needs in turn, must be computed at least once more; and what a
//     state holds that a later stage reads but that does not fit beside
//     what some stage must hold is computed again too (stage_pressure.h):
//     lower bounds that drop every state that cannot get below the bound
//     given.
// The search is bounded by work (stage layouts evaluated, and at most 8
// million states kept), never by the clock. When it ends within that bound
// its answer is proven for the class: the cheapest plan below the bound
// given, or that none costs less than the least bound it cut at.
#include "core/model.h"
#include "core/planners/chain_budget.h"
#include "core/schedule.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace remat::planners {

// Largest graph the search takes: a state is a 64-bit mask of forward nodes.
constexpr int kMaxStageSearchLayers = 63;

struct StageSearchResult {
    bool complete = false; // every state was searched within the work bound
    bool found = false;    // a plan of the class costs less than the bound given; when complete, the least
    std::vector<Op> computes; // that plan's compute ops with their record flags (insertFrees gives the schedule)
    double recomputeCost = 0; // what it computes beyond every node's first computation
    // Complete and not found: no plan of the class costs less than this (at
    // least the bound given; infinite where no plan of the class fits).
    double leastCost = 0;
    std::int64_t work = 0;    // stage layouts evaluated
    std::int64_t states = 0;  // states kept, over all stages
};

// The least recompute cost within `budget` of the class, below `upperBound`
// (in the model's cost unit, beyond every node's first computation; give the
// cheapest known plan's to prove it, or less to prove a lower bound). Throws LimitExceeded for graphs over
// kMaxStageSearchLayers, InvalidArgument for `threads` outside 0..256,
// Cancelled when `cancelled` says so (it may be asked
// from any of the search's threads, one at a time).
//
// A stage's states are expanded on `threads` cores (0: every core this
// process may use) and gathered in one order: the result, the work counted
// included, is the same on any number of cores.
StageSearchResult searchGraphStages(const Model &model, BudgetUnit unit, std::int64_t budget, double upperBound,
                                    std::int64_t maxWork, const std::function<bool()> &cancelled = {},
                                    int threads = 0);

} // namespace remat::planners
