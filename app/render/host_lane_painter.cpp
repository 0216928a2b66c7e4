#include "app/render/host_lane_painter.h"

#include "app/render/stream_narration.h"

#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace remat::render {

namespace {

const char *const kRowNames[] = {"host", "compute", "link"};

void drawArrow(QPainter &painter, const QLineF &line, double head) {
    painter.drawLine(line);
    const QPointF tip = line.p2();
    const double dy = line.dy() >= 0 ? 1 : -1;
    const QPointF pts[3] = {tip, tip + QPointF(-head * 0.6, -dy * head), tip + QPointF(head * 0.6, -dy * head)};
    painter.drawPolygon(pts, 3);
}

} // namespace

QRect HostLanePainter::stallFrame(const HostLaneLayout &layout, const Stall &stall) {
    return layout.bar(layout.computeRow, stall.from, stall.to).toAlignedRect().adjusted(0, 0, -1, -1);
}

QBrush HostLanePainter::stallBrush(const Palette &palette) {
    return QBrush(palette.badge, Qt::BDiagPattern);
}

HostLanePainter::HostLanePainter(std::shared_ptr<const Timeline> timeline) : timeline_(std::move(timeline)) {
    // Recomputations get their own colour in the compute row, as in the picture.
    const Model &model = timeline_->model();
    std::vector<std::uint32_t> count(static_cast<std::size_t>(model.nodeCount()), 0);
    recomputes_.assign(static_cast<std::size_t>(timeline_->steps()), 0);
    for (std::int64_t s = 0; s < timeline_->steps(); ++s) {
        const Op op = timeline_->op(s);
        if (op.kind == OpKind::Compute && !model.isBackward(op.node) && ++count[op.node] > 1)
            recomputes_[static_cast<std::size_t>(s)] = 1;
    }
}

HostCell HostLanePainter::cellOf(const Timeline &timeline, const StepState &state, int i, double time) {
    const NodeId node = timeline.model().forwardNode(i);
    HostCell cell;
    switch (state.placeOf(node)) {
    case Place::Nowhere:
    case Place::Device:
        return cell;
    case Place::Host:
        cell.kind = HostCell::Kind::OnHost;
        return cell;
    case Place::ToHost:
    case Place::ToDevice:
        break;
    }
    cell.transfer = state.transferOf(node);
    cell.progress = cell.transfer >= 0 ? timeline.transferProgress(cell.transfer, time) : 1;
    cell.kind = cell.progress >= 1                     ? HostCell::Kind::OnHost
                : state.placeOf(node) == Place::ToHost ? HostCell::Kind::ToHost
                                                       : HostCell::Kind::ToDevice;
    return cell;
}

QColor HostLanePainter::cellColour(HostCell::Kind kind, const Palette &palette) {
    switch (kind) {
    case HostCell::Kind::Empty:
        return palette.background;
    case HostCell::Kind::OnHost:
        return palette.onHost;
    case HostCell::Kind::ToHost:
    case HostCell::Kind::ToDevice:
        return palette.inFlight;
    }
    return palette.background;
}

double HostLanePainter::gutterWidth(const QFontMetricsF &metrics) {
    double w = 0;
    for (const char *name : kRowNames)
        w = std::max(w, metrics.horizontalAdvance(QString::fromLatin1(name)));
    return w;
}

void HostLanePainter::paintStreams(QPainter &painter, const HostLaneLayout &l, const Palette &palette) const {
    const Timeline &tl = *timeline_;
    painter.setPen(Qt::NoPen);
    painter.setBrush(palette.grid);
    painter.drawRect(QRectF(l.left(), l.computeRow.top(), l.width(), l.computeRow.height() + l.copyRow.height()));
    // The compute stream: every op that takes time.
    QColor first = palette.resident, again = palette.recomputed;
    for (std::int64_t s = 0; s < tl.steps(); ++s) {
        const double start = tl.startTime(s), end = tl.endTime(s);
        if (end <= start)
            continue;
        painter.setBrush(recomputes_[static_cast<std::size_t>(s)] ? again : first);
        QRectF r = l.bar(l.computeRow, start, end).adjusted(0, 1, 0, -1);
        if (r.width() >= 4)
            r.setRight(r.right() - 1); // a gap between ops, so that each reads as one
        painter.drawRect(r);
    }
    for (const Stall &stall : tl.stalls()) {
        const QRectF r = l.bar(l.computeRow, stall.from, stall.to);
        painter.setBrush(palette.stall);
        painter.drawRect(r);
        painter.setBrush(stallBrush(palette));
        painter.drawRect(r);
    }
    // The link: every transfer, a triangle for its direction where there is room.
    for (const Transfer &x : tl.transfers()) {
        QRectF r = l.bar(l.copyRow, x.start, x.end).adjusted(0, 1, 0, -1);
        if (r.width() >= 4)
            r.setRight(r.right() - 1); // back-to-back copies read as several
        painter.setPen(Qt::NoPen);
        // Offloads and prefetches apart at a glance: a prefetch is a shade darker.
        painter.setBrush(x.direction == Direction::ToHost ? palette.inFlight : palette.inFlight.darker(125));
        painter.drawRect(r);
        if (r.width() >= r.height() * 1.4) {
            const double h = r.height() * 0.32;
            const QPointF c = r.center();
            const double dy = x.direction == Direction::ToHost ? 1 : -1;
            const QPointF tri[3] = {c + QPointF(-h, -dy * h * 0.7), c + QPointF(h, -dy * h * 0.7),
                                    c + QPointF(0, dy * h)};
            painter.setBrush(palette.text);
            painter.drawPolygon(tri, 3);
        }
    }
    // The rows' names.
    if (l.gutter > 0) {
        QFont small = painter.font(); // as tall as a row, so that the names stay on their rows
        small.setPixelSize(std::max(
            7, static_cast<int>(std::min<double>(QFontMetricsF(small).height(), l.computeRow.height() * 1.05))));
        painter.setFont(small);
        painter.setPen(palette.mutedText);
        const QRectF rows[] = {l.hostRow, l.computeRow, l.copyRow};
        for (int r = 0; r < 3; ++r)
            painter.drawText(QRectF(l.area.left(), rows[r].center().y() - 20, l.gutter, 40),
                             Qt::AlignLeft | Qt::AlignVCenter, QString::fromLatin1(kRowNames[r]));
    }
}

void HostLanePainter::paintCells(QPainter &painter, const HostLaneLayout &l, const StepState &state, double time,
                                 const Palette &palette) const {
    const Timeline &tl = *timeline_;
    if (l.layers < 1)
        return;
    if (!l.separateCells()) {
        // Thousands of layers: each pixel column shows the most telling of its cells.
        const int columns = std::max(1, static_cast<int>(std::floor(l.width())));
        std::vector<int> rank(static_cast<std::size_t>(columns), 0);
        for (int i = 1; i <= l.layers; ++i) {
            const HostCell::Kind kind = cellOf(tl, state, i, time).kind;
            const int r = kind == HostCell::Kind::Empty ? 0 : kind == HostCell::Kind::OnHost ? 1 : 2;
            const int column = std::clamp(static_cast<int>(l.cell(i).center().x() - l.left()), 0, columns - 1);
            rank[static_cast<std::size_t>(column)] = std::max(rank[static_cast<std::size_t>(column)], r);
        }
        painter.setPen(Qt::NoPen);
        for (int c = 0; c < columns; ++c) {
            const int r = rank[static_cast<std::size_t>(c)];
            if (r == 0)
                continue;
            painter.setBrush(r == 1 ? palette.onHost : palette.inFlight);
            painter.drawRect(QRectF(l.left() + c, l.hostRow.top() + 1, 1, l.hostRow.height() - 2));
        }
        return;
    }
    const double head = std::clamp(l.linkRow.height() * 0.45, 4.0, 10.0);
    for (int i = 1; i <= l.layers; ++i) {
        const HostCell cell = cellOf(tl, state, i, time);
        const QRectF r = l.cell(i);
        painter.setPen(QPen(palette.grid, 1));
        painter.setBrush(cellColour(cell.kind, palette));
        painter.drawRect(r.adjusted(0.5, 0.5, -0.5, -0.5));
        if (cell.kind == HostCell::Kind::ToHost || cell.kind == HostCell::Kind::ToDevice) {
            // The copy moving between the device (above) and the host cell.
            painter.setPen(QPen(palette.text, std::max(2.0, r.width() * 0.15)));
            painter.setBrush(palette.text);
            drawArrow(painter, l.arrow(i, cell.kind == HostCell::Kind::ToHost, cell.progress), head);
        }
    }
}

void HostLanePainter::paintNow(QPainter &painter, const HostLaneLayout &l, double time, const Palette &palette) const {
    const Timeline &tl = *timeline_;
    const std::optional<Stall> stall = stallAt(tl, time);
    // The stall under way and the transfer on the link stand out.
    if (stall) {
        // Crisp, on whole pixels: a red frame reads as one even a few pixels wide.
        painter.save();
        painter.setRenderHint(QPainter::Antialiasing, false);
        painter.setPen(QPen(palette.badge, 2, Qt::SolidLine, Qt::SquareCap, Qt::MiterJoin));
        painter.setBrush(Qt::NoBrush);
        painter.drawRect(stallFrame(l, *stall));
        painter.restore();
    }
    if (const std::int32_t k = tl.transferAt(time); k >= 0) {
        const Transfer &x = tl.transfers()[static_cast<std::size_t>(k)];
        painter.setPen(QPen(palette.text, 1.5));
        painter.setBrush(Qt::NoBrush);
        painter.drawRect(l.bar(l.copyRow, x.start, x.end).adjusted(0, 1, 0, -1));
    }
    const double x = l.timeToX(std::clamp(time, 0.0, l.timeEnd));
    painter.setPen(QPen(palette.playhead, 1.5));
    painter.drawLine(QPointF(x, l.computeRow.top() - 2), QPointF(x, l.copyRow.bottom() + 2));
    // The copy under way moves along the link's row with the playhead: an
    // arrowhead pointing where its bytes go (down to the host, up to the device).
    if (const std::int32_t k = tl.transferAt(time); k >= 0) {
        const bool toHost = tl.transfers()[static_cast<std::size_t>(k)].direction == Direction::ToHost;
        const double h = l.copyRow.height() * 0.42, c = l.copyRow.center().y(), dy = toHost ? 1 : -1;
        const QPointF head[3] = {QPointF(x - h, c - dy * h * 0.8), QPointF(x + h, c - dy * h * 0.8),
                                 QPointF(x, c + dy * h)};
        painter.setPen(QPen(palette.background, 1));
        painter.setBrush(palette.text);
        painter.drawPolygon(head, 3);
    }
    const QString caption = QString::fromStdString(laneCaption(tl, time));
    painter.setPen(stall ? palette.badge : palette.text);
    painter.drawText(l.captionRow, Qt::AlignLeft | Qt::AlignVCenter,
                     QFontMetricsF(painter.font()).elidedText(caption, Qt::ElideRight, l.captionRow.width()));
}

void HostLanePainter::paint(QPainter &painter, const HostLaneLayout &layout, const StepState &state, double time,
                            const Palette &palette) const {
    painter.save();
    const qreal dpr = painter.device() ? painter.device()->devicePixelRatioF() : 1.0;
    const QRectF area = layout.area;
    if (cache_.image.isNull() || !(cache_.layout == layout) || !(cache_.palette == palette) || cache_.dpr != dpr) {
        cache_.layout = layout;
        cache_.palette = palette;
        cache_.dpr = dpr;
        cache_.image =
            QImage((area.size() * dpr).toSize().expandedTo(QSize(1, 1)), QImage::Format_ARGB32_Premultiplied);
        cache_.image.setDevicePixelRatio(dpr);
        cache_.image.fill(Qt::transparent);
        QPainter p(&cache_.image);
        p.setFont(painter.font());
        p.translate(-area.topLeft());
        paintStreams(p, layout, palette);
    }
    painter.drawImage(area.topLeft(), cache_.image);
    paintCells(painter, layout, state, time, palette);
    painter.setRenderHint(QPainter::Antialiasing, true);
    paintNow(painter, layout, time, palette);
    painter.restore();
}

} // namespace remat::render
