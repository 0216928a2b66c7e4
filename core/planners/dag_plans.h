#pragma once
// Plans for models with skip connections (forward DAGs in topological order).
// They only decide the compute order; insertFrees adds the frees, so every
// recomputed node lives exactly as long as the plan reads it.
#include "core/model.h"

#include <vector>

namespace remat::planners {

// Bottlenecks: forward nodes 1..n-1 that every path from a_0 to a_n passes
// through (no edge jumps over them). For a chain: every node 1..n-1.
std::vector<int> articulationPoints(const Model &model);

// Recompute-all on any DAG: the forward pass, b_n, then for every other b_j (in
// reverse topological order) recompute from a_0 the ancestors of a_j that it
// needs. For a chain this is the classic a_1..a_j before each b_j.
std::vector<NodeId> recomputeAllOrder(const Model &model);

// Checkpointed segments on any DAG. `checkpoints` (sorted forward indices in
// 1..n-1) are kept from the forward pass until their gradient. The backward
// pass walks the segments between checkpoints from the loss to the input,
// recomputes each segment's nodes (and the non-checkpoint ancestors they need
// through skip connections), then runs its gradients. On a chain this is the
// order of the `periodic` and `checkpoints` strategies.
std::vector<NodeId> segmentOrder(const Model &model, const std::vector<int> &checkpoints);

// Forward evaluations of segmentOrder without building it.
double segmentOrderForwardEvaluations(const Model &model, const std::vector<int> &checkpoints);

} // namespace remat::planners
