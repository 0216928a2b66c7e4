#pragma once
// The framework race's measured points (core/race_points.h) as a picture on
// their own axes: observed peak (bytes, LiveTensors) across, re-run FLOPs
// (torch.utils.flop_counter's formulas) up, one marker per configuration
// labelled with its `who`, its shape and colour by kind (peer, torch.compile,
// remat), and a legend. Nothing else is drawn: the race measured another model
// than the one the trade-off curve beside it plans, in FLOPs re-run rather
// than the curve's total compute, so the two do not share axes. Shared by the
// studio's trade-off view (Tools > Trade-off curve > Add measured points).
#include "app/render/palette.h"
#include "app/render/peak_label_layout.h"
#include "core/race_points.h"

#include <QRectF>
#include <QString>

#include <vector>

class QFontMetricsF;
class QPainter;

namespace remat::render {

// Where everything goes, apart from painting (testable without a window):
// the byte axis from 0 to a round top above the largest peak; the FLOP axis
// from 0 (or a round step below the lowest value, when a point re-ran fewer
// FLOPs than store-all) to a round top above the largest; the markers; the
// labels placed clear of each other, the markers and the legend.
struct MeasuredPointsLayout {
    QRectF plot;
    QRectF legend; // top right inside the plot
    double bytesTop = 1;
    double flopsBottom = 0, flopsTop = 1;
    std::vector<double> byteTicks, flopTicks;
    std::vector<QPointF> points; // RaceResult::points, in order
    // One label per position: points measured alike (the same peak and
    // FLOPs) share one, their `who`s joined by "; ". labelOf[i] is point i's.
    std::vector<PeakLabel> labels;
    std::vector<QString> labelTexts;
    std::vector<std::size_t> labelOf;
    static constexpr double kMarkerRadius = 5.5;

    static MeasuredPointsLayout make(const QRectF &rect, const QFontMetricsF &metrics, const RaceResult &race);
    double x(double bytes) const { return plot.left() + plot.width() * bytes / bytesTop; }
    double y(double flops) const {
        return plot.bottom() - plot.height() * (flops - flopsBottom) / (flopsTop - flopsBottom);
    }
};

// The legend's text for a kind: "peer: the framework's own checkpointing"...
const char *raceKindCaption(RaceKind kind);
QColor raceKindColour(RaceKind kind, const Palette &palette);
// Paints a marker of `kind`'s shape (peer: circle, compile: square, remat: diamond).
void paintRaceMarker(QPainter &painter, QPointF centre, RaceKind kind, const Palette &palette);

// Paints into `rect` with the painter's font; `race` null draws a line saying how to add points.
void paintMeasuredPoints(QPainter &painter, const QRectF &rect, const RaceResult *race, const Palette &palette);

} // namespace remat::render
