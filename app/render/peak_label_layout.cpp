#include "app/render/peak_label_layout.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace remat::render {

CurveCoverage::CurveCoverage(const QRectF &area, const std::vector<QPolygonF> &curves, double halfWidth)
    : left_(std::floor(area.left())),
      columns_(static_cast<std::size_t>(std::max(0.0, std::ceil(area.right()) - std::floor(area.left())) + 1)) {
    for (const QPolygonF &curve : curves) {
        if (curve.size() == 1)
            addSegment(curve[0], curve[0], halfWidth);
        for (qsizetype i = 1; i < curve.size(); ++i)
            addSegment(curve[i - 1], curve[i], halfWidth);
    }
}

void CurveCoverage::addSegment(QPointF a, QPointF b, double halfWidth) {
    if (a.x() > b.x())
        std::swap(a, b);
    const double first = std::floor(a.x() - halfWidth - left_);
    const double last = std::floor(b.x() + halfWidth - left_);
    const auto count = static_cast<double>(columns_.size());
    for (double c = std::max(0.0, first); c <= last && c < count; ++c) {
        // The part of the segment over this column (its pen reaches halfWidth sideways).
        const double x0 = std::clamp(left_ + c - halfWidth, a.x(), b.x());
        const double x1 = std::clamp(left_ + c + 1 + halfWidth, a.x(), b.x());
        const bool vertical = b.x() - a.x() < 1e-9;
        auto yAt = [&](double x) { return a.y() + (b.y() - a.y()) * (x - a.x()) / (b.x() - a.x()); };
        const double y0 = vertical ? a.y() : yAt(x0), y1 = vertical ? b.y() : yAt(x1);
        const double top = std::min(y0, y1), bottom = std::max(y0, y1);
        columns_[static_cast<std::size_t>(c)].push_back(
            {static_cast<float>(top - halfWidth), static_cast<float>(bottom + halfWidth)});
    }
}

bool CurveCoverage::touches(const QRectF &box) const {
    const double first = std::max(0.0, std::floor(box.left() - left_));
    const double last = std::min(static_cast<double>(columns_.size()) - 1, std::floor(box.right() - left_));
    for (double c = first; c <= last; ++c)
        for (const Span &s : columns_[static_cast<std::size_t>(c)])
            if (s.top < box.bottom() && s.bottom > box.top())
                return true;
    return false;
}

QPointF leaderEnd(const QPointF &marker, const QRectF &box) {
    return {std::clamp(marker.x(), box.left(), box.right()), std::clamp(marker.y(), box.top(), box.bottom())};
}

namespace {

double distance(const QPointF &p, const QRectF &box) {
    const QPointF q = leaderEnd(p, box);
    return std::hypot(p.x() - q.x(), p.y() - q.y());
}

// The box moved the least to lie inside `bounds` (as far as it fits).
QRectF inside(QRectF box, const QRectF &bounds) {
    box.moveLeft(std::clamp(box.left(), bounds.left(), std::max(bounds.left(), bounds.right() - box.width())));
    box.moveTop(std::clamp(box.top(), bounds.top(), std::max(bounds.top(), bounds.bottom() - box.height())));
    return box;
}

struct Candidate {
    QRectF box;
    double distance;
    bool beside;
};

// The spots beside the marker, in order of preference (above right first:
// the curve falls away to the right of a peak), then a grid over the whole
// plot, nearest first.
std::vector<Candidate> candidates(const QPointF &p, const QSizeF &size, double r, const QRectF &bounds) {
    const double w = size.width(), h = size.height(), gap = 3;
    std::vector<Candidate> beside;
    const double right = p.x() + r + gap, left = p.x() - r - gap - w, centre = p.x() - w / 2;
    for (const QRectF &box : {QRectF(right, p.y() - gap - h, w, h), QRectF(left, p.y() - gap - h, w, h),
                              QRectF(centre, p.y() - r - gap - h, w, h), QRectF(right, p.y() - h / 2, w, h),
                              QRectF(left, p.y() - h / 2, w, h), QRectF(right, p.y() + gap, w, h),
                              QRectF(left, p.y() + gap, w, h), QRectF(centre, p.y() + r + gap, w, h)})
        if (bounds.contains(box))
            beside.push_back({box, 0, true});
    std::vector<Candidate> grid;
    const double dx = std::max(4.0, w / 4), dy = std::max(3.0, h / 2);
    for (double y = bounds.top(); y + h <= bounds.bottom() + 1e-9; y += dy)
        for (double x = p.x() - w / 2 - std::ceil(bounds.width() / dx) * dx; x <= bounds.right(); x += dx) {
            if (x + w < bounds.left())
                continue;
            const QRectF box = inside(QRectF(x, y, w, h), bounds);
            const double d = distance(p, box);
            grid.push_back({box, d, d <= r + gap + 1});
        }
    std::stable_sort(grid.begin(), grid.end(),
                     [](const Candidate &a, const Candidate &b) { return a.distance < b.distance; });
    beside.insert(beside.end(), grid.begin(), grid.end());
    return beside;
}

} // namespace

std::vector<PeakLabel> placePeakLabels(const std::vector<QPointF> &markers, const std::vector<QSizeF> &sizes,
                                       double markerRadius, const std::vector<QPolygonF> &curves, double curveHalfWidth,
                                       const std::vector<QRectF> &keepClear, const QRectF &bounds) {
    const CurveCoverage coverage(bounds.adjusted(-2, -2, 2, 2), curves, curveHalfWidth);
    std::vector<QRectF> blocked = keepClear;
    for (const QPointF &m : markers)
        blocked.emplace_back(m.x() - markerRadius, m.y() - markerRadius, 2 * markerRadius, 2 * markerRadius);
    // The highest peaks first: they sit just under the free band at the top.
    std::vector<std::size_t> order(markers.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return markers[a].y() < markers[b].y(); });
    std::vector<PeakLabel> placed(markers.size());
    for (const std::size_t i : order) {
        auto overlap = [&](const QRectF &box) {
            double area = 0;
            for (const QRectF &other : blocked)
                if (const QRectF common = box.intersected(other); !common.isEmpty())
                    area += common.width() * common.height() + 1; // touching is still a collision
            return area;
        };
        const std::vector<Candidate> all = candidates(markers[i], sizes[i], markerRadius, bounds);
        const Candidate *best = nullptr;
        double bestBadness = 0;
        for (const Candidate &c : all) {
            const double o = overlap(c.box);
            const bool crosses = coverage.touches(c.box);
            if (o == 0 && !crosses) {
                best = &c;
                break;
            }
            const double badness = o + (crosses ? c.box.width() * c.box.height() / 2 : 0) + c.distance;
            if (!best || badness < bestBadness) {
                best = &c;
                bestBadness = badness;
            }
        }
        if (best)
            placed[i] = {best->box, best->beside};
        else // no room at all (a plot smaller than the label): beside the marker, clipped
            placed[i] = {QRectF(markers[i].x() + markerRadius + 3, markers[i].y() - sizes[i].height(), sizes[i].width(),
                                sizes[i].height()),
                         true};
        blocked.push_back(placed[i].box);
    }
    return placed;
}

} // namespace remat::render
