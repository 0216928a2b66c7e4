#include "app/export/frame_plan.h"

#include "core/errors.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace remat::exporting {

std::vector<double> sampleEvents(const std::vector<double> &events, const FrameSampling &sampling) {
    if (events.empty())
        return {};
    const std::size_t count = events.size();
    std::vector<double> out;
    switch (sampling.mode) {
    case FrameSampling::Mode::EveryOp:
        return events;
    case FrameSampling::Mode::EveryKth: {
        if (sampling.every < 1)
            throw InvalidArgument("frame sampling: every " + std::to_string(sampling.every) +
                                  "-th op is not allowed; use 1 or more");
        for (std::size_t i = 0; i < count; i += static_cast<std::size_t>(sampling.every))
            out.push_back(events[i]);
        if (out.back() != events.back())
            out.push_back(events.back());
        return out;
    }
    case FrameSampling::Mode::MaxFrames: {
        if (sampling.maxFrames < 2)
            throw InvalidArgument("frame sampling: at most " + std::to_string(sampling.maxFrames) +
                                  " frames is not allowed; use 2 or more");
        const std::size_t frames = std::min<std::size_t>(count, static_cast<std::size_t>(sampling.maxFrames));
        if (frames == count)
            return events;
        // Evenly spread indices, first and last included, no repeats (frames < count).
        for (std::size_t i = 0; i < frames; ++i)
            out.push_back(events[i * (count - 1) / (frames - 1)]);
        return out;
    }
    }
    return events;
}

std::vector<int> frameDelaysMs(int frames, double fps, int finalHoldMs) {
    if (!(fps > 0) || fps > 50)
        throw InvalidArgument("frame rate " + std::to_string(fps) +
                              " fps is not allowed; use more than 0 and at most 50 (20 ms per frame)");
    std::vector<int> out;
    out.reserve(static_cast<std::size_t>(std::max(frames, 0)));
    auto centiseconds = [&](int i) { return std::llround(100.0 * i / fps); };
    for (int i = 0; i < frames; ++i)
        out.push_back(static_cast<int>(10 * (centiseconds(i + 1) - centiseconds(i))));
    if (!out.empty())
        out.back() = std::max(out.back(), finalHoldMs);
    return out;
}

} // namespace remat::exporting
