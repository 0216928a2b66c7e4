#include "app/export/timeline_gif_export.h"

#include "app/export/gif_encoder.h"
#include "core/errors.h"

#include <algorithm>

namespace remat::exporting {

namespace {

GifExportOptions checked(GifExportOptions options) {
    if (options.loops < 0 || options.loops > 65536)
        throw InvalidArgument("loop count " + std::to_string(options.loops) +
                              " is not allowed; use 0 (forever) to 65536");
    if (options.finalHoldMs < 0 || options.finalHoldMs > GifEncoder::kMaxDelayMs)
        throw InvalidArgument("final hold " + std::to_string(options.finalHoldMs) + " ms is not allowed; use 0 to " +
                              std::to_string(GifEncoder::kMaxDelayMs) + " ms");
    if (options.titleFrameMs < 0 || options.titleFrameMs > GifEncoder::kMaxDelayMs)
        throw InvalidArgument("title frame " + std::to_string(options.titleFrameMs) +
                              " ms is not allowed; use 0 (none) to " + std::to_string(GifEncoder::kMaxDelayMs) + " ms");
    if (options.holdMs < 0 || options.holdMs > GifEncoder::kMaxDelayMs)
        throw InvalidArgument("hold at a stop " + std::to_string(options.holdMs) + " ms is not allowed; use 0 to " +
                              std::to_string(GifEncoder::kMaxDelayMs) + " ms");
    if (options.picture.size.width() > 4096 || options.picture.size.height() > 4096)
        throw InvalidArgument("GIF size " + std::to_string(options.picture.size.width()) + "x" +
                              std::to_string(options.picture.size.height()) + " is too large; use at most 4096x4096");
    return options;
}

} // namespace

TimelineGifExport::TimelineGifExport(std::vector<ExportPane> panes, GifExportOptions options)
    : options_(checked(std::move(options))), picture_(std::move(panes), options_.picture) {
    std::vector<const Timeline *> timelines;
    for (int i = 0; i < picture_.shownPanes(); ++i)
        timelines.push_back(picture_.panes()[static_cast<std::size_t>(i)].timeline.get());
    std::vector<double> times =
        sampleEvents(render::timelineEvents(timelines, options_.picture.axis), options_.sampling);
    // Every stop is a frame of its own, then held; so is each timed pane's
    // first stall, so that a viewer can read why the compute stream waits.
    std::vector<double> stops = options_.holdAt;
    if (options_.picture.axis == render::TimeAxis::Cost)
        for (const Timeline *timeline : timelines)
            if (timeline->timed() && !timeline->stalls().empty())
                stops.push_back((timeline->stalls().front().from + timeline->stalls().front().to) / 2);
    const double end = times.back();
    for (const double stop : stops)
        if (stop >= 0 && stop <= end)
            times.push_back(stop);
    std::sort(times.begin(), times.end());
    times.erase(std::unique(times.begin(), times.end()), times.end());
    std::vector<int> delays = frameDelaysMs(static_cast<int>(times.size()), options_.fps, options_.finalHoldMs);
    for (std::size_t i = 0; i < times.size(); ++i)
        if (std::find(stops.begin(), stops.end(), times[i]) != stops.end())
            delays[i] = std::max(delays[i], options_.holdMs);
    if (options_.titleFrameMs > 0)
        frames_.push_back({true, 0.0, options_.titleFrameMs});
    for (std::size_t i = 0; i < times.size(); ++i)
        frames_.push_back({false, times[i], delays[i]});
}

GifExportResult TimelineGifExport::run(const QString &path, const std::function<void(int, int)> &progress,
                                       const std::function<bool()> &cancelled) {
    const QSize size = options_.picture.size;
    GifEncoder encoder(path, size.width(), size.height(), GifPalette::fromPalette(options_.picture.palette),
                       options_.loops);
    QImage image(size, QImage::Format_RGB32);
    const int total = static_cast<int>(frames_.size());
    GifExportResult result;
    for (int i = 0; i < total; ++i) {
        if (cancelled && cancelled())
            throw Cancelled(); // the encoder's destructor discards the temporary file
        const Frame &frame = frames_[static_cast<std::size_t>(i)];
        if (frame.title)
            picture_.paintTitle(image);
        else
            picture_.paint(image, frame.time);
        encoder.addFrame(image, frame.delayMs);
        ++result.framesPainted;
        if (progress)
            progress(i + 1, total);
    }
    if (cancelled && cancelled())
        throw Cancelled();
    encoder.finish();
    result.framesWritten = encoder.framesWritten();
    result.bytes = encoder.bytesWritten();
    return result;
}

} // namespace remat::exporting
