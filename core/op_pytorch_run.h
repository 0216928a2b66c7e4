#pragma once
// What PyTorch holds when it runs an op-level plan (docs/pytorch.md, "Op
// level"): the plan's schedule with the holds PyTorch's selective
// checkpointing and autograd add, and what the trace says of holds no node
// can. `remat plan --granularity op` plans until this fits the budget.
#include "core/model.h"
#include "core/model_io.h"
#include "core/op_plan.h"
#include "core/schedule.h"
#include "core/simulator.h"

#include <cstdint>
#include <string>
#include <vector>

namespace remat {

// What PyTorch's run holds that the model's nodes cannot say, from the
// trace (python/remat_torch/op_trace.py); nothing where the file predates it.
struct TraceHolds {
    // A weight two nodes use (an LM head tied to the token embedding):
    // autograd's engine holds the gradient of it the last user's backward
    // makes until the first user's backward adds its part (forward indices).
    // The trace counts it in every backward_workspace in between, but a
    // block re-run there holds it too.
    struct Gradient {
        std::int64_t bytes = 0;
        int first = 0, last = 0;
    };
    std::vector<Gradient> gradients;
    // By forward index: the part of a node's forward workspace made outside
    // its block (the model's own locals, the block's inputs), which a re-run
    // of the block in the backward does not hold beyond what the plan counts.
    std::vector<std::int64_t> outsideBlock;
    // A node made outside the blocks that blocks are called with (Llama's
    // position_ids): a checkpointed block's checkpoint keeps it for the
    // re-run until the block's backward is over, read there or not. The
    // node's workspace counts it up to workspaceThrough (the model's locals
    // in the forward pass), a re-run's does not.
    struct Argument {
        int node = 0;
        std::vector<std::string> blocks;
        int workspaceThrough = 0;
    };
    std::vector<Argument> arguments;
};

// Read from the model file's trace; nothing where the file predates a field.
// Throws InvalidArgument for a field that is there but malformed.
TraceHolds traceHolds(const ModelFile &file);

// PyTorch's run of an op-level plan: the plan's schedule with the holds that
// opSchedule does not make (docs/pytorch.md, "Op level"). opSchedule frees a
// kept tensor after its last reader, for a block's output that the next block
// reads but does not save in the forward pass; PyTorch's selective-checkpoint
// cache (and remat_torch's one for PyTorch 1.13) holds it until the block's
// re-run reaches the op that made it, where the cache pops it and hands it
// back: that free moves there, right after the re-run of the block's last
// re-run node before it (before the re-run, where none is). What else holds
// it there (a Python local of the block, a saved tensor) the plan already
// counts: the re-run's forward workspace, its backward's reads. And
// torch.autograd.backward's arguments hold the model's output and its
// gradient until the backward returns, re-runs included: their frees move to
// the end.
Schedule pytorchRunSchedule(const Model &model, const OpGraph &graph, const KeepSet &keep);

// PyTorch's run of a plan counted: pytorchRunSchedule's peak, each re-run
// node holding the trace's held gradients it runs between (from the last
// user's backward, the first gradient computed below it, to the first
// user's) and only the part of its workspace its own block made, and the
// tensors checkpointed blocks are called with until their backward ends.
Summary pytorchRun(const Model &model, const OpGraph &graph, const KeepSet &keep, const TraceHolds &holds);

} // namespace remat
