#pragma once
// Selective checkpointing, planned tensor by tensor (docs/planners.md, "Op
// level"). An op-level model file (python3 -m remat_torch trace --granularity
// op) has one node per PyTorch op that makes a new tensor, each with the
// "module" of the block it runs in. A plan keeps, per block, a set of nodes
// from the forward pass into the backward pass (their outputs and saved
// internals: PyTorch's selective-checkpoint cache) and re-runs every other
// node of the block once, recording, right before the first backward op that
// unpacks one of the block's saved tensors. A block that keeps every node is
// not checkpointed at all. This is exactly what torch.utils.checkpoint with a
// selective policy runs (PyTorch >= 2.4, early stop off) and what
// remat_torch's 1.13 implementation runs; opSchedule turns it into the one
// Schedule the simulator counts.
#include "core/model.h"
#include "core/model_io.h"
#include "core/schedule.h"

#include <cstdint>
#include <string>
#include <vector>

namespace remat {

struct OpGroup {
    std::string module;      // the block's qualified module name; "" outside blocks
    std::vector<int> nodes;  // forward indices, in order; the last one is the block's output
    bool selectable = false; // a block of two or more nodes: its nodes may be re-run
};

struct OpGraph {
    std::vector<OpGroup> groups;  // in forward order; groups[0] holds the input alone
    std::vector<int> groupOf;     // by forward index
    std::vector<std::string> ops; // by forward index: "aten::addmm", "" where the file gives none
};

// The blocks of an op-level model file: runs of consecutive nodes with the
// same first "module". Throws InvalidArgument when the file is not op level
// (no node has an "op") or has no block of two or more nodes.
OpGraph opGraph(const ModelFile &file);
// The same from a model read from such a file (Model::isOpLevel).
OpGraph opGraph(const Model &model);
// The same from a model, each node's block module ("" outside blocks) and op.
OpGraph opGraph(const Model &model, const std::vector<std::string> &modules, std::vector<std::string> ops);

// By forward index: 1 = kept, 0 = re-run before its block's backward.
using KeepSet = std::vector<std::uint8_t>;

// Whether the group keeps every node (it is then not checkpointed).
bool storesGroup(const OpGraph &graph, const KeepSet &keep, int group);

// Throws InvalidArgument with one line naming the node when a plan cannot run:
// a node outside any block or a block's output not kept (nothing could
// rebuild it), or, in a checkpointed block, a kept node whose output nothing
// in the backward reads (PyTorch's cache would hold it for nothing; re-run it).
void checkKeepSet(const Model &model, const OpGraph &graph, const KeepSet &keep);
// The same check without throwing: the line checkKeepSet would throw, "" when
// the plan can run.
std::string keepSetProblem(const Model &model, const OpGraph &graph, const KeepSet &keep);

// Drops from `keep` the kept nodes of checkpointed blocks that nothing in the
// backward reads (until none is left), so that checkKeepSet accepts it.
KeepSet closeKeepSet(const Model &model, const OpGraph &graph, KeepSet keep);

// The Schedule of a plan: the forward pass (kept nodes and stored blocks
// recording), then every gradient in reverse order, each block's re-runs
// placed right before the first gradient that unpacks what the block saved.
Schedule opSchedule(const Model &model, const OpGraph &graph, const KeepSet &keep, std::string description);

// Its compute ops with their record flags, before the frees (no checks: for
// planners that checked the keep set already).
std::vector<Op> opComputes(const Model &model, const OpGraph &graph, const KeepSet &keep);

// Forward cost of the re-runs the plan makes.
double recomputeCost(const Model &model, const OpGraph &graph, const KeepSet &keep);

// The named policies, on the same axes. Each returns a closed KeepSet.
KeepSet keepEverything(const OpGraph &graph);                  // store-all
KeepSet keepBlockOutputs(const OpGraph &graph);                // per-block checkpointing
KeepSet keepMatmuls(const Model &model, const OpGraph &graph); // PyTorch's SAC recipe: save matmul outputs
// Megatron's selective recomputation (Korthikanti et al. 2022): re-run the
// attention core (from the scores' matrix product up to the product with V,
// exclusive) and keep everything else. Empty when no block has two batched
// matrix products.
KeepSet keepAllButAttentionCore(const Model &model, const OpGraph &graph);

// By forward index: whether some gradient reads the node's output.
std::vector<std::uint8_t> readByGradients(const Model &model);

// Whether an op name is a matrix product or a convolution.
bool isMatmulOp(const std::string &op);

} // namespace remat
