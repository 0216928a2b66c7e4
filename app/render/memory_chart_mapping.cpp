#include "app/render/memory_chart_mapping.h"

#include <algorithm>
#include <cmath>

namespace remat::render {

MemoryChartMapping MemoryChartMapping::make(const QRectF &plot, double maxTime, std::int64_t maxBytes) {
    MemoryChartMapping m;
    m.plot = plot;
    // Time fills the width exactly (the schedule's end is the right edge); bytes
    // get headroom up to a round value so the peak label fits above the line.
    m.timeEnd = maxTime > 0 ? maxTime : 1;
    m.bytesTop = axisTop(static_cast<double>(std::max<std::int64_t>(maxBytes, 1)));
    return m;
}

double MemoryChartMapping::axisTop(double maxValue) {
    // A round tick step (about four ticks to the peak, at least 1), then the first tick
    // at least 10% above the peak: room for its label, no wasted height.
    const double step = std::max(1.0, niceCeiling(maxValue / 4)); // bytes come whole
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
