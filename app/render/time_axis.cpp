#include "app/render/time_axis.h"

#include "core/units.h"

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

std::string timeText(double time, TimeAxis axis, const Model &model, bool withUnit) {
    return formatCost(time, withUnit && axis == TimeAxis::Cost ? model.costUnit() : std::string());
}

std::string timeAxisTitle(TimeAxis axis, const Model &model) {
    if (axis == TimeAxis::Ops)
        return "time (ops)";
    return model.costUnit().empty() ? "time (cost: forward op 1, backward op 2)" : "time (" + model.costUnit() + ")";
}

} // namespace remat::render
