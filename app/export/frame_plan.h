#pragma once
// Which moments of the timeline become GIF frames, and how long each is shown.
// The clock is the studio player's: panes advance together on one time axis
// (by cost or by op), so a strategy that recomputes more finishes later.
#include "app/render/time_axis.h"

#include <vector>

namespace remat::exporting {

struct FrameSampling {
    enum class Mode { EveryOp, EveryKth, MaxFrames };
    Mode mode = Mode::MaxFrames;
    int every = 1;       // EveryKth: keep every k-th moment
    int maxFrames = 300; // MaxFrames: at most this many, evenly spread
};

// The candidate moments are render::timelineEvents (app/render/time_axis.h),
// the studio player's positions.

// The moments to paint. The first and last moments are always kept, so an
// export starts empty and ends with the finished backward pass. Throws
// InvalidArgument for every < 1 or maxFrames < 2.
std::vector<double> sampleEvents(const std::vector<double> &events, const FrameSampling &sampling);

// Delays in ms, multiples of 10 (GIF's 1/100 s), for `frames` frames at
// `fps`: rounding is carried from frame to frame, so the average rate is
// exact (8 fps: 130, 120, 130, 120 ms). The last frame is held `finalHoldMs`
// instead when that is longer. Throws InvalidArgument unless 0 < fps <= 50
// (faster than 20 ms per frame browsers slow down to 100 ms).
std::vector<int> frameDelaysMs(int frames, double fps, int finalHoldMs);

} // namespace remat::exporting
