#include "app/render/measured_points_painter.h"

#include "app/render/memory_chart_mapping.h"
#include "core/units.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QPolygonF>

#include <algorithm>
#include <cmath>

namespace remat::render {

namespace {

QString qs(const std::string &s) {
    return QString::fromStdString(s);
}

QString flopText(double flops) {
    return qs(formatCost(flops / 1e9, "GFLOP"));
}

constexpr RaceKind kKinds[] = {RaceKind::Peer, RaceKind::Compile, RaceKind::Remat};

} // namespace

const char *raceKindCaption(RaceKind kind) {
    switch (kind) {
    case RaceKind::Peer:
        return "peer: PyTorch's own checkpointing";
    case RaceKind::Compile:
        return "compile: torch.compile's partitioner";
    case RaceKind::Remat:
        return "remat: a remat plan applied";
    }
    return "";
}

QColor raceKindColour(RaceKind kind, const Palette &palette) {
    switch (kind) {
    case RaceKind::Peer:
        return palette.paneColour(1);
    case RaceKind::Compile:
        return palette.paneColour(2);
    case RaceKind::Remat:
        return palette.paneColour(0);
    }
    return palette.text;
}

void paintRaceMarker(QPainter &painter, QPointF c, RaceKind kind, const Palette &palette) {
    const double r = MeasuredPointsLayout::kMarkerRadius;
    painter.setPen(QPen(palette.nodeOutline, 1));
    painter.setBrush(raceKindColour(kind, palette));
    switch (kind) {
    case RaceKind::Peer:
        painter.drawEllipse(c, r, r);
        break;
    case RaceKind::Compile:
        painter.drawRect(QRectF(c.x() - r * 0.9, c.y() - r * 0.9, r * 1.8, r * 1.8));
        break;
    case RaceKind::Remat:
        painter.drawPolygon(QPolygonF({QPointF(c.x(), c.y() - r * 1.25), QPointF(c.x() + r * 1.25, c.y()),
                                       QPointF(c.x(), c.y() + r * 1.25), QPointF(c.x() - r * 1.25, c.y())}));
        break;
    }
}

MeasuredPointsLayout MeasuredPointsLayout::make(const QRectF &rect, const QFontMetricsF &metrics,
                                                const RaceResult &race) {
    MeasuredPointsLayout l;
    std::int64_t maxPeak = 1;
    double lo = 0, hi = 0;
    for (const RacePoint &p : race.points) {
        maxPeak = std::max(maxPeak, p.observedPeakBytes);
        lo = std::min(lo, p.recomputeFlops);
        hi = std::max(hi, p.recomputeFlops);
    }
    l.bytesTop = MemoryChartMapping::axisTop(static_cast<double>(maxPeak));
    const double step = MemoryChartMapping::niceCeiling(std::max(hi - lo, 1.0) / 4);
    l.flopsTop = std::max(step, std::ceil(hi * 1.08 / step) * step);
    l.flopsBottom = lo < 0 ? std::floor(lo * 1.08 / step) * step : 0;
    for (double v = l.flopsBottom; v <= l.flopsTop + step / 2; v += step)
        l.flopTicks.push_back(std::abs(v) < step / 2 ? 0 : v);
    double labelWidth = 0;
    for (const double v : l.flopTicks)
        labelWidth = std::max(labelWidth, metrics.horizontalAdvance(flopText(v)));
    const double h = metrics.height();
    const double left = rect.left() + labelWidth + 12;
    l.plot = QRectF(left, rect.top() + h * 3, std::max(10.0, rect.right() - left - 20),
                    std::max(10.0, rect.height() - h * 6));
    for (const double b :
         MemoryChartMapping::byteTicks(l.bytesTop, std::max(2, static_cast<int>(l.plot.width() / 110))))
        if (b == std::floor(b)) // no fractions of a byte
            l.byteTicks.push_back(b);

    double legendWidth = 0;
    for (const RaceKind k : kKinds)
        legendWidth = std::max(legendWidth, metrics.horizontalAdvance(QString::fromLatin1(raceKindCaption(k))));
    legendWidth += 36;
    l.legend = QRectF(l.plot.right() - legendWidth - 6, l.plot.top() + 6, legendWidth, 3 * h + 8);

    std::vector<QPointF> anchors; // one per label
    for (std::size_t i = 0; i < race.points.size(); ++i) {
        const RacePoint &p = race.points[i];
        l.points.emplace_back(l.x(static_cast<double>(p.observedPeakBytes)), l.y(p.recomputeFlops));
        std::size_t same = 0;
        while (same < i && (race.points[same].observedPeakBytes != p.observedPeakBytes ||
                            race.points[same].recomputeFlops != p.recomputeFlops))
            ++same;
        if (same < i) {
            l.labelOf.push_back(l.labelOf[same]);
            l.labelTexts[l.labelOf[same]] += QStringLiteral("; ") + qs(p.who);
            continue;
        }
        l.labelOf.push_back(anchors.size());
        anchors.push_back(l.points.back());
        l.labelTexts.push_back(qs(p.who));
    }
    std::vector<QSizeF> sizes;
    for (const QString &text : l.labelTexts)
        sizes.emplace_back(metrics.horizontalAdvance(text) + 6, h);
    l.labels =
        placePeakLabels(anchors, sizes, kMarkerRadius * 1.25 + 1, {}, 0, {l.legend}, l.plot.adjusted(1, 1, -1, -1));
    return l;
}

void paintMeasuredPoints(QPainter &painter, const QRectF &rect, const RaceResult *race, const Palette &palette) {
    painter.fillRect(rect, palette.background);
    painter.setRenderHint(QPainter::Antialiasing, true);
    const QFontMetricsF metrics(painter.font());
    if (!race || race->points.empty()) {
        painter.setPen(palette.mutedText);
        painter.drawText(rect, Qt::AlignCenter | Qt::TextWordWrap,
                         QStringLiteral("No measured points: Tools > Trade-off curve > Add measured points\u2026 "
                                        "reads bench/framework_race.py's JSON"));
        return;
    }
    const MeasuredPointsLayout l = MeasuredPointsLayout::make(rect, metrics, *race);
    const QRectF &plot = l.plot;
    const double h = metrics.height();

    // Too long for the width: cut in the middle (the model's path), never past the picture.
    const double width = rect.width() - 8;
    painter.setPen(palette.text);
    painter.drawText(
        QRectF(rect.left() + 4, rect.top(), width, h * 1.5), Qt::AlignLeft | Qt::AlignVCenter,
        metrics.elidedText(QStringLiteral("Measured in PyTorch %1: %2").arg(qs(race->torch), qs(race->model)),
                           Qt::ElideMiddle, width));
    painter.setPen(palette.mutedText);
    painter.drawText(QRectF(rect.left() + 4, rect.top() + h * 1.3, width, h * 1.5), Qt::AlignLeft | Qt::AlignVCenter,
                     metrics.elidedText(QStringLiteral("FLOPs re-run against observed peak, on their own axes: "
                                                       "another model, and re-run rather than total compute"),
                                        Qt::ElideRight, width));

    for (const double v : l.flopTicks) {
        painter.setPen(QPen(v == 0 ? palette.mutedText : palette.grid, 1));
        painter.drawLine(QPointF(plot.left(), l.y(v)), QPointF(plot.right(), l.y(v)));
        painter.setPen(palette.mutedText);
        painter.drawText(QRectF(rect.left(), l.y(v) - h / 2, plot.left() - rect.left() - 6, h),
                         Qt::AlignRight | Qt::AlignVCenter, flopText(v));
    }
    for (const double b : l.byteTicks) {
        const QString text = qs(formatBytes(static_cast<std::int64_t>(b)));
        const double w = metrics.horizontalAdvance(text) + 4;
        const double start = std::min(l.x(b) - w / 2, rect.right() - w);
        painter.setPen(QPen(palette.grid, 1));
        painter.drawLine(QPointF(l.x(b), plot.top()), QPointF(l.x(b), plot.bottom()));
        painter.setPen(palette.mutedText);
        painter.drawText(QRectF(start, plot.bottom() + 2, w, h), Qt::AlignHCenter | Qt::AlignTop, text);
    }
    painter.setPen(palette.text);
    painter.drawText(QRectF(plot.left(), plot.bottom() + h + 4, plot.width(), h), Qt::AlignHCenter,
                     QStringLiteral("observed peak memory"));

    // The legend: one row per kind, its marker and what it is.
    QColor backing = palette.background;
    backing.setAlpha(230);
    painter.setPen(QPen(palette.grid, 1));
    painter.setBrush(backing);
    painter.drawRect(l.legend);
    for (int i = 0; i < 3; ++i) {
        const double y = l.legend.top() + 4 + h * (i + 0.5);
        paintRaceMarker(painter, QPointF(l.legend.left() + 14, y), kKinds[i], palette);
        painter.setPen(palette.text);
        painter.drawText(QRectF(l.legend.left() + 30, y - h / 2, l.legend.width() - 32, h),
                         Qt::AlignLeft | Qt::AlignVCenter, QString::fromLatin1(raceKindCaption(kKinds[i])));
    }

    // Leaders first, then markers, then labels over everything; a label in
    // the colour of the first point it names.
    std::vector<std::size_t> first(l.labels.size(), race->points.size());
    for (std::size_t i = 0; i < race->points.size(); ++i)
        first[l.labelOf[i]] = std::min(first[l.labelOf[i]], i);
    for (std::size_t g = 0; g < l.labels.size(); ++g)
        if (!l.labels[g].besideMarker) {
            const QPointF &anchor = l.points[first[g]];
            painter.setPen(QPen(raceKindColour(race->points[first[g]].kind, palette), 1, Qt::DotLine));
            painter.drawLine(anchor, leaderEnd(anchor, l.labels[g].box));
        }
    for (std::size_t i = 0; i < race->points.size(); ++i)
        paintRaceMarker(painter, l.points[i], race->points[i].kind, palette);
    for (std::size_t g = 0; g < l.labels.size(); ++g) {
        painter.setPen(Qt::NoPen);
        painter.setBrush(backing);
        painter.drawRoundedRect(l.labels[g].box, 3, 3);
        painter.setPen(raceKindColour(race->points[first[g]].kind, palette).darker(palette.isDark() ? 80 : 140));
        painter.drawText(l.labels[g].box, Qt::AlignCenter, l.labelTexts[g]);
    }
    painter.setBrush(Qt::NoBrush);
}

} // namespace remat::render
