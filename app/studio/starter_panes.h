#pragma once
// The panes an op-level or graph model opens with (docs/studio.md, "Opening
// a model"), instead of the chain trio, which says little there (over an
// op-level model's hundreds of nodes recompute-all costs thousands of per cent):
// - op level: store-all, per-block, save-matmuls, and the exact op-level plan
//   halfway between per-block's peak and store-all's;
// - a graph: store-all, the budget planner halfway between recompute-all's
//   peak and store-all's, and dtr at the same budget.
// Empty for chains: their panes stay as they are.
#include "app/studio/pane_run.h"
#include "core/model.h"

#include <vector>

namespace remat::studio {

std::vector<PaneConfig> starterPanes(const Model &model);

} // namespace remat::studio
