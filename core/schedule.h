#pragma once
// A Schedule: the one object that flows through remat. A strategy emits it, the
// simulator checks and counts it, the studio animates it, the executor runs it.
#include "core/model.h"

#include <cstdint>
#include <string>
#include <vector>

namespace remat {

enum class OpKind : std::uint8_t {
    Compute, // compute a node (a forward node for the first time or again, or a backward node)
    Free,    // release a resident node
};

struct Op {
    OpKind kind;
    NodeId node;

    static Op compute(NodeId n) { return {OpKind::Compute, n}; }
    static Op free(NodeId n) { return {OpKind::Free, n}; }
    bool operator==(const Op &) const = default;
};

struct Schedule {
    std::string strategy;    // registry name of the strategy that emitted it
    std::string description; // its parameters in words, e.g. "every 4th node"
    std::vector<Op> ops;
    // Forward nodes the strategy keeps from the forward pass into the backward
    // pass (drawn ringed in the studio). a_0 is implied and not listed.
    std::vector<int> checkpoints;
};

// "compute a_3", "free b_7".
std::string describe(const Model &model, Op op);
// "compute" or "free".
const char *kindName(OpKind kind);

} // namespace remat
