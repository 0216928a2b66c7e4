#pragma once
// Where the memory chart's peak labels go, apart from painting (like
// MemoryChartMapping): each label beside its own marker when that spot is
// clear, else the nearest clear spot, joined to its marker by a leader line.
// Clear means inside the plot and overlapping no other label, no marker, no
// rectangle to keep clear (the kind legend) and no plotted curve. The chart
// keeps a band one label high above its highest curve
// (MemoryChartMapping::make's headroom), so every label finds a clear spot
// while they fit side by side in that band.
#include <QPolygonF>
#include <QRectF>

#include <vector>

namespace remat::render {

// The pixels the plotted curves cover, column by column, for fast "does this
// box touch a curve" questions (thousands of candidate boxes per label).
class CurveCoverage {
public:
    // `halfWidth`: half the pen width plus a margin around every segment.
    CurveCoverage(const QRectF &area, const std::vector<QPolygonF> &curves, double halfWidth);
    bool touches(const QRectF &box) const;

private:
    struct Span {
        float top, bottom;
    };
    void addSegment(QPointF a, QPointF b, double halfWidth);
    double left_ = 0;
    std::vector<std::vector<Span>> columns_; // one per pixel column from left_
};

struct PeakLabel {
    QRectF box;
    bool besideMarker = true; // false: away from it, a leader line joins them
};

// One label per marker, in the same order. `sizes[i]` is label i's size;
// markers are circles of `markerRadius`. When no spot is clear (more labels
// than fit), a label takes the spot overlapping least.
std::vector<PeakLabel> placePeakLabels(const std::vector<QPointF> &markers, const std::vector<QSizeF> &sizes,
                                       double markerRadius, const std::vector<QPolygonF> &curves, double curveHalfWidth,
                                       const std::vector<QRectF> &keepClear, const QRectF &bounds);

// Where a leader line from `marker` meets `box` (the nearest point of its edge).
QPointF leaderEnd(const QPointF &marker, const QRectF &box);

} // namespace remat::render
