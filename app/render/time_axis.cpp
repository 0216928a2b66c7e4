#include "app/render/time_axis.h"

#include <algorithm>

namespace remat::render {

double opStartTime(const Timeline &timeline, std::int64_t step, TimeAxis axis) {
    if (axis == TimeAxis::Ops)
        return static_cast<double>(step);
    return step <= 0 ? 0.0 : timeline.costUntil(step - 1);
}

double opEndTime(const Timeline &timeline, std::int64_t step, TimeAxis axis) {
    if (axis == TimeAxis::Ops)
        return static_cast<double>(step + 1);
    return step < 0 ? 0.0 : timeline.costUntil(step);
}

double totalTime(const Timeline &timeline, TimeAxis axis) {
    return axis == TimeAxis::Ops ? static_cast<double>(timeline.steps()) : timeline.totalCost();
}

std::int64_t stepAtTime(const Timeline &timeline, double time, TimeAxis axis) {
    const std::int64_t last = timeline.steps() - 1;
    if (axis == TimeAxis::Ops)
        return std::clamp(static_cast<std::int64_t>(time) - 1, std::int64_t{-1}, last);
    std::int64_t step = timeline.stepAtCost(time);
    while (step >= 0 && timeline.op(step).kind != OpKind::Compute)
        --step;
    return step;
}

} // namespace remat::render
