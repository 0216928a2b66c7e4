#include "app/render/saved_internals_bars.h"

#include <algorithm>
#include <cmath>

namespace remat::render {

namespace {
// Clear of the node and of its checkpoint ring (schedule_painter's ring radius + a pixel).
double topGap(const ScheduleLayout &layout) {
    return layout.radius + std::max(2.0, layout.pitch * 0.09) + 2;
}
// Right of the vertical a_i -> b_i arrow and its pen.
double leftGap(const ScheduleLayout &layout) {
    return std::max(2.0, layout.pitch * 0.08);
}
} // namespace

SavedInternalsBars SavedInternalsBars::make(const ScheduleLayout &layout, const Model &model) {
    SavedInternalsBars bars;
    bars.layout = layout;
    if (model.hasSavedBytes())
        for (int i = 1; i < model.forwardCount(); ++i)
            bars.largest = std::max(bars.largest, model.savedBytes(i));
    return bars;
}

QRectF SavedInternalsBars::bar(int forwardIndex, std::int64_t savedBytes) const {
    if (!drawn() || savedBytes <= 0)
        return {};
    const QPointF c = layout.forwardCenter(forwardIndex);
    const double full = layout.pitch * kMaxHeightPerPitch;
    const double height = std::max(kMinHeight, full * static_cast<double>(savedBytes) / static_cast<double>(largest));
    return {c.x() + leftGap(layout), c.y() + topGap(layout), layout.pitch * kWidthPerPitch, height};
}

QRectF SavedInternalsBars::label(const QRectF &bar, double textWidth, double textHeight) const {
    if (bar.isEmpty())
        return {};
    const double left = bar.right() + 2;
    // The next column's a -> b arrow runs at x + pitch; keep a pixel or two from it.
    const double right = bar.left() - leftGap(layout) + layout.pitch - 3;
    if (right - left < textWidth || bar.height() < textHeight * 0.8)
        return {};
    return {left, bar.top(), right - left, textHeight};
}

} // namespace remat::render
