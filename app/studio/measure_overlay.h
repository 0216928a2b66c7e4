#pragma once
// From a Measure report to what the main window shows: the measured bytes of
// each pane, op by op, in the pane's own bytes, for the memory chart's
// overlay. The measurement runs the pane's strategy on the real network of
// the same depth (every node b·w·4 bytes); a pane's chain model gives every
// node its own size. Where both schedules have the very same ops and the
// pane's nodes are all one size with no workspace, the pane's predicted bytes
// after each op are (resident nodes) × (its node size): the measured bytes
// after each op, divided by the network's node size, times the pane's. The
// overlay is then a like-for-like check; elsewhere it is refused with a reason.
#include "app/studio/measure_run.h"
#include "core/timeline.h"

#include <QObject>
#include <QString>

#include <cstdint>
#include <vector>

namespace remat::studio {

struct PaneOverlay {
    // One per op of the pane's timeline; empty when refused. Fractional: a
    // miscount smaller than a node still moves the curve off the prediction.
    std::vector<double> bytes;
    QString refused; // why there is no overlay
};

inline PaneOverlay measuredInPaneBytes(const Timeline &pane, const MeasuredPane &measured,
                                       std::int64_t networkNodeBytes) {
    PaneOverlay out;
    if (!measured.ok()) {
        out.refused = QObject::tr("not measured: %1").arg(QString::fromStdString(measured.error));
        return out;
    }
    if (!measured.schedule || measured.schedule->ops != pane.schedule().ops ||
        measured.trace.after.size() != measured.schedule->ops.size()) {
        out.refused = QObject::tr("the network's schedule is not the pane's op for op");
        return out;
    }
    const Model &model = pane.model();
    const std::int64_t nodeBytes = model.bytes(0);
    for (NodeId id = 0; id < static_cast<NodeId>(model.nodeCount()); ++id)
        if (model.bytes(id) != nodeBytes || model.workspace(id) != 0) {
            out.refused = QObject::tr("the pane's nodes differ in size or have workspace");
            return out;
        }
    if (networkNodeBytes <= 0) {
        out.refused = QObject::tr("no network node size");
        return out;
    }
    out.bytes.reserve(measured.trace.after.size());
    // Whole nodes convert exactly (integers below 2^53); a remainder keeps its share, so a miscount shows.
    for (const std::int64_t b : measured.trace.after)
        out.bytes.push_back(static_cast<double>(b / networkNodeBytes * nodeBytes) +
                            static_cast<double>(b % networkNodeBytes) * static_cast<double>(nodeBytes) /
                                static_cast<double>(networkNodeBytes));
    return out;
}

} // namespace remat::studio
