#pragma once
// Positions in store-all's order, a_0..a_n then b_n..b_0: the order the
// graph planner's class fixes for first computations (graph_milp.h,
// graph_stage_search.h, exhaustive search's StoreAllOrderStages).
#include "core/model.h"

namespace remat::planners {

inline NodeId nodeAtPosition(const Model &model, int p) {
    const int f = model.forwardCount();
    return p < f ? model.forwardNode(p) : model.backwardNode(2 * f - 1 - p);
}

inline int positionOf(const Model &model, NodeId id) {
    const int i = model.indexOf(id);
    return model.isBackward(id) ? 2 * model.forwardCount() - 1 - i : i;
}

} // namespace remat::planners
