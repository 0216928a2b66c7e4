#pragma once
// What the op-level search (op_exact.h) replays for one block: the block with
// the node before it and the block after it, and the split of that replay
// into what the block holds and the most it adds. Internal to the planner.
#include "core/model.h"
#include "core/op_plan.h"
#include "core/schedule.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace remat::op_search {

// Block g with the node before it (its input) and the block after it
// (stored), so that replaying it shows everything block g holds and every
// gradient that reaches it. For g >= 2 the node before is an ordinary node
// behind a 1-byte stand-in input, so that it is freed where the real one is
// (after its last read, which block g's own plan decides); inputs from
// further back read the stand-in, which stays resident as they do.
struct Neighbourhood {
    Model model = Model::chain(1);
    OpGraph graph;
    int block = 1; // block g's group in `graph`
    // Bytes of nodes beyond the next block held while block g's backward
    // runs (addHeldBeyond): all through it, and until the gradient of a node of
    // the neighbourhood (its local index) is computed.
    std::int64_t heldThrough = 0;
    std::vector<std::pair<int, std::int64_t>> heldUntil;
    std::string signature; // equal for neighbourhoods alike but for costs (which change no schedule and no byte)
};

Neighbourhood neighbourhood(const Model &model, const OpGraph &graph, int g);

struct Measured {
    std::int64_t held = 0, local = 0, inputGradientStep = 0;
};

// Replays a schedule of a neighbourhood by the simulator's memory rules
// (docs/model.md) and splits it: P, the bytes before block 1's forward; what
// the block holds after its forward; the most above P while its forward or
// its backward (re-runs and gradients) runs. Checked against the simulator by
// the tests: predictedPeakBytes equals its count.
Measured measure(const Neighbourhood &n, const Schedule &s);

// A block's neighbourhood stands in for a tensor from further back than the
// node before it (an attention mask made once before the layers, rotary
// tables) by one held all through; the tensor's real life, and that of what
// its backward reads of later blocks, depends on what other blocks keep, so
// the search's count is not exact there (the op-level MILP's is). Empty when
// no block reads such a tensor.
std::string readFromFurtherBack(const Model &model, const OpGraph &graph);

// A node no neighbourhood holds with a reader: every reader beyond the next
// block (a mask only every other layer reads), or, inside a group, only
// later groups (an encoder's output, made between the encoder's and the
// decoder's blocks beside the decoder's embedding, read by the decoder
// layers). The search cannot replay such blocks one by one, and the op-level
// MILP plans the whole model. Empty when there is none.
std::string readBeyondNextBlock(const Model &model, const OpGraph &graph);

} // namespace remat::op_search
