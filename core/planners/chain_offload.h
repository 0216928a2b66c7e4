#pragma once
// The offload planner for chains: for a device budget, the fastest schedule
// (least makespan, docs/model.md "Offloading to host") that keeps, recomputes
// or offloads each activation. A dynamic program over segments like the
// budget planner's keep-until-gradient recurrence (Beaumont et al. 2019, and
// chain_recording.h for layers that save internals), with a third way to hold
// a segment's source while its inner part runs, after Beaumont, Eyraud-Dubois
// and Shilova 2021 ("Efficient Combination of Rematerialization and
// Offloading for Training DNNs"): send it to host.
//
// For a segment (s, t): a_s and b_{t+1} resident, produce b_t..b_s within m
// memory. Besides the leaf (s = t), the split at j that keeps a_s on the
// device, and the recording run of F_{s+1} (rotor's F_all):
// - offload, late free: offload a_s, advance a_{s+1}..a_j, free a_s's device
//   copy (waiting for the offload), solve (j, t) with m, prefetch a_s right
//   before (j, t)'s last op b_j, solve (s, j-1) (its first op waits for the
//   prefetch);
// - offload, early free: the same with a_s freed right after a_{s+1}, its
//   last read (less memory during the advance, less time to hide the copy);
// - recording run, offloaded: offload a_s, run F_{s+1} recording, free a_s,
//   solve (s+1, t) holding only s_{s+1}, prefetch a_s before b_{s+1}, b_s.
// Every transfer is waited for inside its own option, so the link is idle
// when an option starts and its stalls are local: an offload stalls by
// max(0, transfer - the compute it overlaps), a prefetch by
// max(0, transfer - time of b_j). The makespan of a plan is therefore its
// compute time plus the sum of its options' stalls, and the recurrence is
// exact for it: the plan is the fastest of this class, and its simulated
// makespan equals the table's value (tested). docs/planners.md.
#include "core/machine.h"
#include "core/planners/chain_budget.h"
#include "core/planners/chain_weights.h"
#include "core/schedule.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace remat::planners {

struct OffloadChainPlan {
    // Compute, offload and prefetch ops, and the frees the plan places itself
    // (late frees of offloaded nodes): insertFrees(model, ops) adds the rest.
    std::vector<Op> ops;
    std::vector<int> checkpoints; // kept or offloaded by the first forward sweep
    double seconds = 0;           // the makespan the recurrence predicts
};

// Least device peak of the plans of this class, exact (integer), in w's
// units; `offloads` false: keep-only (chain_recording.h's minimum).
std::int64_t offloadMinimumPeak(const Model &chain, const Weights &w, bool offloads);

// The fastest plan of the class within `capacity` units of w (w may be the
// stepped weights of a byte budget; times come from the model and `machine`),
// or nothing when none fits. Throws Cancelled when asked to stop.
std::optional<OffloadChainPlan> offloadChainPlan(const Model &chain, const Weights &w, int capacity,
                                                 const Machine &machine, const PlanCallbacks &callbacks);

// Work and table bytes of offloadChainPlan (checked before it runs).
double offloadTableBytes(int n, int capacity);

} // namespace remat::planners
