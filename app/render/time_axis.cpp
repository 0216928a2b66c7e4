#include "app/render/time_axis.h"

#include "core/rates.h"
#include "core/units.h"

#include <algorithm>
#include <cmath>

namespace remat::render {

double opStartTime(const Timeline &timeline, std::int64_t step, TimeAxis axis) {
    if (axis == TimeAxis::Ops)
        return static_cast<double>(step);
    return step < 0 ? 0.0 : timeline.startTime(step);
}

double opEndTime(const Timeline &timeline, std::int64_t step, TimeAxis axis) {
    if (axis == TimeAxis::Ops)
        return static_cast<double>(step + 1);
    return step < 0 ? 0.0 : timeline.endTime(step);
}

double totalTime(const Timeline &timeline, TimeAxis axis) {
    return axis == TimeAxis::Ops ? static_cast<double>(timeline.steps()) : timeline.makespan();
}

namespace {

// The last op started by `time` (starts never decrease: one compute stream).
std::int64_t lastStarted(const Timeline &timeline, double time) {
    std::int64_t lo = 0, hi = timeline.steps(); // the first op starting after `time` is in [lo, hi]
    while (lo < hi) {
        const std::int64_t mid = lo + (hi - lo) / 2;
        if (timeline.startTime(mid) <= time)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo - 1;
}

} // namespace

std::int64_t stepAtTime(const Timeline &timeline, double time, TimeAxis axis) {
    const std::int64_t last = timeline.steps() - 1;
    if (axis == TimeAxis::Ops)
        return std::clamp(static_cast<std::int64_t>(time) - 1, std::int64_t{-1}, last);
    if (timeline.timed())
        return lastStarted(timeline, time);
    std::int64_t step = timeline.stepAtCost(time);
    while (step >= 0 && timeline.op(step).kind != OpKind::Compute)
        --step;
    return step;
}

double opShownTime(const Timeline &timeline, std::int64_t step, TimeAxis axis) {
    if (axis == TimeAxis::Cost && timeline.timed() && step >= 0)
        return timeline.startTime(step);
    return opEndTime(timeline, step, axis);
}

double streamTime(const Timeline &timeline, double time, TimeAxis axis) {
    if (axis == TimeAxis::Cost)
        return time;
    const std::int64_t step = stepAtTime(timeline, time, axis);
    return step < 0 ? 0.0 : timeline.endTime(step);
}

double forwardOpTime(const Timeline &timeline, TimeAxis axis) {
    if (axis == TimeAxis::Ops || !timeline.timed())
        return 1;
    const Model &model = timeline.model();
    double cost = 0;
    for (int i = 1; i <= model.layers(); ++i)
        cost += model.cost(model.forwardNode(i));
    const double seconds = cost / model.layers() * timeline.machine().secondsPerCost;
    return seconds > 0 ? seconds : 1;
}

std::vector<double> timelineEvents(const std::vector<const Timeline *> &timelines, TimeAxis axis, int framesPerOp) {
    // Each pane's end times never decrease: merging them is linear.
    std::vector<double> events{0.0};
    auto merge = [&events](std::size_t middle) {
        std::inplace_merge(events.begin(), events.begin() + static_cast<std::ptrdiff_t>(middle), events.end());
        events.erase(std::unique(events.begin(), events.end()), events.end());
    };
    for (const Timeline *timeline : timelines) {
        const std::size_t middle = events.size();
        for (std::int64_t s = 0; s < timeline->steps(); ++s) {
            const double end = opEndTime(*timeline, s, axis);
            if (end != events.back())
                events.push_back(end);
        }
        merge(middle);
    }
    if (axis == TimeAxis::Ops)
        return events;
    // Timed panes: where ops start (a stall ends), where transfers start and
    // end, and a grid so that an arrow on the link moves between them.
    std::vector<double> extra;
    double end = 0, grid = 0;
    for (const Timeline *timeline : timelines) {
        if (!timeline->timed())
            continue;
        for (std::int64_t s = 0; s < timeline->steps(); ++s)
            extra.push_back(timeline->startTime(s));
        for (const Transfer &x : timeline->transfers()) {
            extra.push_back(x.start);
            extra.push_back(x.end);
        }
        end = std::max(end, timeline->makespan());
        const double step = forwardOpTime(*timeline, axis) / std::max(1, framesPerOp);
        grid = grid > 0 ? std::min(grid, step) : step;
    }
    if (extra.empty())
        return events;
    constexpr double kMaxGridPoints = 20000; // long schedules: their ops give moments enough
    if (grid > 0 && end / grid <= kMaxGridPoints)
        for (double t = grid; t < end; t += grid)
            extra.push_back(t);
    std::sort(extra.begin(), extra.end());
    const std::size_t middle = events.size();
    events.insert(events.end(), extra.begin(), extra.end());
    merge(middle);
    return events;
}

std::string timeText(double time, TimeAxis axis, const Model &model, bool withUnit) {
    return formatCost(time, withUnit && axis == TimeAxis::Cost ? model.costUnit() : std::string());
}

std::string timeText(double time, TimeAxis axis, const Timeline &timeline, bool withUnit) {
    if (axis == TimeAxis::Cost && timeline.timed())
        return formatSeconds(time);
    return timeText(time, axis, timeline.model(), withUnit);
}

std::string timeAxisTitle(TimeAxis axis, const Model &model) {
    if (axis == TimeAxis::Ops)
        return "time (ops)";
    return model.costUnit().empty() ? "time (cost: forward op 1, backward op 2)" : "time (" + model.costUnit() + ")";
}

std::string timeAxisTitle(TimeAxis axis, const Timeline &timeline) {
    if (axis == TimeAxis::Cost && timeline.timed())
        return "time (compute stream and link " + formatBandwidth(timeline.machine().link.bytesPerSecond) +
               ", stalls included)";
    return timeAxisTitle(axis, timeline.model());
}

} // namespace remat::render
