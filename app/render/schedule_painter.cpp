#include "app/render/schedule_painter.h"

#include "app/render/host_lane_painter.h"

#include "app/render/memory_kinds.h"
#include "app/render/saved_internals_bars.h"
#include "core/units.h"

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

double ringRadiusOf(const ScheduleLayout &layout) {
    return layout.ringRadius();
}
// Badges of neighbouring nodes must not overlap: a pill is at most a little
// under one pitch wide, however small the nodes get.
double badgeRadiusOf(const ScheduleLayout &layout) {
    return std::min(std::max(5.5, layout.radius * 0.5), layout.pitch * 0.3);
}
// The badge is a pill as wide as two digits and the sign ("16\u00D7") need.
double badgeHalfWidthOf(const ScheduleLayout &layout) {
    return std::min(badgeRadiusOf(layout) * 1.6, layout.pitch * 0.46);
}
// Half the side of a node sprite: room for the checkpoint ring and the badge.
double spriteHalfOf(const ScheduleLayout &layout) {
    return std::ceil(std::max(ringRadiusOf(layout) + 3, layout.radius * 0.8 + badgeHalfWidthOf(layout) + 2));
}

QFont labelFont(double pitch) {
    QFont font;
    font.setPixelSize(static_cast<int>(ScheduleLayout::labelPixelSize(pitch)));
    return font;
}

} // namespace

SchedulePainter::SchedulePainter(std::shared_ptr<const Timeline> timeline)
    : timeline_(std::move(timeline)), checkpoints_(checkpointMask(*timeline_)) {}

QColor SchedulePainter::fillColor(NodeFill fill, const Palette &palette) {
    switch (fill) {
    case NodeFill::NotComputed:
        return palette.notComputed;
    case NodeFill::Resident:
        return palette.resident;
    case NodeFill::Recomputed:
        return palette.recomputed;
    case NodeFill::Current:
        return palette.current;
    case NodeFill::Freed:
        return palette.freed;
    case NodeFill::OnHost:
        return palette.onHost;
    }
    return palette.notComputed;
}

void SchedulePainter::paintArrows(QPainter &painter, const ScheduleLayout &layout, const Palette &palette,
                                  std::optional<NodeId> onlyReader) const {
    const Model &model = timeline_->model();
    const double r = layout.radius;
    const bool heads = layout.pitch >= 14;
    const double headSize = std::max(3.0, r * 0.45);
    const QColor colour = onlyReader ? palette.current : palette.arrow;
    painter.setPen(onlyReader ? QPen(colour, std::max(1.6, layout.pitch * 0.07))
                              : QPen(colour, std::max(0.8, layout.pitch * 0.035)));
    const NodeId first = onlyReader ? *onlyReader : 0;
    const NodeId end = onlyReader ? *onlyReader + 1 : static_cast<NodeId>(model.nodeCount());
    const QPen pen = painter.pen();
    QPen bandPen = pen; // skips into another band of a wrapped picture: faint and dashed
    bandPen.setStyle(Qt::DashLine);
    QColor faint = colour;
    faint.setAlpha(onlyReader ? 200 : 110);
    bandPen.setColor(faint);
    for (NodeId id = first; id < end; ++id) {
        for (const NodeId from : model.reads(id)) {
            const ScheduleLayout::Edge e = layout.edge(model, from, id);
            if (!e.drawn)
                continue;
            const QPointF tip = e.end;
            const QPointF back = e.straight ? e.end - e.start : e.end - e.control2;
            const double len = std::hypot(back.x(), back.y());
            if (len <= 0)
                continue;
            const QPointF u = back / len;
            painter.setPen(e.crossesBands ? bandPen : pen);
            painter.setBrush(Qt::NoBrush);
            const QPointF lineEnd = heads ? tip - u * headSize * 0.8 : tip;
            if (e.straight) {
                painter.drawLine(e.start, lineEnd);
            } else {
                QPainterPath path(e.start);
                path.cubicTo(e.control1, e.control2, lineEnd);
                painter.drawPath(path);
            }
            if (heads) {
                painter.setPen(pen);
                painter.setBrush(colour);
                drawArrowHead(painter, tip, u, headSize);
            }
        }
    }
}

void SchedulePainter::paintLabels(QPainter &painter, const ScheduleLayout &layout, const Palette &palette) const {
    // Forward names above the forward row, backward names below the backward row.
    const QFont font = labelFont(layout.pitch);
    painter.setFont(font);
    painter.setPen(palette.mutedText);
    const double h = QFontMetricsF(font).height();
    const double gap = ringRadiusOf(layout) + 1;
    for (int i = 0; i < layout.forwardCount; ++i) {
        if (!layout.showsLabel(i))
            continue;
        const QPointF f = layout.forwardCenter(i);
        const QPointF b = layout.backwardCenter(i);
        const double w = layout.pitch * std::max(1, layout.labelEvery) * 1.6;
        painter.drawText(QRectF(f.x() - w / 2, f.y() - gap - h, w, h), Qt::AlignHCenter | Qt::AlignBottom,
                         QStringLiteral("a_") + QString::number(i));
        painter.drawText(QRectF(b.x() - w / 2, b.y() + gap, w, h), Qt::AlignHCenter | Qt::AlignTop,
                         QStringLiteral("b_") + QString::number(i));
    }
}

void SchedulePainter::paintNode(QPainter &painter, QPointF c, const NodeAppearance &a, bool forward,
                                const ScheduleLayout &layout, const Palette &palette) {
    const double r = layout.radius;
    const double ringRadius = ringRadiusOf(layout);
    painter.setPen(QPen(palette.nodeOutline, std::max(0.8, r * 0.08)));
    painter.setBrush(fillColor(a.fill, palette));
    painter.drawEllipse(c, r, r);
    if (a.checkpoint) {
        painter.setPen(QPen(palette.checkpointRing, std::max(1.5, layout.pitch * 0.07)));
        painter.setBrush(Qt::NoBrush);
        painter.drawEllipse(c, ringRadius, ringRadius);
    }
    if (a.evicted) {
        // Evicted by the runtime, not freed by a plan: a solid ring in the peak's colour, crossed.
        const double w = std::max(1.5, r * 0.18);
        painter.setPen(QPen(palette.peak, w));
        painter.setBrush(Qt::NoBrush);
        painter.drawEllipse(c, ringRadius, ringRadius);
        const double d = ringRadius * 0.7;
        painter.drawLine(c + QPointF(-d, -d), c + QPointF(d, d));
        painter.drawLine(c + QPointF(-d, d), c + QPointF(d, -d));
    } else if (a.justFreed) {
        painter.setPen(QPen(palette.current, std::max(1.5, r * 0.15), Qt::DashLine));
        painter.setBrush(Qt::NoBrush);
        painter.drawEllipse(c, ringRadius, ringRadius);
    }
    // The counter sits on the rim so the node's fill stays visible at its centre.
    if (forward && a.computeCount > 1 && r >= 5) {
        const double br = badgeRadiusOf(layout);
        const QPointF bc = c + QPointF(r * 0.8, -r * 0.8);
        const QString text = QString::number(a.computeCount) + QChar(0x00D7);
        QFont badgeFont = labelFont(layout.pitch);
        badgeFont.setPixelSize(std::max(7, static_cast<int>(br * 1.15)));
        badgeFont.setBold(true);
        // A pill that fits the text, up to the sprite's room; longer counts get a smaller font.
        const double maxHalf = badgeHalfWidthOf(layout);
        double half = std::max(br, QFontMetricsF(badgeFont).horizontalAdvance(text) / 2 + br * 0.35);
        while (half > maxHalf && badgeFont.pixelSize() > 5) {
            badgeFont.setPixelSize(badgeFont.pixelSize() - 1);
            half = std::max(br, QFontMetricsF(badgeFont).horizontalAdvance(text) / 2 + br * 0.35);
        }
        half = std::min(half, maxHalf);
        painter.setPen(Qt::NoPen);
        painter.setBrush(palette.badge);
        painter.drawRoundedRect(QRectF(bc.x() - half, bc.y() - br, 2 * half, 2 * br), br, br);
        painter.setFont(badgeFont);
        painter.setPen(palette.badgeText);
        painter.drawText(QRectF(bc.x() - half, bc.y() - br, 2 * half, 2 * br), Qt::AlignCenter, text);
    }
}

void SchedulePainter::prepareCache(const ScheduleLayout &layout, const Palette &palette, qreal dpr) const {
    if (cache_.layout == layout && cache_.palette == palette && cache_.dpr == dpr && !cache_.staticLayer.isNull())
        return;
    cache_.layout = layout;
    cache_.palette = palette;
    cache_.dpr = dpr;
    cache_.sprites.clear();
    const QRectF area = layout.area.adjusted(-2, -2, 2, 2);
    cache_.staticLayer =
        QImage((area.size() * dpr).toSize().expandedTo(QSize(1, 1)), QImage::Format_ARGB32_Premultiplied);
    cache_.staticLayer.setDevicePixelRatio(dpr);
    cache_.staticLayer.fill(Qt::transparent);
    QPainter p(&cache_.staticLayer);
    p.setRenderHint(QPainter::Antialiasing, true);
    p.translate(-area.topLeft());
    if (layout.pitch >= 5)
        paintArrows(p, layout, palette, std::nullopt);
    paintLabels(p, layout, palette);
}

const QImage &SchedulePainter::sprite(const NodeAppearance &a, bool forward, const ScheduleLayout &layout,
                                      const Palette &palette) const {
    const std::uint32_t badge = forward && a.computeCount > 1 ? a.computeCount : 0;
    const std::uint64_t key = (std::uint64_t{badge} << 8) | (std::uint64_t{a.evicted} << 7) |
                              (std::uint64_t(a.fill) << 2) | (std::uint64_t{a.checkpoint} << 1) |
                              std::uint64_t{a.justFreed};
    auto it = cache_.sprites.find(key);
    if (it != cache_.sprites.end())
        return it->second;
    const double half = spriteHalfOf(layout);
    QImage image((QSizeF(2 * half, 2 * half) * cache_.dpr).toSize(), QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(cache_.dpr);
    image.fill(Qt::transparent);
    QPainter p(&image);
    p.setRenderHint(QPainter::Antialiasing, true);
    paintNode(p, QPointF(half, half), a, forward, layout, palette);
    return cache_.sprites.emplace(key, std::move(image)).first->second;
}

void SchedulePainter::paint(QPainter &painter, const ScheduleLayout &layout, const StepState &state,
                            const Palette &palette, std::optional<NodeId> hover) const {
    const Model &model = timeline_->model();
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, true);
    prepareCache(layout, palette, painter.device() ? painter.device()->devicePixelRatioF() : 1.0);
    painter.drawImage(layout.area.topLeft() - QPointF(2, 2), cache_.staticLayer);

    // The arrows into the node being computed: what it reads.
    if (state.step >= 0 && timeline_->op(state.step).kind == OpKind::Compute && layout.pitch >= 5)
        paintArrows(painter, layout, palette, timeline_->op(state.step).node);

    const double half = spriteHalfOf(layout);
    for (NodeId id = 0; id < static_cast<NodeId>(model.nodeCount()); ++id) {
        const QPointF c = layout.center(model, id);
        painter.drawImage(QPointF(c.x() - half, c.y() - half),
                          sprite(appearance(state, id), !model.isBackward(id), layout, palette));
    }
    paintSavedInternals(painter, layout, state, palette);
    if (hover) {
        const double r = layout.radius;
        painter.setPen(QPen(palette.hover, std::max(2.0, r * 0.18)));
        painter.setBrush(Qt::NoBrush);
        painter.drawEllipse(layout.center(model, *hover), r + 1, r + 1);
    }
    painter.restore();
}

void SchedulePainter::paintSavedInternals(QPainter &painter, const ScheduleLayout &layout, const StepState &state,
                                          const Palette &palette) const {
    const Model &model = timeline_->model();
    const SavedInternalsBars bars = SavedInternalsBars::make(layout, model);
    if (!bars.drawn())
        return;
    const QColor colour = kindColour(MemoryKind::SavedInternals, palette);
    const QFont font = labelFont(layout.pitch);
    const QFontMetricsF metrics(font);
    painter.setFont(font);
    for (int i = 1; i < model.forwardCount(); ++i) {
        const QRectF bar = bars.bar(i, model.savedBytes(i));
        if (bar.isEmpty())
            continue;
        const bool held = state.holdsSaved(i);
        painter.setPen(QPen(colour, 1));
        painter.setBrush(held ? QBrush(colour) : QBrush(Qt::NoBrush));
        painter.drawRect(bar.adjusted(0.5, 0.5, -0.5, -0.5));
        if (!held)
            continue;
        const QString text = QString::fromStdString(formatBytes(model.savedBytes(i)));
        const QRectF where = bars.label(bar, metrics.horizontalAdvance(text), metrics.height());
        if (where.isEmpty())
            continue;
        painter.setPen(colour);
        painter.drawText(where, Qt::AlignLeft | Qt::AlignTop, text);
    }
}

namespace {
struct LegendItem {
    NodeFill fill;
    bool ring;
    const char *text;
    const char *compactText;
    bool savedBar = false; // the saved-internals bar, shown for models whose layers save some
    bool copy = false;     // a copy on the link (the host lane's arrow), shown for timed panes
    bool offload = false;  // shown only when some pane is timed (a link is set)
    bool stall = false;    // the host lane's hatch of a stall
};
constexpr LegendItem kLegendItems[] = {
    {NodeFill::NotComputed, false, "not yet computed", "not computed"},
    {NodeFill::Resident, false, "resident in memory", "in memory"},
    {NodeFill::Resident, true, "checkpoint (kept for the backward pass)", "checkpoint"},
    {NodeFill::Current, false, "computed by the current op", "current op"},
    {NodeFill::Recomputed, false, "recomputed (n\u00D7 = times computed)", "recomputed (n\u00D7)"},
    {NodeFill::Freed, false, "freed", "freed"},
    {NodeFill::Resident, false, "saved internals (for its backward)", "saved internals", true},
    {NodeFill::OnHost, false, "on host (offloaded)", "on host", false, false, true},
    {NodeFill::Resident, false, "copy in flight on the link", "in flight", false, true, true},
    {NodeFill::Resident, false, "stall (compute waits for a copy)", "stall", false, false, true, true},
};

// Lays the legend out in `rect`, row after row, painting when `painter` is
// given; returns the height used. One loop serves painting and measuring.
double layoutLegend(QPainter *painter, const QFontMetricsF &metrics, const QRectF &rect, const Palette &palette,
                    bool compact, bool savedInternals, bool offload) {
    const double r = std::max(compact ? 4.0 : 5.0, metrics.height() * (compact ? 0.32 : 0.38));
    const double lineHeight = std::max(metrics.height(), 2 * r + 6) + 2;
    const double spacing = compact ? metrics.height() * 0.8 : 16;
    double x = rect.left();
    double y = rect.top();
    for (const LegendItem &item : kLegendItems) {
        if ((item.savedBar && !savedInternals) || (item.offload && !offload))
            continue;
        const QString text = QString::fromUtf8(compact ? item.compactText : item.text);
        const double w = 2 * r + 6 + metrics.horizontalAdvance(text) + spacing;
        if (x > rect.left() && x + w - spacing > rect.right()) {
            x = rect.left();
            y += lineHeight;
        }
        if (painter) {
            const QPointF c(x + r + 3, y + lineHeight / 2);
            if (item.stall) {
                const QRectF swatch(c.x() - r, c.y() - r, 2 * r, 2 * r);
                painter->setPen(Qt::NoPen);
                painter->setBrush(palette.stall);
                painter->drawRect(swatch);
                painter->setBrush(HostLanePainter::stallBrush(palette));
                painter->drawRect(swatch);
            } else if (item.copy) {
                // The host lane's look of a copy on the link: its colour, an arrow down to the host.
                painter->setPen(Qt::NoPen);
                painter->setBrush(palette.inFlight);
                painter->drawRoundedRect(QRectF(c.x() - r, c.y() - r, 2 * r, 2 * r), r * 0.3, r * 0.3);
                painter->setPen(QPen(palette.text, std::max(1.2, r * 0.25)));
                painter->drawLine(QPointF(c.x(), c.y() - r * 0.6), QPointF(c.x(), c.y() + r * 0.55));
                painter->drawLine(QPointF(c.x() - r * 0.45, c.y() + r * 0.1), QPointF(c.x(), c.y() + r * 0.6));
                painter->drawLine(QPointF(c.x() + r * 0.45, c.y() + r * 0.1), QPointF(c.x(), c.y() + r * 0.6));
            } else if (item.savedBar) {
                const QColor colour = kindColour(MemoryKind::SavedInternals, palette);
                painter->setPen(QPen(colour, 1));
                painter->setBrush(colour);
                painter->drawRect(QRectF(c.x() - r * 0.4, c.y() - r, r * 0.8, 2 * r));
            } else {
                painter->setPen(QPen(palette.nodeOutline, 1));
                painter->setBrush(SchedulePainter::fillColor(item.fill, palette));
                painter->drawEllipse(c, r, r);
            }
            if (item.ring) {
                painter->setPen(QPen(palette.checkpointRing, std::max(1.6, r * 0.3)));
                painter->setBrush(Qt::NoBrush);
                painter->drawEllipse(c, r + 2.5, r + 2.5);
            }
            painter->setPen(palette.text);
            painter->drawText(QRectF(x + 2 * r + 8, y, w, lineHeight), Qt::AlignLeft | Qt::AlignVCenter, text);
        }
        x += w;
    }
    return y + lineHeight - rect.top();
}
} // namespace

double SchedulePainter::paintLegend(QPainter &painter, const QRectF &rect, const Palette &palette, bool compact,
                                    bool savedInternals, bool offload) {
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, true);
    const double height =
        layoutLegend(&painter, QFontMetricsF(painter.font()), rect, palette, compact, savedInternals, offload);
    painter.restore();
    return height;
}

double SchedulePainter::legendHeight(const QFont &font, double width, bool compact, bool savedInternals, bool offload) {
    return layoutLegend(nullptr, QFontMetricsF(font), QRectF(0, 0, width, 1e6), Palette::light(), compact,
                        savedInternals, offload);
}

} // namespace remat::render
