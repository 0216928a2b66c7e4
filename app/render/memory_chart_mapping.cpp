#include "app/render/memory_chart_mapping.h"

#include <algorithm>
#include <cmath>

namespace remat::render {

MemoryChartMapping MemoryChartMapping::make(const QRectF &plot, double maxTime, std::int64_t maxBytes,
                                            double headroom) {
    MemoryChartMapping m;
    m.plot = plot;
    // Time fills the width exactly (the schedule's end is the right edge); bytes
    // get headroom up to a round value so the peak label fits above the line.
    m.timeEnd = maxTime > 0 ? maxTime : 1;
    const double peak = static_cast<double>(std::max<std::int64_t>(maxBytes, 1));
    m.bytesTop = axisTop(peak);
    // The free fraction the headroom needs, met by the next multiples of the same round step.
    const double free = std::clamp(headroom / std::max(1.0, plot.height()), 0.0, 0.6);
    if (peak > m.bytesTop * (1 - free)) {
        const double step = std::max(1.0, niceByteCeiling(peak / 4));
        m.bytesTop = std::ceil(peak / (1 - free) / step) * step;
    }
    return m;
}

double MemoryChartMapping::axisTop(double maxValue) {
    // A round tick step (about four ticks to the peak, at least 1), then the first tick
    // at least 10% above the peak: room for its label, no wasted height.
    const double step = std::max(1.0, niceByteCeiling(maxValue / 4)); // bytes come whole
    return std::ceil(maxValue * 1.1 / step) * step;
}

double MemoryChartMapping::niceCeiling(double value) {
    if (!(value > 0))
        return 1;
    const double power = std::pow(10.0, std::floor(std::log10(value)));
    for (const double f : {1.0, 2.0, 5.0, 10.0})
        if (f * power >= value * (1 - 1e-12))
            return f * power;
    return 10 * power;
}

double MemoryChartMapping::niceByteCeiling(double value) {
    // 1, 2, 5 times a power of ten of the binary unit that fits: ticks read
    // "512 MiB, 1 GiB" rather than "953.67 MiB".
    double unit = 1;
    while (value >= unit * 1024)
        unit *= 1024;
    const double nice = niceCeiling(value / unit);
    return nice >= 1000 ? 1024 * unit : nice * unit; // 1000 MiB reads better as 1 GiB
}

std::vector<double> MemoryChartMapping::byteTicks(double top, int maxTicks) {
    std::vector<double> out;
    if (!(top > 0) || maxTicks < 1)
        return {0};
    const double step = std::max(1.0, niceByteCeiling(top / maxTicks));
    for (int i = 0; i * step <= top * (1 + 1e-9); ++i)
        out.push_back(i * step);
    return out;
}

std::vector<double> MemoryChartMapping::ticks(double top, int maxTicks) {
    std::vector<double> out;
    if (!(top > 0) || maxTicks < 1)
        return {0};
    const double step = niceCeiling(top / maxTicks);
    for (int i = 0; i * step <= top * (1 + 1e-9); ++i)
        out.push_back(i * step);
    return out;
}

} // namespace remat::render
