#pragma once
// The memory chart's coordinates: time <-> x and bytes <-> y inside the plot
// rectangle, axis ticks at round values. A plain struct (like hotspot's
// mapTimeToX), so the mapping is tested without a window.
#include <QRectF>

#include <cstdint>
#include <vector>

namespace remat::render {

struct MemoryChartMapping {
    QRectF plot;         // the area inside the axes
    double timeEnd = 1;  // time at the right edge of the plot
    double bytesTop = 1; // bytes at the top edge of the plot

    // Axes from 0 to the data's maxima rounded up to a round value, and high
    // enough that `headroom` pixels stay free above the highest value (room
    // for the peak labels, render::placePeakLabels).
    static MemoryChartMapping make(const QRectF &plot, double maxTime, std::int64_t maxBytes, double headroom = 0);

    double timeToX(double time) const { return plot.left() + time / timeEnd * plot.width(); }
    double xToTime(double x) const { return (x - plot.left()) / plot.width() * timeEnd; }
    // y grows downwards: 0 bytes at the bottom of the plot.
    double bytesToY(double bytes) const { return plot.bottom() - bytes / bytesTop * plot.height(); }
    double yToBytes(double y) const { return (plot.bottom() - y) / plot.height() * bytesTop; }
    QPointF map(double time, double bytes) const { return {timeToX(time), bytesToY(bytes)}; }

    // The top of the bytes axis for a peak of maxValue: a multiple of a round step, 10% above it or more.
    static double axisTop(double maxValue);
    // The smallest 1, 2 or 5 times a power of ten that is >= value (1 for value <= 0).
    static double niceCeiling(double value);
    // Round tick values from 0 to `top` inclusive, at most `maxTicks` + 1 of them.
    // Byte ticks: steps of 1, 2 or 5 times a power of ten of KiB, MiB, GiB...
    static std::vector<double> byteTicks(double top, int maxTicks);
    static double niceByteCeiling(double value);
    static std::vector<double> ticks(double top, int maxTicks);
};

} // namespace remat::render
