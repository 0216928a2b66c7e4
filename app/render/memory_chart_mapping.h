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

    // Axes from 0 to the data's maxima rounded up to a round value.
    static MemoryChartMapping make(const QRectF &plot, double maxTime, std::int64_t maxBytes);

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

// Where the peak labels go. Each label wants `wanted[i]` (beside its marker);
// it is moved, in steps of its own height, up or down, and then to the
// marker's other side, to the nearest place that stays inside `bounds` and
// overlaps neither a label placed before it nor any rectangle of `keepClear`
// (the markers). When there is no such place (more labels than room) it keeps
// the place overlapping least. Same order and count as `wanted`.
std::vector<QRectF> placeLabels(const std::vector<QRectF> &wanted, const std::vector<QRectF> &keepClear,
                                const QRectF &bounds, const std::vector<double> &otherSideShift = {});

} // namespace remat::render
