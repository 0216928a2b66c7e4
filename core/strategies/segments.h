#pragma once
// The checkpointed-segments plan shared by `periodic` and `checkpoints`: the
// forward pass keeps a_0 and the checkpoints and drops everything else; the
// backward pass walks the segments from the loss back to the input, recomputes
// each segment once from its checkpoint, keeps it, and runs its gradients.
#include "core/model.h"

#include <vector>

namespace remat {

// `checkpoints`: sorted, distinct forward indices in 1..n-1.
std::vector<NodeId> segmentComputeOrder(const Model &chain, const std::vector<int> &checkpoints);
// Forward evaluations of that plan: 2n - |checkpoints| - 1.
double segmentForwardEvaluations(int n, std::size_t checkpointCount);

} // namespace remat
