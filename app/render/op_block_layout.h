#pragma once
// An op-level model seen block by block (core/op_plan.h): a strip of boxes,
// one per block, and one block opened into its ops, each a cell that says
// whether the plan keeps that tensor into the backward pass or re-runs it,
// and whether it is in memory at the current op. Coordinate math here,
// without a window (tested in tests/render/test_op_block_layout.cpp); the
// studio's Blocks panel paints it.
#include "app/render/palette.h"
#include "core/op_plan.h"
#include "core/timeline.h"

#include <QRectF>

#include <vector>

class QPainter;

namespace remat::render {

struct OpBlockLayout {
    static constexpr double kStripHeight = 30;
    static constexpr double kOpWidth = 150; // at least; cells share the row's width
    static constexpr double kGap = 4;

    std::vector<QRectF> blocks; // one per block, left to right, in forward order
    int opened = -1;            // the opened block's index in `blocks`, -1 none
    std::vector<QRectF> ops;    // the opened block's ops, in forward order, row by row
    int columns = 0;

    // `opCount` cells of `rowHeight` for the opened block below the strip.
    static OpBlockLayout make(const QRectF &rect, int blockCount, int opened, int opCount, double rowHeight);
    // The block under `point`, -1 none.
    int blockAt(const QPointF &point) const;
};

// What the plan does with one op of a block, read from the Schedule.
enum class OpFate { Kept, Rerun, Freed };

// By forward index, from the Schedule and the simulator's state: Rerun when
// the schedule computes the node again, else Kept when it is in memory at the
// end of the forward pass (held into the backward pass), else Freed (nothing
// in the backward pass reads it).
std::vector<OpFate> opFates(const Timeline &timeline);

// The last op of the forward pass: the step before the first gradient or the
// first re-run of a forward node (-1 for an empty schedule).
std::int64_t forwardPassEnd(const Timeline &timeline);

// The selectable blocks (OpGroup::selectable) of `graph`, as group indices.
std::vector<int> selectableBlocks(const OpGraph &graph);

// Paints the strip and the opened block at `state` (the current op).
void paintOpBlocks(QPainter &painter, const QRectF &rect, const Timeline &timeline, const OpGraph &graph, int opened,
                   const StepState &state, const Palette &palette);

} // namespace remat::render
