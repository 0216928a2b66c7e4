#include "app/render/frontier_painter.h"

#include "app/render/memory_chart_mapping.h"
#include "core/units.h"

#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace remat::render {

namespace {

QString qs(const std::string &s) {
    return QString::fromStdString(s);
}

// A plan with peak p serves every budget from p until the next, cheaper one.
QPolygonF staircaseOf(const FrontierLayout &l, const std::vector<FrontierPoint> &curve) {
    QPolygonF line;
    if (curve.empty())
        return line;
    line << QPointF(l.x(static_cast<double>(curve.front().peakBytes)), l.y(curve.front().cost));
    for (std::size_t i = 1; i < curve.size(); ++i)
        line << QPointF(l.x(static_cast<double>(curve[i].peakBytes)), l.y(curve[i - 1].cost))
             << QPointF(l.x(static_cast<double>(curve[i].peakBytes)), l.y(curve[i].cost));
    line << QPointF(l.plot.right(), l.y(curve.back().cost));
    return line;
}

// Which staircase is which, top right of the plot (op-level models).
void drawCurveKey(QPainter &painter, const FrontierLayout &l, const QFontMetricsF &metrics, const Palette &palette) {
    const QString op = QStringLiteral("op level (tensor by tensor)"), block = QStringLiteral("block level");
    const double w = std::max(metrics.horizontalAdvance(op), metrics.horizontalAdvance(block)) + 40;
    const double h = metrics.height();
    const QRectF box(l.plot.right() - w - 6, l.plot.top() + 6, w, 2 * h + 8);
    QColor backing = palette.background;
    backing.setAlpha(230);
    painter.setPen(Qt::NoPen);
    painter.setBrush(backing);
    painter.drawRect(box);
    const auto row = [&](int i, const QPen &pen, const QString &text) {
        const double y = box.top() + 4 + h * (i + 0.5);
        painter.setPen(pen);
        painter.drawLine(QPointF(box.left() + 4, y), QPointF(box.left() + 28, y));
        painter.setPen(palette.text);
        painter.drawText(QRectF(box.left() + 34, y - h / 2, w - 34, h), Qt::AlignLeft | Qt::AlignVCenter, text);
    };
    row(0, QPen(palette.paneColour(0), FrontierLayout::kPenWidth), op);
    row(1, QPen(palette.mutedText, FrontierLayout::kPenWidth, Qt::DashLine), block);
    painter.setBrush(Qt::NoBrush);
}

} // namespace

FrontierLayout FrontierLayout::make(const QRectF &rect, const QFontMetricsF &metrics, const Frontier &f,
                                    const std::string &costUnit) {
    FrontierLayout l;
    // Peak memory from 0 to store-all's and a little past it, cost from 0 to the dearest point.
    double maxCost = 0;
    std::int64_t maxPeak = f.storeAllBytes;
    for (const auto &p : f.curve) {
        maxCost = std::max(maxCost, p.cost);
        maxPeak = std::max(maxPeak, p.peakBytes);
    }
    for (const auto &p : f.blockCurve)
        maxCost = std::max(maxCost, p.cost);
    for (const auto &p : f.named) {
        maxCost = std::max(maxCost, p.cost);
        maxPeak = std::max(maxPeak, p.peakBytes);
    }
    for (const auto &p : f.dtrCurve)
        maxCost = std::max(maxCost, p.cost);
    l.bytesTop = MemoryChartMapping::axisTop(static_cast<double>(std::max<std::int64_t>(maxPeak, 1)));
    const double costStep = MemoryChartMapping::niceCeiling(maxCost / 4);
    l.costTop = std::max(costStep, std::ceil(maxCost * 1.08 / costStep) * costStep);
    l.costTicks = MemoryChartMapping::ticks(l.costTop, 5);
    double labelWidth = 0;
    for (const double c : l.costTicks)
        labelWidth = std::max(labelWidth, metrics.horizontalAdvance(qs(formatCost(c, costUnit))));
    const double left = rect.left() + labelWidth + 12;
    l.plot =
        QRectF(left, rect.top() + metrics.height() * 2, rect.right() - left - 20, rect.height() - metrics.height() * 5);
    for (const double b :
         MemoryChartMapping::byteTicks(l.bytesTop, std::max(2, static_cast<int>(l.plot.width() / 110))))
        if (b == std::floor(b)) // no fractions of a byte
            l.byteTicks.push_back(b);
    if (f.curve.empty())
        return l;
    l.staircase = staircaseOf(l, f.curve);
    l.blockStaircase = staircaseOf(l, f.blockCurve);
    for (const FrontierPoint &p : f.dtrCurve)
        l.dtrLine << QPointF(l.x(static_cast<double>(p.budgetBytes)), l.y(p.cost));
    std::vector<QSizeF> sizes;
    for (const NamedPoint &p : f.named) {
        l.points.emplace_back(l.x(static_cast<double>(p.peakBytes)), l.y(p.cost));
        sizes.emplace_back(metrics.horizontalAdvance(qs(p.label)) + 6, metrics.height());
    }
    l.labels = placePeakLabels(l.points, sizes, kPointRadius + 1, {l.staircase, l.blockStaircase, l.dtrLine},
                               kPenWidth / 2 + 1, {}, l.plot.adjusted(1, 1, -1, -1));
    return l;
}

QColor namedPointColour(std::size_t index, const Palette &palette) {
    return palette.paneColour(static_cast<int>(index % 3) + 1); // pane 0's colour is the staircase's
}

void paintFrontier(QPainter &painter, const QRectF &rect, const Frontier *frontier, bool sizesInNodes,
                   const std::string &costUnit, const Palette &palette) {
    painter.fillRect(rect, palette.background);
    painter.setRenderHint(QPainter::Antialiasing, true);
    const QFontMetricsF metrics(painter.font());
    if (!frontier || frontier->curve.empty()) {
        painter.setPen(palette.mutedText);
        painter.drawText(rect, Qt::AlignCenter, QStringLiteral("No curve yet"));
        return;
    }
    const Frontier &f = *frontier;
    const FrontierLayout l = FrontierLayout::make(rect, metrics, f, costUnit);
    const QRectF &plot = l.plot;
    for (const double c : l.costTicks) {
        painter.setPen(QPen(palette.grid, 1));
        painter.drawLine(QPointF(plot.left(), l.y(c)), QPointF(plot.right(), l.y(c)));
        painter.setPen(palette.mutedText);
        painter.drawText(
            QRectF(rect.left(), l.y(c) - metrics.height() / 2, plot.left() - rect.left() - 6, metrics.height()),
            Qt::AlignRight | Qt::AlignVCenter, qs(formatCost(c, costUnit)));
    }
    for (const double b : l.byteTicks) {
        const QString text = qs(formatSize(static_cast<std::int64_t>(b), sizesInNodes));
        const double w = metrics.horizontalAdvance(text) + 4;
        // The last tick ends at the picture's edge rather than past it.
        const double start = std::min(l.x(b) - w / 2, rect.right() - w);
        painter.setPen(QPen(palette.grid, 1));
        painter.drawLine(QPointF(l.x(b), plot.top()), QPointF(l.x(b), plot.bottom()));
        painter.setPen(palette.mutedText);
        painter.drawText(QRectF(start, plot.bottom() + 2, w, metrics.height()), Qt::AlignHCenter | Qt::AlignTop, text);
    }
    painter.setPen(palette.text);
    painter.drawText(QRectF(plot.left(), plot.bottom() + metrics.height() + 4, plot.width(), metrics.height()),
                     Qt::AlignHCenter, QStringLiteral("peak memory"));
    // The unit first: a narrow picture (the measured points beside it) cuts the end.
    painter.drawText(
        QRectF(rect.left() + 4, rect.top(), rect.width() - 8, metrics.height() * 1.5), Qt::AlignLeft | Qt::AlignVCenter,
        metrics.elidedText(QStringLiteral("compute in %1: the least for each peak (staircase)%2 and named strategies "
                                          "(points)")
                               .arg(costUnit.empty() ? QStringLiteral("op costs") : qs(costUnit),
                                    f.dtrCurve.empty() ? QString() : QStringLiteral(", dtr at each budget (dashed)")),
                           Qt::ElideRight, rect.width() - 8));

    painter.setBrush(Qt::NoBrush);
    if (!l.blockStaircase.isEmpty()) {
        painter.setPen(QPen(palette.mutedText, FrontierLayout::kPenWidth, Qt::DashLine));
        painter.drawPolyline(l.blockStaircase);
        drawCurveKey(painter, l, metrics, palette);
    }
    painter.setPen(QPen(palette.paneColour(0), FrontierLayout::kPenWidth));
    painter.drawPolyline(l.staircase);
    if (!l.dtrLine.isEmpty()) {
        // The runtime's answer: no plan, so no staircase; its label at its cheapest end.
        painter.setPen(QPen(palette.peak, FrontierLayout::kPenWidth * 0.8, Qt::DashLine));
        painter.drawPolyline(l.dtrLine);
        painter.setPen(Qt::NoPen);
        painter.setBrush(palette.peak);
        for (const QPointF &p : l.dtrLine)
            painter.drawEllipse(p, 2.5, 2.5);
        const QString label = QStringLiteral("dtr");
        const QPointF end = l.dtrLine.first();
        painter.setPen(palette.peak.darker(palette.isDark() ? 80 : 130));
        painter.drawText(
            QRectF(end.x() + 4, end.y() - metrics.height() - 4, metrics.horizontalAdvance(label) + 4, metrics.height()),
            Qt::AlignLeft | Qt::AlignVCenter, label);
    }
    for (std::size_t i = 0; i < f.named.size(); ++i) {
        const QColor colour = namedPointColour(i, palette);
        if (!l.labels[i].besideMarker) {
            painter.setPen(QPen(colour, 1, Qt::DotLine));
            painter.drawLine(l.points[i], leaderEnd(l.points[i], l.labels[i].box));
        }
        painter.setPen(QPen(palette.nodeOutline, 1));
        painter.setBrush(colour);
        painter.drawEllipse(l.points[i], FrontierLayout::kPointRadius, FrontierLayout::kPointRadius);
        QColor backing = palette.background;
        backing.setAlpha(230);
        painter.setPen(Qt::NoPen);
        painter.setBrush(backing);
        painter.drawRoundedRect(l.labels[i].box, 3, 3);
        painter.setPen(colour.darker(palette.isDark() ? 80 : 130));
        painter.drawText(l.labels[i].box, Qt::AlignCenter, qs(f.named[i].label));
    }
}

} // namespace remat::render
