#pragma once
// How a Schedule runs in PyTorch under torch.utils.checkpoint, for the
// python/remat_torch bridge (docs/pytorch.md). PyTorch can only do one thing
// per node: run it once and keep what its backward needs (stored), or run it
// inside a checkpointed segment, discarding in the forward pass and re-run
// whole, recording, when the backward reaches the segment's last node.
//
// So a plan is read as: a layer it evaluates once is stored; layers it
// evaluates twice form segments, cut where the plan keeps a layer's output
// into the backward pass and where the model file says the next node is not
// called with exactly that output (PyTorch code runs between them: one
// checkpoint cannot span both). A layer evaluated three times or more needs
// nested checkpoints, which torch.utils.checkpoint's non-reentrant variant
// cannot express without keeping the inner segments' inputs: refused, saying
// so. The schedule PyTorch will run is rebuilt from the segments and checked
// by the Simulator. It is the plan's own when every segment ends at a node the
// plan keeps (store-all, per-block checkpointing, most budget plans); where a
// segment's last output is not kept but the next, stored, node reads it, remat
// re-makes it for that node's backward while PyTorch keeps it (the node saved
// it as its input), and the rebuilt schedule says so.
#include "core/model.h"
#include "core/schedule.h"

#include <string>
#include <vector>

namespace remat {

struct TorchSegment {
    int first = 0; // forward indices, first <= last
    int last = 0;
};

struct TorchPlan {
    bool appliable = false;
    std::string reason;                       // why not, when !appliable
    std::vector<int> recomputedMoreThanOnce;  // layers the plan evaluates 3+ times
    std::vector<TorchSegment> segments;       // checkpointed segments, in forward order
    Schedule schedule;                        // what PyTorch runs (when appliable)
    bool matchesPlan = false;                 // schedule.ops == the plan's ops
    std::vector<int> forwardEvaluations;      // by forward index, of `schedule`
};

// `modules` and `chained` as in ModelFile (by forward index; empty when the
// model was not traced, which is refused with the reason).
TorchPlan torchPlan(const Model &model, const Schedule &plan, const std::vector<std::vector<std::string>> &modules,
                    const std::vector<bool> &chained);

} // namespace remat
