#pragma once
// A Schedule: the one object that flows through remat. A strategy emits it, the
// simulator checks and counts it, the studio animates it, the executor runs it.
#include "core/model.h"

#include <cstdint>
#include <string>
#include <vector>

namespace remat {

enum class OpKind : std::uint8_t {
    Compute,   // compute a node (a forward node for the first time or again, or a backward node)
    Free,      // release a resident node
    FreeSaved, // release the saved internals s_i of layer F_i (node: a_i)
    // Copies on the copy stream beside the compute stream (docs/model.md,
    // "Offloading to host"); only forward nodes a_1..a_n move.
    Offload,  // start copying a_i to host memory; the device copy stays until a `free a_i`
    Prefetch, // start copying a_i back from host into a new device buffer
};

struct Op {
    OpKind kind;
    // For `compute a_i`: run F_i recording, keeping its saved internals s_i
    // for its backward (allowed while a_i is resident: the layer is re-run only
    // to record). Only set for layers that save something; always false otherwise.
    bool records = false;
    NodeId node;

    static Op compute(NodeId n) { return {OpKind::Compute, false, n}; }
    static Op record(NodeId n) { return {OpKind::Compute, true, n}; }
    static Op free(NodeId n) { return {OpKind::Free, false, n}; }
    static Op freeSaved(NodeId forwardNode) { return {OpKind::FreeSaved, false, forwardNode}; }
    static Op offload(NodeId forwardNode) { return {OpKind::Offload, false, forwardNode}; }
    static Op prefetch(NodeId forwardNode) { return {OpKind::Prefetch, false, forwardNode}; }
    bool isTransfer() const { return kind == OpKind::Offload || kind == OpKind::Prefetch; }
    bool operator==(const Op &) const = default;
};
static_assert(sizeof(Op) == 8, "schedules hold up to Strategy::kMaxOps ops");

// Why a strategy that decides while the step runs (dtr) freed a node that was
// still needed, or computed one again: recorded when it decided, so the
// studio narrates what the strategy counted instead of guessing it.
struct RuntimeEvent {
    enum class Kind : std::uint8_t { Evict, Rematerialize };
    Kind kind = Kind::Evict;
    bool saved = false;  // about the internals s_i of layer `node` rather than a_i
    std::int64_t op = 0; // index into Schedule::ops: the free (evict) or the compute (rematerialize)
    NodeId node = 0;     // a_i (forward node; the layer when `saved`)
    // Evict: memory was full; what it held then, and the victim's terms in
    // the heuristic h = cost / (size x idle) (idle = 1 for h = c/m).
    std::int64_t heldNodes = 0;
    std::int64_t heldBytes = 0;
    bool countsNodes = false; // the budget counts nodes: `size` is 1 node, not bytes
    double cost = 0;          // recompute cost counted: its own, plus its evicted neighbourhood for h_DTR
    std::int64_t size = 0;    // what freeing it gives back (bytes, or 1 node)
    std::int64_t idleOps = 0; // computes since it was last used
    double score = 0;         // h, the lowest of the candidates
    bool weighsIdle = true;   // h_DTR divides by idle; h = c/m does not (idle then breaks ties only)
    int candidates = 0;       // nodes it could have evicted
    // Rematerialize: the node whose computation needs it, and how deep the
    // chain of recomputations is (1: the step's own op needs it).
    NodeId neededBy = 0;
    int depth = 0;
};

struct Schedule {
    std::string strategy;    // registry name of the strategy that emitted it
    std::string description; // its parameters in words, e.g. "every 4th node"
    std::vector<Op> ops;
    // Forward nodes the strategy keeps from the forward pass into the backward
    // pass (drawn ringed in the studio). a_0 is implied and not listed.
    std::vector<int> checkpoints;
    // dtr only: its evictions and rematerializations, by increasing op.
    std::vector<RuntimeEvent> events;
};

// The event Schedule::events records for op `op`, or nullptr (a binary
// search: events are sorted by op).
const RuntimeEvent *eventAt(const Schedule &schedule, std::int64_t op);

// "compute a_3", "record a_3", "free b_7", "free s_3", "offload a_3", "prefetch a_3".
std::string describe(const Model &model, Op op);
// True when some op of `schedule` is an offload or a prefetch.
bool hasTransfers(const Schedule &schedule);
// "compute", "free", "free-saved", "offload" or "prefetch".
const char *kindName(OpKind kind);

} // namespace remat
