#include "app/render/schedule_painter.h"

#include <QFont>
#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPath>

#include <cmath>

namespace remat::render {

namespace {

void drawArrowHead(QPainter &painter, QPointF tip, QPointF direction, double size) {
    const double len = std::hypot(direction.x(), direction.y());
    if (len <= 0)
        return;
    const QPointF u = direction / len;
    const QPointF n(-u.y(), u.x());
    const QPointF base = tip - u * size;
    const QPointF head[3] = {tip, base + n * (size * 0.5), base - n * (size * 0.5)};
    painter.drawPolygon(head, 3);
}

QFont labelFont(double pitch) {
    QFont font;
    font.setPixelSize(static_cast<int>(std::clamp(pitch * 0.32, 9.0, 13.0)));
    return font;
}

} // namespace

SchedulePainter::SchedulePainter(std::shared_ptr<const Timeline> timeline)
    : timeline_(std::move(timeline)), checkpoints_(checkpointMask(*timeline_)) {}

QColor SchedulePainter::fillColor(NodeFill fill, const Palette &palette) {
    switch (fill) {
    case NodeFill::NotComputed: return palette.notComputed;
    case NodeFill::Resident: return palette.resident;
    case NodeFill::Recomputed: return palette.recomputed;
    case NodeFill::Current: return palette.current;
    case NodeFill::Freed: return palette.freed;
    }
    return palette.notComputed;
}

void SchedulePainter::paintArrows(QPainter &painter, const ScheduleLayout &layout, const StepState &state,
                                  const Palette &palette) const {
    const Model &model = timeline_->model();
    const double r = layout.radius;
    const bool heads = layout.pitch >= 14;
    const double headSize = std::max(3.0, r * 0.45);
    std::optional<NodeId> reader;
    if (state.step >= 0 && timeline_->op(state.step).kind == OpKind::Compute)
        reader = timeline_->op(state.step).node;
    const QPen normal(palette.arrow, std::max(0.8, layout.pitch * 0.035));
    const QPen active(palette.current, std::max(1.6, layout.pitch * 0.07));
    for (NodeId id = 0; id < static_cast<NodeId>(model.nodeCount()); ++id) {
        const int to = model.indexOf(id);
        for (const NodeId from : model.reads(id)) {
            const int fromIndex = model.indexOf(from);
            if (layout.band(fromIndex) != layout.band(to))
                continue; // a wrapped link: the band order says it
            const bool hot = reader && *reader == id;
            painter.setPen(hot ? active : normal);
            painter.setBrush(hot ? palette.current : palette.arrow);
            const QPointF a = layout.center(model, from);
            const QPointF b = layout.center(model, id);
            const bool sameRow = model.isBackward(from) == model.isBackward(id);
            const bool adjacent = std::abs(fromIndex - to) <= 1;
            if (!sameRow || adjacent) {
                const QPointF d = b - a;
                const double len = std::hypot(d.x(), d.y());
                if (len <= 2 * r)
                    continue;
                const QPointF u = d / len;
                const QPointF start = a + u * r;
                const QPointF tip = b - u * (r + 1);
                painter.drawLine(start, heads ? tip - u * headSize * 0.8 : tip);
                if (heads)
                    drawArrowHead(painter, tip, u, headSize);
            } else {
                // A skip connection arcs away from the other row.
                const double bulge = (model.isBackward(id) ? 1 : -1) * layout.pitch * 0.9;
                QPainterPath path(a + QPointF(0, bulge > 0 ? r : -r));
                const QPointF end = b + QPointF(0, bulge > 0 ? r : -r);
                path.quadTo(QPointF((a.x() + b.x()) / 2, a.y() + bulge), end);
                painter.setBrush(Qt::NoBrush);
                painter.drawPath(path);
            }
        }
    }
}

void SchedulePainter::paint(QPainter &painter, const ScheduleLayout &layout, const StepState &state,
                            const Palette &palette, std::optional<NodeId> hover) const {
    const Model &model = timeline_->model();
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, true);
    if (layout.pitch >= 5)
        paintArrows(painter, layout, state, palette);

    const double r = layout.radius;
    const QPen outline(palette.nodeOutline, std::max(0.8, r * 0.08));
    const QPen ring(palette.checkpointRing, std::max(1.5, layout.pitch * 0.07));
    const double ringRadius = r + std::max(2.0, layout.pitch * 0.09);
    const QFont font = labelFont(layout.pitch);
    painter.setFont(font);
    const QFontMetricsF metrics(font);
    QFont badgeFont = font;
    badgeFont.setPixelSize(std::max(7, static_cast<int>(r * 0.62)));
    badgeFont.setBold(true);

    for (NodeId id = 0; id < static_cast<NodeId>(model.nodeCount()); ++id) {
        const NodeAppearance a = appearance(state, id);
        const QPointF c = layout.center(model, id);
        painter.setPen(outline);
        painter.setBrush(fillColor(a.fill, palette));
        painter.drawEllipse(c, r, r);
        if (a.checkpoint) {
            painter.setPen(ring);
            painter.setBrush(Qt::NoBrush);
            painter.drawEllipse(c, ringRadius, ringRadius);
        }
        if (a.justFreed) {
            painter.setPen(QPen(palette.current, std::max(1.5, r * 0.15), Qt::DashLine));
            painter.setBrush(Qt::NoBrush);
            painter.drawEllipse(c, ringRadius, ringRadius);
        }
        if (hover && *hover == id) {
            painter.setPen(QPen(palette.hover, std::max(2.0, r * 0.18)));
            painter.setBrush(Qt::NoBrush);
            painter.drawEllipse(c, r + 1, r + 1);
        }
        // The counter sits on the rim so the node's fill stays visible at its centre.
        if (!model.isBackward(id) && a.computeCount > 1 && r >= 5) {
            const double br = std::max(5.5, r * 0.5);
            const QPointF bc = c + QPointF(r * 0.8, -r * 0.8);
            painter.setPen(Qt::NoPen);
            painter.setBrush(palette.badge);
            painter.drawEllipse(bc, br, br);
            painter.setPen(palette.badgeText);
            painter.setFont(badgeFont);
            painter.drawText(QRectF(bc.x() - br, bc.y() - br, 2 * br, 2 * br), Qt::AlignCenter,
                             QString::number(a.computeCount) + QChar(0x00D7));
            painter.setFont(font);
        }
    }

    // Labels: forward names above the forward row, backward names below the backward row.
    painter.setPen(palette.mutedText);
    const double h = metrics.height();
    for (int i = 0; i < model.forwardCount(); ++i) {
        if (!layout.showsLabel(i))
            continue;
        const QPointF f = layout.forwardCenter(i);
        const QPointF b = layout.backwardCenter(i);
        const double w = layout.pitch * std::max(1, layout.labelEvery) * 1.6;
        const double gap = ringRadius + 1;
        painter.drawText(QRectF(f.x() - w / 2, f.y() - gap - h, w, h), Qt::AlignHCenter | Qt::AlignBottom,
                         QStringLiteral("a_") + QString::number(i));
        painter.drawText(QRectF(b.x() - w / 2, b.y() + gap, w, h), Qt::AlignHCenter | Qt::AlignTop,
                         QStringLiteral("b_") + QString::number(i));
    }
    painter.restore();
}

double SchedulePainter::paintLegend(QPainter &painter, const QRectF &rect, const Palette &palette) {
    struct Item {
        NodeFill fill;
        bool ring;
        bool badge;
        const char *text;
    };
    static const Item items[] = {
        {NodeFill::NotComputed, false, false, "not yet computed"},
        {NodeFill::Resident, false, false, "resident in memory"},
        {NodeFill::Resident, true, false, "checkpoint (kept for the backward pass)"},
        {NodeFill::Current, false, false, "computed by the current op"},
        {NodeFill::Recomputed, false, true, "recomputed (n\u00D7 = times computed)"},
        {NodeFill::Freed, false, false, "freed"},
    };
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, true);
    QFont font = painter.font();
    const QFontMetricsF metrics(font);
    const double r = std::max(5.0, metrics.height() * 0.38);
    const double lineHeight = std::max(metrics.height(), 2 * r + 6) + 2;
    double x = rect.left();
    double y = rect.top();
    for (const Item &item : items) {
        const QString text = QString::fromUtf8(item.text);
        const double w = 2 * r + 6 + metrics.horizontalAdvance(text) + 16;
        if (x > rect.left() && x + w > rect.right()) {
            x = rect.left();
            y += lineHeight;
        }
        const QPointF c(x + r + 3, y + lineHeight / 2);
        painter.setPen(QPen(palette.nodeOutline, 1));
        painter.setBrush(fillColor(item.fill, palette));
        painter.drawEllipse(c, r, r);
        if (item.ring) {
            painter.setPen(QPen(palette.checkpointRing, 1.6));
            painter.setBrush(Qt::NoBrush);
            painter.drawEllipse(c, r + 2.5, r + 2.5);
        }
        painter.setPen(palette.text);
        painter.drawText(QRectF(x + 2 * r + 8, y, w, lineHeight), Qt::AlignLeft | Qt::AlignVCenter, text);
        x += w;
    }
    painter.restore();
    return y + lineHeight - rect.top();
}

} // namespace remat::render
