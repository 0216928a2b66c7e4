#pragma once
// Dynamic Tensor Rematerialization (Kirisame et al., ICLR 2021): no plan.
// The step runs in store-all's order; when an op would not fit the budget,
// a resident activation (or a layer's saved internals) is evicted by a
// heuristic, and an evicted node that an op needs again is recomputed on
// the spot, recursively through its evicted inputs. What the runtime did is
// written down as an ordinary Schedule (compute, record, free, free-saved)
// plus the reason for each eviction and recomputation (RuntimeEvent).
//
// Rules of this model (docs/planners.md, "dtr"):
// - a_0 (the input) and every gradient are never evicted: a gradient is
//   computed exactly once (it accumulates the weight gradients), so it stays
//   until its last reader, as in PyTorch; the nodes and saved internals the
//   op being run (and each recomputation under way) reads are locked;
// - a node no later op of the step reads is freed at once (DTR's reference
//   count dropping to zero) and still counts as evicted for the heuristic;
// - saved internals: the first run of a layer records them (as eager
//   PyTorch does); they are evictable like an activation, and a backward
//   that needs them absent re-runs its layer recording ("record a_i").
#include "core/model.h"
#include "core/schedule.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace remat::planners {

enum class DtrHeuristic {
    // h_DTR = c / (m x s): c counts the node's cost plus the evicted
    // neighbourhood its eviction would lengthen, approximated by the paper's
    // equivalence classes (union-find over evicted nodes, never split).
    Dtr,
    // h = c / m: the node's own cost over its size; no staleness, no chains.
    CostPerByte,
    // h = c / (m x d): c as for h_DTR, d the program's ops until it next
    // reads the node (or those internals). Not a runtime's choice: it knows
    // the step ahead, as a planner does (Belady's rule weighed by cost and
    // size); the graph planner starts from its plans too.
    NextUse,
};

// "dtr" or "cost-per-byte" (the runtime's; NextUse is the planner's and not
// named): throws InvalidArgument naming the known ones.
DtrHeuristic dtrHeuristicNamed(std::string_view name);
std::string_view dtrHeuristicName(DtrHeuristic heuristic); // "dtr", "cost-per-byte", "next-use"
// "h_DTR = c/(m·s)", "h = c/m" or "h = c/(m·d)".
std::string_view dtrHeuristicFormula(DtrHeuristic heuristic);

struct DtrBudget {
    bool nodes = false; // true: resident nodes as Summary::peakNodes; false: bytes as Summary::peakBytes
    std::int64_t amount = 0;
};

// The least budget DTR takes: the largest op of the step beside a_0 and the
// gradients it must hold. Above it DTR may still run out of memory when the
// recomputations an op needs, and what they lock, do not fit beside it.
std::int64_t dtrMinimumBudget(const Model &model, bool nodes);
// A budget from which DTR always runs: every op and every recomputation it
// may need fit beside what is locked (a bound), or store-all's peak.
std::int64_t dtrAssuredBudget(const Model &model, bool nodes);

struct DtrRun {
    std::vector<Op> ops;
    std::vector<RuntimeEvent> events;
    std::int64_t evictions = 0;
    std::int64_t rematerializations = 0;
};

// Throws InvalidArgument below dtrMinimumBudget (naming it) or when memory
// runs out with everything held in use (naming dtrAssuredBudget),
// LimitExceeded when the step would run past `maxOps` ops.
DtrRun runDtr(const Model &model, DtrBudget budget, DtrHeuristic heuristic, double maxOps);

} // namespace remat::planners
