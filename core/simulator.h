#pragma once
// Replays a Schedule on a Model: validates every op against the rules of
// docs/model.md and counts memory and compute. Throws InvalidSchedule naming
// the op index, the op and the offending node.
#include "core/model.h"
#include "core/schedule.h"
#include "core/timeline.h"

#include <cstdint>
#include <memory>

namespace remat {

struct Summary {
    std::int64_t peakNodes = 0; // most nodes resident at once
    std::int64_t peakBytes = 0; // most bytes at once: resident nodes + the op's workspace
    std::int64_t peakStep = -1; // first op at which peakBytes is reached (-1: before any op)
    // What peakBytes is made of at peakStep: saved internals of layers (s_i)
    // and the op's workspace; the rest is layer outputs and gradients.
    std::int64_t peakSavedBytes = 0;
    std::int64_t peakWorkspaceBytes = 0;
    std::int64_t forwardEvaluations = 0;
    std::int64_t recomputations = 0; // forward evaluations beyond the first of each node
    std::int64_t backwardOps = 0;
    std::int64_t ops = 0;
    double cost = 0; // sum of the costs of all compute ops
};

struct Replay {
    Summary summary;
    Timeline timeline;
};

class Simulator {
public:
    // Validation and counting only: O(nodes) memory whatever the schedule length.
    static Summary summarize(const Model &model, const Schedule &schedule);
    // Also records the timeline (O(ops) memory) for stepping through it.
    static Replay replay(std::shared_ptr<const Model> model, std::shared_ptr<const Schedule> schedule);
};

} // namespace remat
