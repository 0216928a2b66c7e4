#pragma once
// The trade-off curve (core/frontier.h) as a picture: the least compute for
// every peak as a staircase, the named strategies as points with their
// labels, and dtr (the runtime deciding) as a dashed line at each budget. Shared by the studio (Tools > Trade-off
// curve, a lesson's curve chapter), its PNG export and a lesson's GIF.
#include "app/render/palette.h"
#include "app/render/peak_label_layout.h"
#include "core/frontier.h"

#include <QPolygonF>
#include <QRectF>

#include <string>
#include <vector>

class QFontMetricsF;
class QPainter;

namespace remat::render {

// Where everything of the picture goes, apart from painting: round axes from
// 0, the staircase, the named points and their labels (placed like the
// memory chart's peak labels: clear of each other, the points and the staircase).
struct FrontierLayout {
    QRectF plot;
    double bytesTop = 1, costTop = 1;
    std::vector<double> costTicks, byteTicks;
    QPolygonF staircase;
    QPolygonF blockStaircase;    // Frontier::blockCurve (op-level models), empty otherwise
    std::vector<QPointF> points; // Frontier::named, in order
    QPolygonF dtrLine;           // Frontier::dtrCurve: dtr's compute at each budget (x: the budget)
    std::vector<PeakLabel> labels;
    static constexpr double kPenWidth = 2.5;
    static constexpr double kPointRadius = 5;

    static FrontierLayout make(const QRectF &rect, const QFontMetricsF &metrics, const Frontier &frontier,
                               const std::string &costUnit);
    double x(double bytes) const { return plot.left() + plot.width() * bytes / bytesTop; }
    double y(double cost) const { return plot.bottom() - plot.height() * cost / costTop; }
};

// The colour of named point `index` (its dot and its label).
QColor namedPointColour(std::size_t index, const Palette &palette);

// Paints into `rect` with the painter's font; `frontier` null draws "No curve yet".
void paintFrontier(QPainter &painter, const QRectF &rect, const Frontier *frontier, bool sizesInNodes,
                   const std::string &costUnit, const Palette &palette);

} // namespace remat::render
