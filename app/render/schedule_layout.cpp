#include "app/render/schedule_layout.h"

#include <algorithm>
#include <cmath>

namespace remat::render {

namespace {
// Within a band: forward row centre, backward row centre (in pitches from the band top).
constexpr double kForwardRow = 0.85;
constexpr double kBackwardRow = 2.35;
constexpr double kRadiusPerPitch = 0.32;

double ringRadiusAt(double pitch) {
    return pitch * kRadiusPerPitch + std::max(2.0, pitch * 0.09);
}

// Pixels a band needs beyond kBandPitches x pitch when another band follows:
// the backward names below one band and the forward names above the next,
// each a ring and a line away from its row, with 2 px between them.
double extraBetweenBands(double pitch) {
    if (pitch < ScheduleLayout::kMinLabelPitch)
        return 0; // no names
    const double needed = 2 * (ringRadiusAt(pitch) + 1 + ScheduleLayout::labelLineHeight(pitch)) + 2;
    const double room = (ScheduleLayout::kBandPitches - (kBackwardRow - kForwardRow)) * pitch;
    return std::max(0.0, needed - room);
}

// Pixels a name reaches beyond its band: forward names above the band's top,
// backward names below its bottom (on small nodes a line outgrows the pitch).
double namesAbove(double pitch) {
    if (pitch < ScheduleLayout::kMinLabelPitch)
        return 0;
    return std::max(0.0, ringRadiusAt(pitch) + 1 + ScheduleLayout::labelLineHeight(pitch) - kForwardRow * pitch);
}
double namesBelow(double pitch) {
    if (pitch < ScheduleLayout::kMinLabelPitch)
        return 0;
    return std::max(0.0, ringRadiusAt(pitch) + 1 + ScheduleLayout::labelLineHeight(pitch) -
                             (ScheduleLayout::kBandPitches - kBackwardRow) * pitch);
}

// The height `bands` bands take, with or without the names beyond the first
// and the last band.
double pictureHeight(double pitch, int bands, bool withOuterNames) {
    return bands * ScheduleLayout::kBandPitches * pitch + (bands - 1) * extraBetweenBands(pitch) +
           (withOuterNames ? namesAbove(pitch) + namesBelow(pitch) : 0);
}

double largestPitch(double height, int bands, bool withOuterNames) {
    const double plain = height / (bands * ScheduleLayout::kBandPitches);
    if (pictureHeight(plain, bands, withOuterNames) <= height)
        return plain;
    double lo = 0, hi = plain;
    for (int k = 0; k < 40; ++k) {
        const double mid = (lo + hi) / 2;
        (pictureHeight(mid, bands, withOuterNames) <= height ? lo : hi) = mid;
    }
    return lo;
}

// The largest pitch at which `bands` bands fit `height` with every name
// inside; where that pitch would be too small for names, the smallest pitch
// that has names (the outer ones then touch the edge), if the bands fit it.
double pitchForHeight(double height, int bands) {
    const double whole = largestPitch(height, bands, true);
    if (whole >= ScheduleLayout::kMinLabelPitch)
        return whole;
    return std::min(largestPitch(height, bands, false), ScheduleLayout::kMinLabelPitch);
}
} // namespace

double ScheduleLayout::labelPixelSize(double pitch) {
    return std::clamp(pitch * 0.32, 9.0, 13.0);
}

double ScheduleLayout::ringRadius() const {
    return ringRadiusAt(pitch);
}

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
        const double pitch = std::min(area.width() / columns, pitchForHeight(area.height(), bands));
        if (pitch > bestPitch + 1e-9) {
            bestPitch = pitch;
            l.bands = bands;
            l.columns = columns;
        }
        if (pitchForHeight(area.height(), bands) < bestPitch)
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
    l.bandHeight = kBandPitches * l.pitch + (l.bands > 1 && l.labelEvery > 0 ? extraBetweenBands(l.pitch) : 0);
    // Centre the picture in the area.
    const double width = std::min(l.columns, count) * l.pitch;
    const double height = l.contentRect().height();
    const double left = area.left() + (area.width() - width) / 2;
    // Centred with the outer names, as far as the area allows.
    const double above = l.labelEvery > 0 ? namesAbove(l.pitch) : 0, below = l.labelEvery > 0 ? namesBelow(l.pitch) : 0;
    const double slack = std::max(0.0, area.height() - height);
    const double top = area.top() + std::clamp((slack + above - below) / 2, 0.0, slack);
    l.origin = QPointF(left + l.pitch / 2, top + kForwardRow * l.pitch);
    return l;
}

QPointF ScheduleLayout::forwardCenter(int index) const {
    const int b = index / columns;
    const int c = index % columns;
    return {origin.x() + c * pitch, origin.y() + b * bandHeight};
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
    return {origin.x() - pitch / 2, top, width, (bands - 1) * bandHeight + kBandPitches * pitch};
}

} // namespace remat::render
