#pragma once
// The exact chain planner: least cost over ALL schedules of docs/model.md,
// including those that release a checkpoint a_s after its last use as a
// source and recompute it later from further back. In this model b_s reads
// only a_s and b_{s+1}, so with uneven sizes such schedules can beat every
// schedule that keeps its checkpoints until their gradient (the class of
// Beaumont et al.'s recurrence, chain_budget.cpp). The price is one more index:
// O(n^4 S) time and O(n^3 S) memory, so it runs on shorter chains.
//
// Ret(s, t, u): a_s resident, gradient b_{t+1} resident; compute b_t..b_u and
// end with a_s released (u = s: the whole segment, a_s released after b_s;
// u > s: a_s was released early and the caller continues below u).
#include "core/planners/chain_budget.h"
#include "core/planners/chain_weights.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace remat::planners {

// Work (table cells times candidates) and table bytes of the exact planner.
double exactWork(int n, int capacity);
double exactTableBytes(int n, int capacity);

// Minimum peak over all schedules, exact, O(n^4) integer work.
std::int64_t exactMinimumPeak(const Weights &w);

// The least-cost compute order within `capacity` units of w, or nothing when
// none fits. Throws Cancelled when asked to stop.
std::optional<std::vector<NodeId>> exactChainOrder(const Model &chain, const Weights &w, int capacity,
                                                   const PlanCallbacks &callbacks,
                                                   std::vector<int> *firstSweepCheckpoints);

} // namespace remat::planners
