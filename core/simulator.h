#pragma once
// Replays a Schedule on a Model: validates every op against the rules of
// docs/model.md and counts memory and compute. Throws InvalidSchedule naming
// the op index, the op and the offending node.
//
// Given a Machine it also times the schedule on two streams, the compute
// stream and one copy stream for offloads and prefetches (docs/model.md,
// "Offloading to host"), and checks the machine's budgets. Without one, a
// schedule with transfers is refused: nothing says how long they take.
#include "core/machine.h"
#include "core/model.h"
#include "core/schedule.h"
#include "core/timeline.h"

#include <cstdint>
#include <memory>

namespace remat {

struct Summary {
    std::int64_t peakNodes = 0; // most nodes resident at once
    std::int64_t peakBytes = 0; // most bytes on the device at once: resident nodes + the op's workspace
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

    // Counted when simulated with a Machine (timed == true); zero otherwise.
    bool timed = false;
    std::int64_t peakHostBytes = 0; // most bytes of host copies at once
    std::int64_t transferBytes = 0; // bytes moved over the link, both ways
    std::int64_t offloads = 0;
    std::int64_t prefetches = 0;
    double computeSeconds = 0;  // cost x Machine::secondsPerCost: the compute stream busy
    double stallSeconds = 0;    // the compute stream waiting for transfers
    double makespanSeconds = 0; // until both streams are idle: compute + stalls (+ a transfer still running)
};

struct Replay {
    Summary summary;
    Timeline timeline;
};

class Simulator {
public:
    // Validation and counting only: O(nodes) memory whatever the schedule length.
    static Summary summarize(const Model &model, const Schedule &schedule);
    // The same, timed on `machine`'s two streams, its budgets checked.
    static Summary summarize(const Model &model, const Schedule &schedule, const Machine &machine);
    // Also records the timeline (O(ops) memory) for stepping through it.
    static Replay replay(std::shared_ptr<const Model> model, std::shared_ptr<const Schedule> schedule);
    // A timed timeline: both streams, transfers, stalls and host bytes.
    static Replay replay(std::shared_ptr<const Model> model, std::shared_ptr<const Schedule> schedule,
                         const Machine &machine);

private:
    static Replay replayOn(std::shared_ptr<const Model> model, std::shared_ptr<const Schedule> schedule,
                           const Machine *machine);
};

} // namespace remat
