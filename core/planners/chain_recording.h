#pragma once
// The budget planner for chains whose layers save internals (Model::savedBytes):
// the choice of running a forward *recording* (keeping s_i until b_{i-1}
// consumes it) or *discarding* is part of the plan, as rotor's three forward
// kinds in Beaumont et al. 2019 ("Optimal checkpointing for heterogeneous
// chains": F_none, F_ck, F_all). For a segment (s, t) with a_s and b_{t+1}
// resident, producing b_t..b_s:
// - record: run F_{s+1} recording, solve (s+1, t) holding a_s and s_{s+1},
//   then b_s (rotor's F_all);
// - split at j: advance a_{s+1}..a_j discarding, keep a_j, solve (j, t) holding
//   a_s, then (s, j-1) (F_ck then F_none, as without saved internals);
// - (s, s): b_s needs s_{s+1}; when it saves any, F_{s+1} is re-run recording
//   first (its output is dropped at once).
// Optimal among schedules that keep checkpoints until their gradient; on
// chains without saved internals it is the recurrence of chain_budget.cpp.
// docs/planners.md has the recurrence and a hand-checked example.
#include "core/planners/chain_budget.h"
#include "core/planners/chain_weights.h"
#include "core/schedule.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace remat::planners {

// Least peak of such plans, exact (integer) in w's units.
std::int64_t recordingMinimumPeak(const Weights &w);

// The least-cost computes (with their record flags) within `capacity` units of
// w, or nothing when none fits. `checkpoints`: what the first sweep keeps.
std::optional<std::vector<Op>> recordingChainPlan(const Model &chain, const Weights &w, int capacity,
                                                  const PlanCallbacks &callbacks, std::vector<int> *checkpoints);

} // namespace remat::planners
