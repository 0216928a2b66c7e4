#include "app/render/op_block_layout.h"

#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace remat::render {

OpBlockLayout OpBlockLayout::make(const QRectF &rect, int blockCount, int opened, int opCount, double rowHeight) {
    OpBlockLayout l;
    if (blockCount < 1 || rect.width() <= 0)
        return l;
    const double w = (rect.width() - kGap * (blockCount - 1)) / blockCount;
    for (int b = 0; b < blockCount; ++b)
        l.blocks.emplace_back(rect.left() + b * (w + kGap), rect.top(), w, kStripHeight);
    if (opened < 0 || opened >= blockCount || opCount < 1)
        return l;
    l.opened = opened;
    l.columns = std::max(1, static_cast<int>(std::floor((rect.width() + kGap) / (kOpWidth + kGap))));
    l.columns = std::min(l.columns, opCount);
    const double cell = (rect.width() - kGap * (l.columns - 1)) / l.columns;
    const double top = rect.top() + kStripHeight + 2 * kGap;
    for (int i = 0; i < opCount; ++i)
        l.ops.emplace_back(rect.left() + (i % l.columns) * (cell + kGap), top + (i / l.columns) * (rowHeight + kGap),
                           cell, rowHeight);
    return l;
}

int OpBlockLayout::blockAt(const QPointF &point) const {
    for (std::size_t b = 0; b < blocks.size(); ++b)
        if (blocks[b].contains(point))
            return static_cast<int>(b);
    return -1;
}

std::vector<OpFate> opFates(const Timeline &timeline) {
    const Model &model = timeline.model();
    std::vector<int> computes(static_cast<std::size_t>(model.forwardCount()), 0);
    for (const Op &op : timeline.schedule().ops)
        if (op.kind == OpKind::Compute && !model.isBackward(op.node))
            ++computes[op.node];
    const StepState end = timeline.stateAt(forwardPassEnd(timeline));
    std::vector<OpFate> fates(computes.size(), OpFate::Freed);
    for (std::size_t i = 0; i < fates.size(); ++i)
        fates[i] = computes[i] > 1                                        ? OpFate::Rerun
                   : end.resident[model.forwardNode(static_cast<int>(i))] ? OpFate::Kept
                                                                          : OpFate::Freed;
    return fates;
}

std::int64_t forwardPassEnd(const Timeline &timeline) {
    const Model &model = timeline.model();
    std::vector<std::uint8_t> computed(static_cast<std::size_t>(model.nodeCount()), 0);
    for (std::int64_t step = 0; step < timeline.steps(); ++step) {
        const Op op = timeline.op(step);
        if (op.kind != OpKind::Compute)
            continue;
        if (model.isBackward(op.node) || computed[op.node])
            return step - 1;
        computed[op.node] = 1;
    }
    return timeline.steps() - 1;
}

std::vector<int> selectableBlocks(const OpGraph &graph) {
    std::vector<int> out;
    for (std::size_t g = 0; g < graph.groups.size(); ++g)
        if (graph.groups[g].selectable)
            out.push_back(static_cast<int>(g));
    return out;
}

void paintOpBlocks(QPainter &painter, const QRectF &rect, const Timeline &timeline, const OpGraph &graph, int opened,
                   const StepState &state, const Palette &palette) {
    painter.fillRect(rect, palette.background);
    const std::vector<int> blocks = selectableBlocks(graph);
    const QFontMetricsF metrics(painter.font());
    const int opCount =
        opened >= 0 && opened < static_cast<int>(blocks.size())
            ? static_cast<int>(
                  graph.groups[static_cast<std::size_t>(blocks[static_cast<std::size_t>(opened)])].nodes.size())
            : 0;
    const OpBlockLayout l =
        OpBlockLayout::make(rect, static_cast<int>(blocks.size()), opened, opCount, metrics.height() * 2 + 6);
    const std::vector<OpFate> fates = opFates(timeline);
    const Model &model = timeline.model();
    for (std::size_t b = 0; b < l.blocks.size(); ++b) {
        const OpGroup &group = graph.groups[static_cast<std::size_t>(blocks[b])];
        int rerun = 0, resident = 0;
        for (int i : group.nodes) {
            rerun += fates[static_cast<std::size_t>(i)] == OpFate::Rerun;
            resident += state.resident[model.forwardNode(i)] != 0;
        }
        painter.setPen(QPen(static_cast<int>(b) == l.opened ? palette.text : palette.nodeOutline,
                            static_cast<int>(b) == l.opened ? 2 : 1));
        // A pale tint of "resident" over the background: the text stays readable in both themes.
        QColor tint = palette.resident;
        tint.setAlphaF(0.35);
        painter.setBrush(resident > 0 ? QBrush(tint) : QBrush(Qt::NoBrush));
        painter.drawRoundedRect(l.blocks[b], 4, 4);
        painter.setPen(palette.text);
        const QString text = QStringLiteral("%1 \u00b7 %2 re-run")
                                 .arg(QString::fromStdString(group.module.empty() ? "-" : group.module))
                                 .arg(rerun);
        painter.drawText(l.blocks[b], Qt::AlignCenter,
                         metrics.elidedText(text, Qt::ElideRight, l.blocks[b].width() - 4));
    }
    if (l.opened < 0)
        return;
    const OpGroup &group = graph.groups[static_cast<std::size_t>(blocks[static_cast<std::size_t>(l.opened)])];
    for (std::size_t k = 0; k < l.ops.size(); ++k) {
        const int i = group.nodes[k];
        const OpFate fate = fates[static_cast<std::size_t>(i)];
        const bool inMemory = state.resident[model.forwardNode(i)] != 0;
        const QRectF cell = l.ops[k];
        painter.setPen(
            QPen(fate == OpFate::Kept ? palette.checkpointRing : palette.nodeOutline, fate == OpFate::Kept ? 2.5 : 1));
        painter.setBrush(inMemory
                             ? (state.computeCount[model.forwardNode(i)] > 1 ? palette.recomputed : palette.resident)
                             : palette.background);
        painter.drawRoundedRect(cell.adjusted(1, 1, -1, -1), 4, 4);
        std::string op = graph.ops[static_cast<std::size_t>(i)];
        if (op.rfind("aten::", 0) == 0)
            op = op.substr(6);
        const QString fateText = fate == OpFate::Kept    ? QStringLiteral("kept")
                                 : fate == OpFate::Rerun ? QStringLiteral("re-run")
                                                         : QStringLiteral("freed");
        painter.setPen(inMemory ? palette.badgeText : palette.text);
        const QRectF inner = cell.adjusted(5, 3, -5, -3);
        painter.drawText(inner, Qt::AlignLeft | Qt::AlignTop,
                         metrics.elidedText(QString::fromStdString(op), Qt::ElideRight, inner.width()));
        painter.drawText(inner, Qt::AlignLeft | Qt::AlignBottom, fateText);
    }
}

} // namespace remat::render
