#pragma once
// The clock that keeps panes side by side. By cost, each op takes its compute
// cost (forward 1, backward 2 by default; frees take no time), so a strategy
// that recomputes more finishes visibly later. By op index, every op is one tick.
//
// A timed timeline (replayed with a Machine, docs/model.md "Offloading to
// host") runs the cost clock in seconds on its compute stream, stalls
// included: the studio's panes are all timed or none, so one axis serves both.
#include "core/timeline.h"

#include <cstdint>
#include <string>
#include <vector>

namespace remat::render {

enum class TimeAxis { Cost, Ops };

// When op `step` starts and ends on the axis (by cost: the timeline's own
// clock, Timeline::startTime and endTime).
double opStartTime(const Timeline &timeline, std::int64_t step, TimeAxis axis);
double opEndTime(const Timeline &timeline, std::int64_t step, TimeAxis axis);
double totalTime(const Timeline &timeline, TimeAxis axis);
// The step a pane shows at `time` (-1 before the first).
//  - Untimed, by cost: the last op finished by then. Frees take no time: a
//    compute is shown with its inputs still resident (the memory it runs
//    with), and the frees after it appear together with the next compute.
//  - Timed, by cost: the op running then, that is the last op started by
//    then (the compute under way, with the transfers issued before it; during
//    a stall, the op before the one that waits).
//  - By op: op floor(time) - 1.
std::int64_t stepAtTime(const Timeline &timeline, double time, TimeAxis axis);
// A moment at which the pane shows `step` (the inverse of stepAtTime; the
// player seeks there to show a peak).
double opShownTime(const Timeline &timeline, std::int64_t step, TimeAxis axis);
// The time on the timeline's own clock (seconds when timed) at axis time
// `time`: where the two streams are (transfer progress, stalls). By op, the
// end of the op shown.
double streamTime(const Timeline &timeline, double time, TimeAxis axis);

// The moments at which something changes in some pane: 0, then in
// increasing order each op's end (and, on timed timelines, each op's start,
// each transfer's start and end, and a grid of `framesPerOp` moments per
// average forward op, so that transfers move smoothly). The player's
// positions and the GIF's candidate frames.
std::vector<double> timelineEvents(const std::vector<const Timeline *> &timelines, TimeAxis axis, int framesPerOp = 4);
// The time one forward op takes on the axis, on average: 1 untimed (and by
// op), its seconds on a timed timeline. The player's speed is in forward ops
// per second.
double forwardOpTime(const Timeline &timeline, TimeAxis axis);

// A time as people read it, never in exponent form: "26", "2.005M", with the
// model's cost unit on the cost axis ("30.7 GFLOP") when `withUnit`.
std::string timeText(double time, TimeAxis axis, const Model &model, bool withUnit);
// The same for a timeline: in seconds ("4.194 ms") when it is timed.
std::string timeText(double time, TimeAxis axis, const Timeline &timeline, bool withUnit);
// The axis title: "time (ops)", "time (GFLOP)", or for models without a cost
// unit "time (cost: forward op 1, backward op 2)".
std::string timeAxisTitle(TimeAxis axis, const Model &model);
// The same for a timeline; timed: "time (compute stream and link 16 GB/s, stalls included)".
std::string timeAxisTitle(TimeAxis axis, const Timeline &timeline);

} // namespace remat::render
