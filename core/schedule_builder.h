#pragma once
// Turns the order in which nodes are computed into a full Schedule by inserting
// every free as early as possible: a node is released right after its last read
// before it is computed again (or never read again). The input a_0 and the
// final gradient b_0 are never freed. Strategies only decide *what* to compute
// and when; memory release is this one shared rule, so no strategy can hold a
// node longer than its plan needs.
//
// Layers that save internals (Model::savedBytes > 0) follow PyTorch's
// checkpoint semantics, also decided here once for every strategy:
// - a computation of a_i runs *recording* when it is the last one before the
//   backward that consumes s_i, except a first run of a layer in a
//   checkpointed segment (1..discardFirstRunsThrough), which runs discarding;
// - a backward that needs s_c not held is preceded by a re-run of a_c
//   recording ("re-running block 7 recording its internals");
// - s_c is released (free-saved) right after its last consuming backward.
// Models without saved internals get exactly the ops they always got.
#include "core/model.h"
#include "core/schedule.h"

#include <vector>

namespace remat {

// `discardFirstRunsThrough`: the last layer of the checkpointed segments (the
// last checkpoint of a segment strategy); 0 = store-all semantics, every layer
// records on the run whose output its backward uses.
std::vector<Op> insertFrees(const Model &model, const std::vector<NodeId> &computeOrder,
                            int discardFirstRunsThrough = 0);

// Store-all's compute order: every forward node in topological order, then
// every gradient in reverse (valid for any DAG: a gradient's consumers all
// come later in that order).
std::vector<NodeId> storeAllOrder(const Model &model);

// The compute ops of an order with the record flags of the rule above,
// before any free is placed (for builders that add transfers first).
std::vector<Op> computeOps(const Model &model, const std::vector<NodeId> &computeOrder,
                           int discardFirstRunsThrough = 0);

// For planners that choose recording or discarding themselves (the budget
// planner): `computes` are compute ops with their record flags as planned;
// only the frees (of nodes and of saved internals) are added.
// They may also hold offloads and prefetches (docs/model.md, offloading):
// an offload reads the device copy like a compute, a prefetch brings a node
// back like a compute of it, so the device copy is freed after its last read
// before the prefetch. A plan that wants an offloaded node's device copy
// kept longer (to let the copy overlap more compute) places that free
// itself; no other free of that copy is added.
std::vector<Op> insertFrees(const Model &model, const std::vector<Op> &computes);

// The last layer of the checkpointed segments of a segment plan: its largest
// checkpoint, 0 without any.
int lastCheckpoint(const std::vector<int> &checkpoints);

// Forward layers (besides a_0 and the output) resident, or offloaded to host,
// when the backward pass starts (the first backward op): what a schedule
// keeps from the forward pass into the backward pass, the studio's ring and
// `remat plan`'s checkpoint list.
std::vector<int> keptIntoBackward(const Model &model, const std::vector<Op> &ops);

} // namespace remat
