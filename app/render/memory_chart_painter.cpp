#include "app/render/memory_chart_painter.h"

#include "core/units.h"

#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace remat::render {

namespace {
QString text(const std::string &s) {
    return QString::fromStdString(s);
}
} // namespace

QColor MemoryChartPainter::colourOf(std::size_t index, const Palette &palette) const {
    const int pane = series_[index].pane;
    return palette.paneColour(pane >= 0 ? pane : static_cast<int>(index));
}

bool MemoryChartPainter::sizesInNodes() const {
    return !series_.empty() && series_.front().timeline->model().sizesInNodes();
}

void MemoryChartPainter::setSeries(std::vector<Series> series, TimeAxis axis) {
    series_ = std::move(series);
    hosts_.clear();
    hostSeriesIndex_.clear();
    for (std::size_t i = 0; i < series_.size(); ++i) {
        const Timeline &tl = *series_[i].timeline;
        HostPeak peak;
        for (std::int64_t s = 0; s < tl.steps(); ++s)
            if (tl.hostBytesAt(s) > peak.bytes)
                peak = {tl.hostBytesAt(s), s};
        if (peak.bytes > 0) {
            hosts_.push_back(peak);
            hostSeriesIndex_.push_back(i);
        }
    }
    breakdown_.reset();
    measured_.clear();
    axis_ = axis;
    cache_.image = QImage();
}

void MemoryChartPainter::setMeasured(std::vector<Measured> measured) {
    measured_ = std::move(measured);
    cache_.image = QImage();
}

void MemoryChartPainter::setStackByKind(bool stack) {
    stackByKind_ = stack;
    cache_.image = QImage();
}

std::shared_ptr<const MemoryBreakdown> MemoryChartPainter::breakdown() const {
    if (!breakdown_ && !series_.empty())
        breakdown_ = std::make_shared<const MemoryBreakdown>(*series_.front().timeline);
    return breakdown_;
}

bool MemoryChartPainter::hasMeasured() const {
    for (std::size_t i = 0; i < measured_.size() && i < series_.size(); ++i)
        if (measured_[i])
            return true;
    return false;
}

double MemoryChartPainter::maxTime() const {
    double t = 0;
    for (const Series &s : series_)
        t = std::max(t, totalTime(*s.timeline, axis_));
    return t;
}

namespace {
// Translucent: the grid and the series' curves show through a stack.
QColor kindAreaColour(MemoryKind kind, const Palette &palette) {
    QColor c = kindColour(kind, palette);
    c.setAlpha(palette.isDark() ? 150 : 120);
    return c;
}
// As many byte ticks as fit with room for their labels.
int yTickCount(double plotHeight, const QFontMetricsF &metrics) {
    return std::max(2, static_cast<int>(plotHeight / (metrics.height() * 2.2)));
}
} // namespace

MemoryChartMapping MemoryChartPainter::mapping(const QRectF &rect, const QFontMetricsF &metrics) const {
    std::int64_t maxBytes = 0;
    for (const Series &s : series_)
        maxBytes = std::max(maxBytes, s.peakBytes);
    for (const HostPeak &h : hosts_)
        maxBytes = std::max(maxBytes, h.bytes);
    // A measured curve above the prediction must still fit: a mismatch is shown, not clipped.
    for (std::size_t i = 0; i < measured_.size() && i < series_.size(); ++i)
        if (measured_[i] && !measured_[i]->empty())
            maxBytes = std::max(maxBytes, static_cast<std::int64_t>(std::ceil(
                                              *std::max_element(measured_[i]->begin(), measured_[i]->end()))));
    const double top = MemoryChartMapping::axisTop(static_cast<double>(std::max<std::int64_t>(maxBytes, 1)));
    // The margin fits the widest tick label ("53.67 MiB" can be wider than the top one).
    const double plotHeight = rect.height() - metrics.height() * 1.6 - (metrics.height() * 2.2 + 4);
    double labelWidth = 0;
    for (const double b : MemoryChartMapping::byteTicks(top, yTickCount(plotHeight, metrics)))
        labelWidth = std::max(
            labelWidth, metrics.horizontalAdvance(text(formatSize(static_cast<std::int64_t>(b), sizesInNodes()))));
    const QRectF plot = rect.adjusted(labelWidth + 12, metrics.height() * 1.6, -14, -(metrics.height() * 2.2 + 4));
    // A band one label high stays free above the highest curve: the peak labels' room.
    return MemoryChartMapping::make(plot, maxTime(), maxBytes, metrics.height() + 8);
}

QString MemoryChartPainter::peakLabel(std::size_t index) const {
    if (index >= series_.size())
        return QStringLiteral("host ") + text(formatSize(hosts_[index - series_.size()].bytes, sizesInNodes()));
    return QStringLiteral("peak ") + text(formatSize(series_[index].peakBytes, sizesInNodes()));
}

QString MemoryChartPainter::peakName(std::size_t index) const {
    if (index >= series_.size())
        return series_[hostSeriesIndex_[index - series_.size()]].name + QStringLiteral(", host");
    return series_[index].name;
}

std::vector<PeakLabel> MemoryChartPainter::peakLabels(const MemoryChartMapping &m, const QFontMetricsF &metrics) const {
    std::vector<QPointF> markers;
    std::vector<QSizeF> sizes;
    for (std::size_t i = 0; i < peakCount(); ++i) {
        markers.push_back(peakPoint(m, i));
        sizes.emplace_back(metrics.horizontalAdvance(peakLabel(i)) + 6, metrics.height());
    }
    std::vector<QRectF> keepClear;
    if (stackByKind_)
        keepClear.push_back(kindLegendBox(m, metrics));
    return placePeakLabels(markers, sizes, kMarkerRadius + 1, curves(m), kCurvePenWidth / 2 + 1, keepClear,
                           m.plot.adjusted(1, 1, -1, -1));
}

std::vector<QPolygonF> MemoryChartPainter::curves(const MemoryChartMapping &m) const {
    std::vector<QPolygonF> out;
    for (const Series &s : series_) {
        const Timeline &tl = *s.timeline;
        out.push_back(curve(m, s, [&tl](std::int64_t step) { return tl.bytesAt(step); }));
    }
    for (std::size_t i = 0; i < measured_.size() && i < series_.size(); ++i) {
        const Measured &values = measured_[i];
        if (values && static_cast<std::int64_t>(values->size()) == series_[i].timeline->steps())
            out.push_back(curve(m, series_[i],
                                [&values](std::int64_t step) { return (*values)[static_cast<std::size_t>(step)]; }));
    }
    for (const std::size_t i : hostSeriesIndex_) {
        const Timeline &tl = *series_[i].timeline;
        out.push_back(curve(m, series_[i], [&tl](std::int64_t step) { return tl.hostBytesAt(step); }));
    }
    return out;
}

std::pair<double, double> MemoryChartPainter::interval(const Timeline &tl, std::int64_t step) const {
    const double start = opStartTime(tl, step, axis_);
    if (axis_ == TimeAxis::Cost && tl.timed() && step + 1 < tl.steps())
        return {start, tl.startTime(step + 1)};
    return {start, opEndTime(tl, step, axis_)};
}

QPointF MemoryChartPainter::peakPoint(const MemoryChartMapping &m, std::size_t index) const {
    const bool host = index >= series_.size();
    const Series &s = series_[host ? hostSeriesIndex_[index - series_.size()] : index];
    const std::int64_t step = host ? hosts_[index - series_.size()].step : std::max<std::int64_t>(s.peakStep, 0);
    const double bytes = static_cast<double>(host ? hosts_[index - series_.size()].bytes : s.peakBytes);
    const auto [start, end] = interval(*s.timeline, step);
    return m.map((start + end) / 2, bytes);
}

template <class BytesAt>
QPolygonF MemoryChartPainter::curve(const MemoryChartMapping &m, const Series &series, BytesAt bytesAt) const {
    const Timeline &tl = *series.timeline;
    QPolygonF points;
    // Ops narrower than a pixel are merged into one column drawn as its
    // min..max envelope; wider ops keep their exact steps.
    bool pending = false;
    double column = 0, minY = 0, maxY = 0, lastY = 0, firstY = 0;
    auto flush = [&] {
        if (!pending)
            return;
        points << QPointF(column, firstY) << QPointF(column, minY) << QPointF(column, maxY) << QPointF(column, lastY);
        pending = false;
    };
    for (std::int64_t s = 0; s < tl.steps(); ++s) {
        const auto [ts, te] = interval(tl, s);
        if (te == ts)
            continue; // a free takes no time by cost: no spike, the next op shows the memory after it
        const double xs = m.timeToX(ts);
        const double xe = m.timeToX(te);
        const double y = m.bytesToY(static_cast<double>(bytesAt(s)));
        if (xe - xs >= 1.0) {
            flush();
            points << QPointF(xs, y) << QPointF(xe, y);
            continue;
        }
        const double col = std::floor(xs) + 0.5;
        if (!pending || col != column) {
            flush();
            pending = true;
            column = col;
            firstY = minY = maxY = y;
        }
        minY = std::min(minY, y);
        maxY = std::max(maxY, y);
        lastY = y;
    }
    flush();
    return points;
}

void MemoryChartPainter::paintKinds(QPainter &painter, const MemoryChartMapping &m, const Palette &palette) const {
    const std::shared_ptr<const MemoryBreakdown> kinds = breakdown();
    // Each band runs between the stack below it and its own top, so the
    // translucent fills never overlap.
    QPolygonF below;
    for (const MemoryKind k : kMemoryKinds) {
        const QPolygonF top = curve(m, series_.front(), [&](std::int64_t step) { return kinds->stackedUpTo(step, k); });
        if (top.isEmpty())
            return;
        QPolygonF band = top;
        if (below.isEmpty())
            band << QPointF(top.back().x(), m.plot.bottom()) << QPointF(top.front().x(), m.plot.bottom());
        else
            for (auto p = below.rbegin(); p != below.rend(); ++p)
                band << *p;
        painter.setPen(Qt::NoPen);
        painter.setBrush(kindAreaColour(k, palette));
        painter.drawPolygon(band);
        below = top;
    }
}

void MemoryChartPainter::paintKindLegend(QPainter &painter, const MemoryChartMapping &m, const Palette &palette) const {
    const QFontMetricsF metrics(painter.font());
    const double line = metrics.height() + 2;
    const QString title = QStringLiteral("%1 by kind:").arg(series_.front().name);
    const QRectF box = kindLegendBox(m, metrics);
    const double width = box.width() - 10;
    QColor background = palette.background;
    background.setAlpha(220);
    painter.setPen(QPen(palette.grid, 1));
    painter.setBrush(background);
    painter.drawRect(box);
    painter.setPen(palette.text);
    painter.drawText(QRectF(box.left() + 5, box.top() + 3, width, line), Qt::AlignLeft | Qt::AlignVCenter, title);
    double y = box.top() + 3 + line;
    for (auto k = kMemoryKinds.rbegin(); k != kMemoryKinds.rend(); ++k, y += line) {
        const QColor fill = kindAreaColour(*k, palette);
        painter.setPen(Qt::NoPen);
        painter.setBrush(fill);
        painter.drawRect(QRectF(box.left() + 5, y + line * 0.2, 12, line * 0.6));
        painter.setPen(palette.text);
        painter.drawText(QRectF(box.left() + 23, y, width, line), Qt::AlignLeft | Qt::AlignVCenter,
                         QString::fromUtf8(kindName(*k)));
    }
}

QRectF MemoryChartPainter::kindLegendBox(const MemoryChartMapping &m, const QFontMetricsF &metrics) const {
    // In the plot's top left corner: the curves start low there.
    const double line = metrics.height() + 2;
    double width = metrics.horizontalAdvance(QStringLiteral("%1 by kind:").arg(series_.front().name));
    for (const MemoryKind k : kMemoryKinds)
        width = std::max(width, 18 + metrics.horizontalAdvance(QString::fromUtf8(kindName(k))));
    return {m.plot.left() + 6, m.plot.top() + 4, width + 10, line * (1 + kMemoryKinds.size()) + 6};
}

void MemoryChartPainter::paintStatic(QPainter &painter, const QRectF &rect, const MemoryChartMapping &m,
                                     const Palette &palette) const {
    const QFontMetricsF metrics(painter.font());

    // Axes and grid.
    painter.setPen(QPen(palette.grid, 1));
    for (const double b : MemoryChartMapping::byteTicks(m.bytesTop, yTickCount(m.plot.height(), metrics))) {
        if (b != std::floor(b))
            continue; // no fractions of a byte
        const double y = m.bytesToY(b);
        painter.setPen(QPen(palette.grid, 1));
        painter.drawLine(QPointF(m.plot.left(), y), QPointF(m.plot.right(), y));
        painter.setPen(palette.mutedText);
        painter.drawText(
            QRectF(rect.left(), y - metrics.height() / 2, m.plot.left() - rect.left() - 6, metrics.height()),
            Qt::AlignRight | Qt::AlignVCenter, text(formatSize(static_cast<std::int64_t>(b), sizesInNodes())));
    }
    const int xTickCount = std::max(2, static_cast<int>(m.plot.width() / 70));
    for (const double t : MemoryChartMapping::ticks(m.timeEnd, xTickCount)) {
        const double x = m.timeToX(t);
        if (x > m.plot.right() + 0.5)
            break;
        painter.setPen(QPen(palette.grid, 1));
        painter.drawLine(QPointF(x, m.plot.top()), QPointF(x, m.plot.bottom()));
        painter.setPen(palette.mutedText);
        painter.drawText(QRectF(x - 40, m.plot.bottom() + 2, 80, metrics.height()), Qt::AlignHCenter | Qt::AlignTop,
                         text(timeText(t, axis_, *series_.front().timeline, false)));
    }
    painter.setPen(palette.mutedText);
    painter.drawText(QRectF(m.plot.left(), m.plot.bottom() + metrics.height() + 2, m.plot.width(), metrics.height()),
                     Qt::AlignHCenter | Qt::AlignTop, text(timeAxisTitle(axis_, *series_.front().timeline)));
    painter.drawText(QRectF(m.plot.left(), rect.top(), m.plot.width(), metrics.height() * 1.4),
                     Qt::AlignLeft | Qt::AlignVCenter, QStringLiteral("memory"));

    // Curves.
    painter.setRenderHint(QPainter::Antialiasing, true);
    if (stackByKind_)
        paintKinds(painter, m, palette);
    // Predicted curves, then the measured ones dashed over them: where they agree the dashes lie on the line.
    const std::vector<QPolygonF> lines = curves(m);
    std::size_t line = 0;
    for (std::size_t i = 0; i < series_.size(); ++i, ++line) {
        painter.setPen(QPen(colourOf(i, palette), kCurvePenWidth));
        painter.drawPolyline(lines[line]);
    }
    for (std::size_t i = 0; i < measured_.size() && i < series_.size(); ++i) {
        const Measured &values = measured_[i];
        if (!values || static_cast<std::int64_t>(values->size()) != series_[i].timeline->steps())
            continue;
        QPen pen(colourOf(i, palette).darker(palette.isDark() ? 70 : 140), kCurvePenWidth, Qt::CustomDashLine);
        pen.setDashPattern({3, 3});
        painter.setPen(pen);
        painter.drawPolyline(lines[line++]);
    }
    // Host memory: dotted in the series' colour.
    for (const std::size_t i : hostSeriesIndex_) {
        QPen pen(colourOf(i, palette), kCurvePenWidth, Qt::CustomDashLine);
        pen.setDashPattern({1, 2});
        painter.setPen(pen);
        painter.drawPolyline(lines[line++]);
    }

    if (stackByKind_)
        paintKindLegend(painter, m, palette);

    // Legend, top right; "predicted / measured" line styles first when measured curves are shown.
    double lx = m.plot.right();
    auto legendEntry = [&](const QString &name, const QPen &swatch) {
        const double w = metrics.horizontalAdvance(name);
        lx -= w;
        painter.setPen(palette.text);
        painter.drawText(QRectF(lx, rect.top(), w + 2, metrics.height() * 1.4), Qt::AlignLeft | Qt::AlignVCenter, name);
        lx -= 20;
        const double y = rect.top() + metrics.height() * 0.7;
        painter.setPen(swatch);
        painter.drawLine(QPointF(lx + 2, y), QPointF(lx + 18, y));
        lx -= 10;
    };
    if (!hosts_.empty()) {
        QPen dotted(palette.mutedText, 2, Qt::CustomDashLine);
        dotted.setDashPattern({1, 2});
        legendEntry(QStringLiteral("host"), dotted);
        legendEntry(QStringLiteral("device"), QPen(palette.mutedText, 2));
        lx -= 10;
    }
    if (hasMeasured()) {
        QPen dashed(palette.mutedText, 2, Qt::CustomDashLine);
        dashed.setDashPattern({3, 3});
        legendEntry(QStringLiteral("measured"), dashed);
        legendEntry(QStringLiteral("predicted"), QPen(palette.mutedText, 2));
        lx -= 10;
    }
    for (std::size_t i = series_.size(); i-- > 0;)
        legendEntry(series_[i].name, QPen(colourOf(i, palette), 3));

    // Peaks: a marker on each curve; a label placed away from its marker is
    // joined to it by a thin leader line. The labels themselves are painted
    // over the playhead each frame (paintPeakLabels): a player paused at a
    // peak keeps them readable.
    cache_.labels = peakLabels(m, metrics);
    for (std::size_t i = 0; i < peakCount(); ++i) {
        const QPointF marker = peakPoint(m, i);
        const bool host = i >= series_.size();
        const QColor colour = colourOf(host ? hostSeriesIndex_[i - series_.size()] : i, palette);
        if (!cache_.labels[i].besideMarker) {
            painter.setPen(QPen(colour, 1, Qt::DotLine));
            painter.drawLine(marker, leaderEnd(marker, cache_.labels[i].box));
        }
        // A host peak is a ring: the same colour, not the device's filled marker.
        painter.setPen(QPen(host ? colour : palette.peak, host ? 2.0 : 1.5));
        painter.setBrush(host ? palette.background : colour);
        painter.drawEllipse(marker, kMarkerRadius, kMarkerRadius);
    }
}

void MemoryChartPainter::paintPeakLabels(QPainter &painter, const Palette &palette) const {
    for (std::size_t i = 0; i < peakCount() && i < cache_.labels.size(); ++i) {
        // Clear of the curves and the markers (placePeakLabels); the backing hides the grid and the playhead.
        QColor backing = palette.background;
        backing.setAlpha(230);
        painter.setPen(Qt::NoPen);
        painter.setBrush(backing);
        painter.drawRoundedRect(cache_.labels[i].box, 3, 3);
        const std::size_t series = i < series_.size() ? i : hostSeriesIndex_[i - series_.size()];
        painter.setPen(colourOf(series, palette).darker(palette.isDark() ? 80 : 120));
        painter.drawText(cache_.labels[i].box, Qt::AlignCenter, peakLabel(i));
    }
}

void MemoryChartPainter::paint(QPainter &painter, const QRectF &rect, double playheadTime,
                               const Palette &palette) const {
    painter.save();
    const MemoryChartMapping m = mapping(rect, QFontMetricsF(painter.font()));
    const qreal dpr = painter.device() ? painter.device()->devicePixelRatioF() : 1.0;
    // Everything but the playhead changes only with the data, the size or the
    // palette: painted once into an image, blitted every frame.
    if (cache_.image.isNull() || cache_.rect != rect || !(cache_.palette == palette) || cache_.dpr != dpr ||
        cache_.font != painter.font()) {
        cache_.rect = rect;
        cache_.palette = palette;
        cache_.dpr = dpr;
        cache_.font = painter.font();
        cache_.image =
            QImage((rect.size() * dpr).toSize().expandedTo(QSize(1, 1)), QImage::Format_ARGB32_Premultiplied);
        cache_.image.setDevicePixelRatio(dpr);
        cache_.image.fill(palette.background);
        QPainter p(&cache_.image);
        p.setFont(painter.font());
        p.translate(-rect.topLeft());
        cache_.labels.clear();
        if (!series_.empty() && m.plot.width() >= 10 && m.plot.height() >= 10)
            paintStatic(p, rect, m, palette);
    }
    painter.drawImage(rect.topLeft(), cache_.image);
    if (series_.empty() || m.plot.width() < 10 || m.plot.height() < 10) {
        painter.restore();
        return;
    }
    painter.setRenderHint(QPainter::Antialiasing, true);
    // Playhead.
    const double x = m.timeToX(std::clamp(playheadTime, 0.0, m.timeEnd));
    painter.setPen(QPen(palette.playhead, 1.5));
    painter.drawLine(QPointF(x, m.plot.top()), QPointF(x, m.plot.bottom()));
    for (std::size_t i = 0; i < series_.size(); ++i) {
        const Timeline &tl = *series_[i].timeline;
        const std::int64_t step = stepAtTime(tl, playheadTime, axis_);
        if (step < 0)
            continue;
        painter.setPen(QPen(palette.background, 1.5));
        painter.setBrush(colourOf(i, palette));
        painter.drawEllipse(QPointF(x, m.bytesToY(static_cast<double>(tl.bytesAt(step)))), 4.5, 4.5);
    }
    for (const std::size_t i : hostSeriesIndex_) {
        const Timeline &tl = *series_[i].timeline;
        const std::int64_t step = stepAtTime(tl, playheadTime, axis_);
        if (step < 0)
            continue;
        painter.setPen(QPen(colourOf(i, palette), 2));
        painter.setBrush(palette.background);
        painter.drawEllipse(QPointF(x, m.bytesToY(static_cast<double>(tl.hostBytesAt(step)))), 3.5, 3.5);
    }
    paintPeakLabels(painter, palette);
    painter.restore();
}

} // namespace remat::render
