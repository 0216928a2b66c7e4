#pragma once
// Where a timed pane's host lane goes (docs/studio.md, "Offloading"): under
// the schedule picture, from top to bottom,
//   link row    an arrow in a_i's column while a_i is copied (down into its
//               host cell for an offload, up out of it for a prefetch),
//   host row    one cell per a_1..a_n: empty, on host, or in flight,
//   compute row the compute stream over time (ops, stalls hatched),
//   copy row    the link over time (every transfer), both under a playhead,
//   caption     the two streams now in words (render::laneCaption).
// Heights are in text heights, so the lane reads the same on a projector and
// in a GIF. A plain struct like ScheduleLayout: tests check it without a window.
#include <QLineF>
#include <QRectF>

namespace remat::render {

struct HostLaneLayout {
    static constexpr double kLinkRow = 1.1;
    static constexpr double kHostRow = 1.0;
    static constexpr double kGap = 0.25;
    static constexpr double kStreamRow = 1.0;
    static constexpr double kCaptionRow = 1.3;
    // Below this a cell is merged into pixel columns (n in the thousands).
    static constexpr double kMinCellWidth = 3;

    QRectF area; // the whole lane
    QRectF linkRow, hostRow, computeRow, copyRow, captionRow;
    double gutter = 0; // the rows' names on the left ("host", "compute", "link"); 0 when too narrow
    int layers = 0;    // cells for a_1..a_n
    double timeEnd = 1;

    // The lane's height for text of `textHeight` pixels.
    static double height(double textHeight);
    // What is left of `pane` for the schedule picture when the lane takes its bottom.
    static QRectF pictureArea(const QRectF &pane, double textHeight);
    // The lane at the bottom of `pane`, for n = `layers` and a time axis from 0 to `timeEnd`
    // (the panes' shared end, so that playheads line up). `gutterWidth`: the widest row name.
    static HostLaneLayout make(const QRectF &pane, int layers, double timeEnd, double textHeight,
                               double gutterWidth = 0);

    double left() const { return area.left() + gutter; }
    double width() const { return area.right() - left(); }
    double timeToX(double time) const { return left() + time / timeEnd * width(); }
    double xToTime(double x) const { return (x - left()) / width() * timeEnd; }

    // a_i's cell, 1 <= i <= layers.
    QRectF cell(int i) const;
    // Cells are drawn one by one (with an outline) when wide enough, else merged into pixel columns.
    bool separateCells() const { return layers > 0 && width() / layers >= kMinCellWidth; }
    // A point of cell i that only the cell's fill paints (outlines and arrows stay clear of it).
    QPointF cellProbe(int i) const { return cell(i).center(); }
    // The arrow of a copy of a_i at `progress` (0..1): tail and head in a_i's
    // column of the link row; an offload grows down towards the host cell, a
    // prefetch up away from it.
    QLineF arrow(int i, bool toHost, double progress) const;
    // A stream bar from `from` to `to` seconds, at least a pixel wide.
    QRectF bar(const QRectF &row, double from, double to) const;
    bool operator==(const HostLaneLayout &) const = default;
};

} // namespace remat::render
