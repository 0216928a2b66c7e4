#pragma once
// Turns the order in which nodes are computed into a full Schedule by inserting
// every free as early as possible: a node is released right after its last read
// before it is computed again (or never read again). The input a_0 and the
// final gradient b_0 are never freed. Strategies only decide *what* to compute
// and when; memory release is this one shared rule, so no strategy can hold a
// node longer than its plan needs.
#include "core/model.h"
#include "core/schedule.h"

#include <vector>

namespace remat {

std::vector<Op> insertFrees(const Model &model, const std::vector<NodeId> &computeOrder);

} // namespace remat
