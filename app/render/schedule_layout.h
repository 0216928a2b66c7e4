#pragma once
// Where each node of a schedule picture goes: the forward row on top (a_0 at
// the top left), the backward row right below it (b_i under a_i, so the loss
// side b_n ends at the bottom right). Long chains wrap into bands of
// forward/backward row pairs; labels thin out when nodes get small. A plain
// struct, so tests check the geometry without a window.
#include "core/model.h"

#include <QPointF>
#include <QRectF>

namespace remat::render {

struct ScheduleLayout {
    // Nodes never grow beyond this pitch (distance between neighbours), so a
    // short chain stays a readable picture instead of giant discs.
    static constexpr double kMaxPitch = 72;
    // Labels are at least this far apart; below it only every k-th is drawn.
    static constexpr double kMinLabelSpacing = 30;
    // Below this pitch there is no room for names between the rows.
    static constexpr double kMinLabelPitch = 18;
    // Band height in pitches: label, forward row, arrows, backward row, label.
    static constexpr double kBandPitches = 3.3;

    int forwardCount = 0; // n + 1
    QRectF area;          // what the layout may use
    int columns = 1;      // nodes per band
    int bands = 1;
    double pitch = 0;
    double radius = 0;
    int labelEvery = 1; // label a node when index % labelEvery == 0 (and a_n)
    QPointF origin;     // centre of a_0
    // kBandPitches x pitch, plus what a wrapped picture needs so that one
    // band's backward names and the next band's forward names never meet.
    double bandHeight = 0;

    // The names' font size in pixels at `pitch`, and the room a line of it takes.
    static double labelPixelSize(double pitch);
    static double labelLineHeight(double pitch) { return 1.25 * labelPixelSize(pitch); }
    // The checkpoint ring around a node; names sit just beyond it.
    double ringRadius() const;

    // Lays out forwardCount forward nodes (and as many backward nodes) in `area`,
    // choosing the number of bands that gives the largest nodes.
    static ScheduleLayout make(int forwardCount, const QRectF &area);

    int band(int index) const { return index / columns; }
    QPointF forwardCenter(int index) const;
    QPointF backwardCenter(int index) const;
    QPointF center(const Model &model, NodeId id) const {
        const int i = model.indexOf(id);
        return model.isBackward(id) ? backwardCenter(i) : forwardCenter(i);
    }
    bool showsLabel(int index) const;

    // How a dependency arrow from `from` to `to` (a node `to` reads) runs, as
    // a cubic curve. Neighbours and row-to-row links are straight; skip edges
    // arc above the forward row or below the backward row, higher the longer
    // they are, also when their ends sit in different bands of a wrapped
    // picture (crossesBands: painted faint and dashed). A chain link from the
    // end of one band to the start of the next is not drawn: the band order says it.
    struct Edge {
        QPointF start, control1, control2, end;
        bool straight = true;
        bool crossesBands = false;
        bool drawn = true;
    };
    Edge edge(const Model &model, NodeId from, NodeId to) const;
    // The node under `point`, or -1: forward i -> i, backward i -> forwardCount + i
    // (the model's NodeId numbering).
    long long hitTest(QPointF point) const;
    // Bounding box of everything drawn (nodes and labels).
    QRectF contentRect() const;
    bool operator==(const ScheduleLayout &) const = default;
};

} // namespace remat::render
