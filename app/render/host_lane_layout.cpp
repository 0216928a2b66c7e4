#include "app/render/host_lane_layout.h"

#include <algorithm>
#include <cmath>

namespace remat::render {

double HostLaneLayout::height(double textHeight) {
    return std::ceil(textHeight * (kLinkRow + kHostRow + kGap + 2 * kStreamRow + kCaptionRow));
}

QRectF HostLaneLayout::pictureArea(const QRectF &pane, double textHeight) {
    return pane.adjusted(0, 0, 0, -std::min(pane.height() * 0.5, height(textHeight)));
}

HostLaneLayout HostLaneLayout::make(const QRectF &pane, int layers, double timeEnd, double textHeight,
                                    double gutterWidth) {
    HostLaneLayout l;
    const double h = std::min(pane.height() * 0.5, height(textHeight));
    l.area = QRectF(pane.left(), pane.bottom() - h, pane.width(), h);
    l.layers = std::max(0, layers);
    l.timeEnd = timeEnd > 0 ? timeEnd : 1;
    // The rows' names only where they leave most of the width to the rows.
    l.gutter = gutterWidth > 0 && gutterWidth * 6 <= pane.width() ? std::ceil(gutterWidth + 8) : 0;
    const double unit = h / (kLinkRow + kHostRow + kGap + 2 * kStreamRow + kCaptionRow);
    double y = l.area.top();
    auto row = [&](double pitches) {
        const QRectF r(l.left(), y, l.width(), pitches * unit);
        y += pitches * unit;
        return r;
    };
    l.linkRow = row(kLinkRow);
    l.hostRow = row(kHostRow);
    y += kGap * unit;
    l.computeRow = row(kStreamRow);
    l.copyRow = row(kStreamRow);
    l.captionRow = QRectF(l.area.left(), y, l.area.width(), kCaptionRow * unit);
    return l;
}

QRectF HostLaneLayout::cell(int i) const {
    const double w = width() / std::max(1, layers);
    const QRectF r(left() + (i - 1) * w, hostRow.top(), w, hostRow.height());
    if (!separateCells())
        return r;
    // A gap between neighbours, so that two cells on host read as two.
    const double gap = std::clamp(w * 0.12, 1.0, 3.0);
    return r.adjusted(gap / 2, 1, -gap / 2, -1);
}

QLineF HostLaneLayout::arrow(int i, bool toHost, double progress) const {
    const double x = cell(i).center().x();
    const double top = linkRow.top() + 1, bottom = hostRow.top() + 1;
    const double p = std::clamp(progress, 0.0, 1.0);
    // The head always shows, even before the first byte moves (a queued copy).
    const double reach = std::max(0.25, p) * (bottom - top);
    if (toHost)
        return QLineF(QPointF(x, top), QPointF(x, top + reach));
    return QLineF(QPointF(x, bottom), QPointF(x, bottom - reach));
}

QRectF HostLaneLayout::bar(const QRectF &row, double from, double to) const {
    const double x0 = timeToX(from), x1 = timeToX(to);
    return QRectF(x0, row.top(), std::max(1.0, x1 - x0), row.height());
}

} // namespace remat::render
