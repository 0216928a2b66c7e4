#pragma once
// Plain-language explanations of a timeline, for the line under each pane and
// the node tooltips: what the current op does and why, and why a node is held.
// No Qt: the same words serve the studio, the GIF export and tests.
#include "core/timeline.h"

#include <cstdint>
#include <string>
#include <vector>

namespace remat::render {

// What op state.step does and why ("Recomputing a_5 from checkpoint a_4: the
// next backward step, b_5 from b_6 and a_5, needs a_5, which was dropped after
// the forward pass."). `checkpoints`: see checkpointMask().
std::string narrate(const Timeline &timeline, const std::vector<std::uint8_t> &checkpoints, const StepState &state);

// Why `node` is resident at state.step ("read next by op 41, compute b_5"), or
// "" when it is not resident.
std::string whyResident(const Timeline &timeline, const std::vector<std::uint8_t> &checkpoints, const StepState &state,
                        NodeId node);

} // namespace remat::render
