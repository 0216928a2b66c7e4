#pragma once
// What a reader of the memory chart relies on about the peak labels, checked
// with geometry of its own (Qt's stroked paths, not the placement's column
// coverage): no label on another, on a marker or on a plotted curve, and every
// label inside the plot. Returns "" when all hold, else what is wrong.
#include "app/render/memory_chart_painter.h"

#include <QPainterPath>
#include <QPainterPathStroker>
#include <QString>

namespace remat::test {

inline QString peakLabelProblem(const render::MemoryChartPainter &chart, const render::MemoryChartMapping &m,
                                const QFontMetricsF &metrics) {
    const std::vector<render::PeakLabel> labels = chart.peakLabels(m, metrics);
    if (labels.size() != chart.peakCount())
        return QStringLiteral("%1 labels for %2 peaks").arg(labels.size()).arg(chart.peakCount());
    std::vector<QPainterPath> strokes;
    QPainterPathStroker stroker;
    stroker.setWidth(render::MemoryChartPainter::kCurvePenWidth);
    for (const QPolygonF &curve : chart.curves(m)) {
        QPainterPath path;
        path.addPolygon(curve);
        strokes.push_back(stroker.createStroke(path));
    }
    for (std::size_t i = 0; i < labels.size(); ++i) {
        const QRectF box = labels[i].box;
        const QString name = chart.peakName(i);
        if (!m.plot.contains(box))
            return QStringLiteral("label of %1 leaves the plot").arg(name);
        for (std::size_t j = 0; j < labels.size(); ++j) {
            if (j != i && box.intersects(labels[j].box))
                return QStringLiteral("labels of %1 and %2 overlap").arg(name, chart.peakName(j));
            const QPointF p = chart.peakPoint(m, j);
            const double r = render::MemoryChartPainter::kMarkerRadius;
            if (box.intersects(QRectF(p.x() - r, p.y() - r, 2 * r, 2 * r)))
                return QStringLiteral("label of %1 covers the peak marker of %2").arg(name, chart.peakName(j));
        }
        for (std::size_t c = 0; c < strokes.size(); ++c)
            if (strokes[c].intersects(box))
                return QStringLiteral("label of %1 lies on curve %2").arg(name).arg(c);
    }
    return {};
}

} // namespace remat::test
