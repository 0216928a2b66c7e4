#pragma once
// What memory forces a graph plan to compute again: the stage search's
// second lower bound (docs/planners.md, "Memory is counted too").
//
// At a later stage s, what s itself must hold (its reads, its output, the
// internals its gradient reads, the gradients alive, its workspace) leaves a
// room. What a state holds now that a stage after s reads, and that does not
// fit in that room, is freed before s and computed again after it, at its
// node's full cost at least. The least such cost is a knapsack; its
// fractional relaxation (cheapest per byte first, the last item in part) is
// a lower bound. It is taken at the two stages furthest over their room with
// everything held (any set of stages gives a bound).
//
// Nodes the caller already charges as computed again are left out: one
// computation of a node gives back its output and its internals alike. When
// a state frees a node, the caller charges that node's cost and this bound
// falls by at most as much, so the sum never rises: it also holds for the
// most a branch of the search may keep.
#include "core/planners/stage_mask.h"

#include <cstdint>
#include <vector>

namespace remat::planners {

class StagePressureBound {
public:
    struct Positions {
        int forwardNodes = 0; // forward positions 1..forwardNodes; the rest up to positions-1 are gradients
        int positions = 0;
        std::int64_t capacity = 0;
        std::vector<std::int64_t> weight, saved, workspace, base; // per position (saved: forward positions only)
        std::vector<double> cost;                                  // per forward position
        std::vector<StageMask> reads, savedNeed, futureReads, futureSaved; // futureX[t]: positions t.. on
    };
    explicit StagePressureBound(const Positions &positions);

    // The least cost of what must be computed again, beyond `must`, because
    // it does not fit at some stage from `t` on; `resident` and `held` are
    // what a state holds at the start of stage t.
    double least(int t, StageMask resident, StageMask held, StageMask must) const;

    bool pressed() const { return !stages_.empty(); }

private:
    struct Item {
        int p;
        int parts; // held by the state: 1 its output, 2 its internals, 3 both
        std::int64_t bytes; // what freeing them gives back at the stage
        double ratio;
    };
    struct Stage {
        int position;
        std::int64_t room;    // what may be held across it beside what it must hold
        StageMask nodes = 0;  // outputs a later stage reads (and it does not)
        StageMask internals = 0;
        std::int64_t excess = 0; // holding every such item
        std::vector<Item> order;  // cheapest per byte first
    };
    std::vector<Stage> stages_; // only those where holding every such item would not fit
    std::vector<std::int64_t> weight_, saved_;
    std::vector<double> cost_;
};

} // namespace remat::planners
