#pragma once
// The timeline as an animated GIF: the frames are TimelinePicture paintings
// (the screen's painters) at the sampled moments, encoded by GifEncoder with
// the palette of the picture's colours. A job: plan it, then run() it with a
// progress callback and a cancel check (from any thread; the studio runs it
// in a worker). A failed or cancelled run leaves the target file as it was.
#include "app/export/frame_plan.h"
#include "app/export/timeline_picture.h"

#include <QString>

#include <cstdint>
#include <functional>
#include <vector>

namespace remat::exporting {

// GIFs open with a title card (caption, panes, legend) unless asked not to.
constexpr int kDefaultTitleFrameMs = 2000;

struct GifExportOptions {
    TimelinePicture::Options picture;
    FrameSampling sampling;
    double fps = 8;
    int loops = 0;                           // 0 = forever, N = play N times
    int finalHoldMs = 2000;                  // the finished picture stays this long before the loop restarts
    int titleFrameMs = kDefaultTitleFrameMs; // > 0: a title card (caption, panes, legend) first, this long
    // Moments on the time axis the animation pauses at (a lesson's stops):
    // each is a frame of its own, shown at least `holdMs`. Each timed pane's
    // first stall (by cost) is held too.
    std::vector<double> holdAt;
    int holdMs = 1500;
};

struct GifExportResult {
    int framesPainted = 0;
    int framesWritten = 0; // identical consecutive frames are stored once
    std::int64_t bytes = 0;
};

class TimelineGifExport {
public:
    struct Frame {
        bool title = false; // the title card
        double time = 0;    // moment on the time axis (not for the title card)
        int delayMs = 0;    // as asked; the GIF stores it in 1/100 s, at least 20 ms
    };

    // Plans the frames. Throws InvalidArgument naming a bad option.
    TimelineGifExport(std::vector<ExportPane> panes, GifExportOptions options);

    const std::vector<Frame> &frames() const { return frames_; }
    const GifExportOptions &options() const { return options_; }
    TimelinePicture &picture() { return picture_; }

    // Paints and encodes every frame into `path`. `progress(done, total)` is
    // called after each frame; when `cancelled()` returns true the run stops
    // and throws remat::Cancelled. Throws remat::Error when writing fails.
    GifExportResult run(const QString &path, const std::function<void(int, int)> &progress = {},
                        const std::function<bool()> &cancelled = {});

private:
    GifExportOptions options_;
    TimelinePicture picture_;
    std::vector<Frame> frames_;
};

} // namespace remat::exporting
