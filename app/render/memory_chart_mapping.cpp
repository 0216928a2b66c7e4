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

std::vector<QRectF> placeLabels(const std::vector<QRectF> &wanted, const std::vector<QRectF> &keepClear,
                                const QRectF &bounds, const std::vector<double> &otherSideShift) {
    std::vector<QRectF> placed;
    placed.reserve(wanted.size());
    auto overlap = [&](const QRectF &box) {
        double area = 0;
        auto add = [&](const QRectF &other) {
            const QRectF common = box.intersected(other);
            if (!common.isEmpty())
                area += common.width() * common.height() + 1; // touching a little is still a collision
        };
        for (const QRectF &other : placed)
            add(other);
        for (const QRectF &other : keepClear)
            add(other);
        return area;
    };
    auto inside = [&](const QRectF &box) {
        return box.top() >= bounds.top() && box.bottom() <= bounds.bottom() && box.left() >= bounds.left() &&
               box.right() <= bounds.right();
    };
    for (std::size_t i = 0; i < wanted.size(); ++i) {
        const QRectF first = wanted[i];
        const double step = first.height() + 1;
        const double shift = i < otherSideShift.size() ? otherSideShift[i] : 0.0;
        // Candidates nearest first: 0, up 1, down 1, up 2, ... on this side, then the other.
        const int reach = std::max(1, static_cast<int>(bounds.height() / step) + 1);
        QRectF best = first;
        double bestOverlap = -1;
        bool found = false;
        for (const double dx : {0.0, shift}) {
            for (int k = 0; k <= 2 * reach && !found; ++k) {
                const double dy = (k % 2 ? -1.0 : 1.0) * ((k + 1) / 2) * step;
                const QRectF box = first.translated(dx, dy);
                if (!inside(box))
                    continue;
                const double o = overlap(box);
                if (o == 0) {
                    best = box;
                    found = true;
                } else if (bestOverlap < 0 || o < bestOverlap) {
                    best = box;
                    bestOverlap = o;
                }
            }
            if (found || shift == 0.0)
                break;
        }
        placed.push_back(best);
    }
    return placed;
}

} // namespace remat::render
