#include "app/render/stream_narration.h"

#include "app/render/narration.h"
#include "core/rates.h"

#include <algorithm>
#include <cmath>

namespace remat::render {

namespace {

const Transfer &transferOf(const Timeline &timeline, std::int32_t k) {
    return timeline.transfers()[static_cast<std::size_t>(k)];
}

std::string percent(double fraction) {
    return std::to_string(static_cast<int>(std::floor(std::clamp(fraction, 0.0, 1.0) * 100))) + "%";
}

// "offloading a_3 to host", "prefetching a_4 from host".
std::string copying(const Model &model, const Transfer &x) {
    return x.direction == Direction::ToHost ? "offloading " + model.name(x.node) + " to host"
                                            : "prefetching " + model.name(x.node) + " from host";
}

// The compute op running at `time`, as "a_5", or "" when the compute stream is idle.
std::string computing(const Timeline &timeline, double time) {
    const std::int64_t c = timeline.computeAt(time);
    return c < 0 ? std::string() : timeline.model().name(timeline.op(c).node);
}

double stalledSeconds(const Timeline &timeline) {
    double total = 0;
    for (const Stall &s : timeline.stalls())
        total += s.to - s.from;
    return total;
}

} // namespace

std::optional<Stall> stallAt(const Timeline &timeline, double time) {
    const std::vector<Stall> &stalls = timeline.stalls();
    // Stalls are in order and disjoint: the last one starting at or before `time`.
    const auto it =
        std::upper_bound(stalls.begin(), stalls.end(), time, [](double t, const Stall &s) { return t < s.from; });
    if (it == stalls.begin())
        return std::nullopt;
    const Stall &s = *std::prev(it);
    return time < s.to ? std::optional<Stall>(s) : std::nullopt;
}

std::string narrateAt(const Timeline &timeline, const std::vector<std::uint8_t> &checkpoints, const StepState &state,
                      double time) {
    if (!timeline.timed())
        return narrate(timeline, checkpoints, state);
    const Model &model = timeline.model();
    if (const std::optional<Stall> stall = stallAt(timeline, time)) {
        const Transfer &x = transferOf(timeline, stall->transfer);
        const Op waiting = timeline.op(stall->step);
        const std::string span = "Stalled " + formatSeconds(stall->to - stall->from) + " (" +
                                 formatSeconds(stall->from) + " to " + formatSeconds(stall->to) + "): ";
        const std::string copy = "the copy takes " + formatSeconds(x.end - x.start) + " on the link";
        if (x.direction == Direction::ToDevice)
            return span + model.name(x.node) + " is still arriving from host, and " + describe(model, waiting) +
                   " reads it; the compute stream waits for the copy stream (" + copy + ").";
        return span + describe(model, waiting) + " must wait until the copy of " + model.name(x.node) +
               " to host is done: the link still reads its device copy (" + copy +
               ", longer than the compute beside it).";
    }
    std::string out = narrate(timeline, checkpoints, state);
    const std::int32_t k = timeline.transferAt(time);
    if (k < 0)
        return out;
    const Transfer &x = transferOf(timeline, k);
    const std::string busy = computing(timeline, time);
    out += " Meanwhile the link is " + copying(model, x) + (busy.empty() ? "" : " while computing " + busy) + " (" +
           percent(timeline.transferProgress(k, time)) + " of " + formatSeconds(x.end - x.start) + ").";
    return out;
}

std::string laneCaption(const Timeline &timeline, double time) {
    if (!timeline.timed())
        return {};
    const Model &model = timeline.model();
    if (time >= timeline.makespan() && timeline.steps() > 0)
        return "done in " + formatSeconds(timeline.makespan()) + ", " + formatSeconds(stalledSeconds(timeline)) +
               " stalled";
    if (const std::optional<Stall> stall = stallAt(timeline, time)) {
        const Transfer &x = transferOf(timeline, stall->transfer);
        const std::string what = x.direction == Direction::ToDevice
                                     ? model.name(x.node) + " still arriving from host"
                                     : "copy of " + model.name(x.node) + " to host not done";
        return "stalled " + formatSeconds(stall->to - stall->from) + ": " + what;
    }
    const std::string busy = computing(timeline, time);
    const std::int32_t k = timeline.transferAt(time);
    if (k < 0)
        return busy.empty() ? "link idle" : "computing " + busy + " \u00B7 link idle";
    const Transfer &x = transferOf(timeline, k);
    const std::string arrow = x.direction == Direction::ToHost ? " \u2192 host " : " \u2190 host ";
    return model.name(x.node) + arrow + percent(timeline.transferProgress(k, time)) +
           (busy.empty() ? std::string() : " while computing " + busy);
}

} // namespace remat::render
