#include "app/render/schedule_layout.h"

#include <algorithm>
#include <cmath>

namespace remat::render {

namespace {
// Within a band: forward row centre, backward row centre (in pitches from the band top).
constexpr double kForwardRow = 0.85;
constexpr double kBackwardRow = 2.35;
constexpr double kRadiusPerPitch = 0.32;
} // namespace

ScheduleLayout ScheduleLayout::make(int forwardCount, const QRectF &area) {
    ScheduleLayout l;
    l.forwardCount = std::max(1, forwardCount);
    l.area = area;
    const int count = l.forwardCount;
    double bestPitch = -1;
    // More bands only help while they make nodes bigger; stop once the band
    // height alone forbids a bigger pitch.
    for (int bands = 1; bands <= count; ++bands) {
        const int columns = (count + bands - 1) / bands;
        const double pitch = std::min(area.width() / columns, area.height() / (bands * kBandPitches));
        if (pitch > bestPitch + 1e-9) {
            bestPitch = pitch;
            l.bands = bands;
            l.columns = columns;
        }
        if (area.height() / (bands * kBandPitches) < bestPitch)
            break;
    }
    l.bands = (count + l.columns - 1) / l.columns;
    l.pitch = std::max(0.0, std::min(bestPitch, kMaxPitch));
    l.radius = l.pitch * kRadiusPerPitch;
    l.labelEvery = 1;
    for (const int step : {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000}) {
        l.labelEvery = step;
        if (step * l.pitch >= kMinLabelSpacing)
            break;
    }
    // Names need room between the rows; on tiny nodes the tooltip names them instead.
    if (l.labelEvery * l.pitch < kMinLabelSpacing || l.pitch < kMinLabelPitch)
        l.labelEvery = 0;
    // Centre the picture in the area.
    const double width = std::min(l.columns, count) * l.pitch;
    const double height = l.bands * kBandPitches * l.pitch;
    const double left = area.left() + (area.width() - width) / 2;
    const double top = area.top() + std::max(0.0, (area.height() - height) / 2);
    l.origin = QPointF(left + l.pitch / 2, top + kForwardRow * l.pitch);
    return l;
}

QPointF ScheduleLayout::forwardCenter(int index) const {
    const int b = index / columns;
    const int c = index % columns;
    return {origin.x() + c * pitch, origin.y() + b * kBandPitches * pitch};
}

QPointF ScheduleLayout::backwardCenter(int index) const {
    return forwardCenter(index) + QPointF(0, (kBackwardRow - kForwardRow) * pitch);
}

ScheduleLayout::Edge ScheduleLayout::edge(const Model &model, NodeId from, NodeId to) const {
    const QPointF a = center(model, from);
    const QPointF b = center(model, to);
    const int fromIndex = model.indexOf(from);
    const int toIndex = model.indexOf(to);
    Edge e;
    e.crossesBands = band(fromIndex) != band(toIndex);
    const bool sameRow = model.isBackward(from) == model.isBackward(to);
    if (e.crossesBands && sameRow && std::abs(fromIndex - toIndex) <= 1) {
        e.drawn = false; // a chain link to the next band: the band order says it
        return e;
    }
    if (!sameRow || std::abs(fromIndex - toIndex) <= 1) {
        const QPointF d = b - a;
        const double len = std::hypot(d.x(), d.y());
        const QPointF u = len > 0 ? d / len : QPointF(0, 0);
        e.start = a + u * radius;
        e.end = b - u * (radius + 1);
        e.control1 = e.start;
        e.control2 = e.end;
        return e;
    }
    // Skip edges: away from the other row; longer spans arc higher so that
    // nested skips (U-Net) stay apart. Across bands the same shape: forward
    // skips still arrive from above, backward ones from below.
    e.straight = false;
    const double side = model.isBackward(to) ? 1 : -1;
    const double span = std::abs(fromIndex - toIndex);
    const double height = pitch * std::min(0.95, 0.45 + 0.1 * std::log2(span));
    e.start = a + QPointF(0, side * radius);
    e.end = b + QPointF(0, side * (radius + 1));
    e.control1 = e.start + QPointF(0, side * height);
    e.control2 = e.end + QPointF(0, side * height);
    return e;
}

bool ScheduleLayout::showsLabel(int index) const {
    if (labelEvery <= 0)
        return false;
    if (index % labelEvery == 0)
        return true;
    // a_n (the loss side) is named too, unless a regular label sits too close.
    return index == forwardCount - 1 && (index % labelEvery) * pitch >= kMinLabelSpacing;
}

long long ScheduleLayout::hitTest(QPointF point) const {
    if (pitch <= 0)
        return -1;
    const double bandHeight = kBandPitches * pitch;
    const double top = origin.y() - kForwardRow * pitch;
    const int b = static_cast<int>(std::floor((point.y() - top) / bandHeight));
    const int c = static_cast<int>(std::lround((point.x() - origin.x()) / pitch));
    if (b < 0 || b >= bands || c < 0 || c >= columns)
        return -1;
    const int index = b * columns + c;
    if (index >= forwardCount)
        return -1;
    // Small nodes get a slightly larger target than their disc.
    const double reach = std::max(radius, 0.45 * pitch);
    auto within = [&](QPointF centre) {
        const QPointF d = point - centre;
        return d.x() * d.x() + d.y() * d.y() <= reach * reach;
    };
    if (within(forwardCenter(index)))
        return index;
    if (within(backwardCenter(index)))
        return forwardCount + index;
    return -1;
}

QRectF ScheduleLayout::contentRect() const {
    const double top = origin.y() - kForwardRow * pitch;
    const double width = std::min(columns, forwardCount) * pitch;
    return {origin.x() - pitch / 2, top, width, bands * kBandPitches * pitch};
}

} // namespace remat::render
