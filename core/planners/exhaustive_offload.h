#pragma once
// The referee for offloading plans: the schedule of least makespan over every
// schedule of a small model that computes, frees, offloads and prefetches as
// docs/model.md allows, timed on the two streams exactly as the simulator
// times them, with the device peak (the simulator's count) within a budget.
// A best-first search over "which nodes are on the device, on host, being
// prefetched, which gradients are done", each such state keeping every
// timing (compute clock, link clock, the end of each pending transfer) no
// other timing of the same state beats in all of them; the bound it orders by,
// max(link clock, compute clock + the compute still unavoidable), never
// overestimates and never drops, so the first finished schedule taken is the
// fastest. It knows nothing of segments or splits: it is the independent
// check of the offload planner (core/planners/chain_offload.h). Models
// without saved internals only.
#include "core/machine.h"
#include "core/model.h"
#include "core/schedule.h"

#include <cstdint>
#include <optional>

namespace remat::planners {

// Largest model searched (forward nodes, a_0 included).
constexpr int kMaxOffloadSearchForwardNodes = 6;

struct FastestSchedule {
    double makespanSeconds = 0;
    Schedule schedule; // frees, offloads and prefetches included
};

// The fastest schedule within `deviceBudgetBytes` on `machine` (its own
// budgets are ignored), or nothing when none fits. Throws LimitExceeded for
// models over the size limit and InvalidArgument for models with saved internals.
std::optional<FastestSchedule> fastestSchedule(const Model &model, std::int64_t deviceBudgetBytes,
                                               const Machine &machine);

} // namespace remat::planners
