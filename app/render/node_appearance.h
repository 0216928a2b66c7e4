#pragma once
// How one node looks at one step, read off the simulator's StepState: the
// studio never works out on its own what is resident.
#include "core/timeline.h"

#include <cstdint>
#include <vector>

namespace remat::render {

enum class NodeFill : std::uint8_t {
    NotComputed, // never computed yet (hollow)
    Resident,    // in memory (purple)
    Recomputed,  // in memory, computed more than once (forward nodes only)
    Current,     // computed by the current op
    Freed,       // computed before, not in memory now
    OnHost,      // not on the device: its only copy is in host memory (offloaded, docs/model.md)
};

struct NodeAppearance {
    NodeFill fill = NodeFill::NotComputed;
    bool resident = false;
    bool checkpoint = false; // kept by the strategy from the forward into the backward pass
    bool justFreed = false;  // the current op frees it
    bool evicted = false;    // the runtime evicted it for the current op (dtr: memory was full, Schedule::events)
    std::uint32_t computeCount = 0;
};

// The schedule's checkpoints (plus a_0, always kept) as a mask by forward index.
std::vector<std::uint8_t> checkpointMask(const Timeline &timeline);

NodeAppearance appearanceOf(const Timeline &timeline, const std::vector<std::uint8_t> &checkpoints,
                            const StepState &state, NodeId node);

const char *fillName(NodeFill fill);

} // namespace remat::render
