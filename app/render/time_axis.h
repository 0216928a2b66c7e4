#pragma once
// The clock that keeps panes side by side. By cost, each op takes its compute
// cost (forward 1, backward 2 by default; frees take no time), so a strategy
// that recomputes more finishes visibly later. By op index, every op is one tick.
#include "core/timeline.h"

#include <cstdint>

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

} // namespace remat::render
