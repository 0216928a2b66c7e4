#pragma once
// The clock that keeps panes side by side. By cost, each op takes its compute
// cost (forward 1, backward 2 by default; frees take no time), so a strategy
// that recomputes more finishes visibly later. By op index, every op is one tick.
#include "core/timeline.h"

#include <cstdint>
#include <string>

namespace remat::render {

enum class TimeAxis { Cost, Ops };

// When op `step` starts and ends on the axis.
double opStartTime(const Timeline &timeline, std::int64_t step, TimeAxis axis);
double opEndTime(const Timeline &timeline, std::int64_t step, TimeAxis axis);
double totalTime(const Timeline &timeline, TimeAxis axis);
// The step a pane shows at `time`: the last op finished by then (-1 before
// the first). By cost, frees take no time: a compute is shown with its inputs
// still resident (the memory it runs with), and the frees after it appear
// together with the next compute.
std::int64_t stepAtTime(const Timeline &timeline, double time, TimeAxis axis);

// A time as people read it, never in exponent form: "26", "2.005M", with the
// model's cost unit on the cost axis ("30.7 GFLOP") when `withUnit`.
std::string timeText(double time, TimeAxis axis, const Model &model, bool withUnit);
// The axis title: "time (ops)", "time (GFLOP)", or for models without a cost
// unit "time (cost: forward op 1, backward op 2)".
std::string timeAxisTitle(TimeAxis axis, const Model &model);

} // namespace remat::render
