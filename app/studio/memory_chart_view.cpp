#include "app/studio/memory_chart_view.h"

#include "core/units.h"

#include <QAction>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>

namespace remat::studio {

MemoryChartView::MemoryChartView(QWidget *parent) : QWidget(parent) {
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setToolTip(tr("Memory held during each op. Click to jump there. Right-click to stack it by kind."));
    stackByKind_ = new QAction(tr("Stack memory by &kind"), this);
    stackByKind_->setCheckable(true);
    stackByKind_->setToolTip(tr("Fill the first pane's curve with its layer outputs, saved internals, gradients "
                                "and workspace, as PyTorch's memory profiler categorises them"));
    connect(stackByKind_, &QAction::toggled, this, [this](bool on) {
        chart_.setStackByKind(on);
        update();
    });
    addAction(stackByKind_);
    setContextMenuPolicy(Qt::ActionsContextMenu);
}

void MemoryChartView::setSeries(std::vector<render::MemoryChartPainter::Series> series, render::TimeAxis axis) {
    chart_.setSeries(std::move(series), axis);
    // A timeline that left the chart never comes back (a re-planned pane gets
    // a new one): its measured trace goes too.
    std::erase_if(measured_, [this](const MeasuredTrace &m) {
        return std::none_of(chart_.series().begin(), chart_.series().end(),
                            [&m](const auto &s) { return s.timeline == m.first; });
    });
    attachMeasured();
    update();
}

void MemoryChartView::setMeasured(std::vector<MeasuredTrace> traces) {
    measured_ = std::move(traces);
    attachMeasured();
    update();
}

void MemoryChartView::setShowMeasured(bool show) {
    showMeasured_ = show;
    attachMeasured();
    update();
}

void MemoryChartView::attachMeasured() {
    std::vector<render::MemoryChartPainter::Measured> perSeries;
    if (showMeasured_)
        for (const auto &s : chart_.series()) {
            perSeries.emplace_back();
            for (const auto &[timeline, bytes] : measured_)
                if (timeline == s.timeline)
                    perSeries.back() = bytes;
        }
    chart_.setMeasured(std::move(perSeries));
}

void MemoryChartView::setPlayhead(double time) {
    playhead_ = time;
    update();
}

void MemoryChartView::setPalette(const render::Palette &palette) {
    palette_ = palette;
    update();
}

render::MemoryChartMapping MemoryChartView::mapping() const {
    return chart_.mapping(QRectF(rect()), QFontMetricsF(font()));
}

QString MemoryChartView::describeTime(double time) const {
    QStringList lines;
    if (!chart_.series().empty())
        lines << tr("<b>t = %1</b>")
                     .arg(QString::fromStdString(
                         render::timeText(time, chart_.axis(), *chart_.series().front().timeline, true)));
    for (std::size_t i = 0; i < chart_.series().size(); ++i) {
        const auto &s = chart_.series()[i];
        const Timeline &tl = *s.timeline;
        if (time >= render::totalTime(tl, chart_.axis())) {
            lines << tr("%1: finished").arg(s.name);
            continue;
        }
        // The op running at `time`: the first one that ends after it.
        std::int64_t step = render::stepAtTime(tl, time, chart_.axis()) + 1;
        while (step < tl.steps() && render::opEndTime(tl, step, chart_.axis()) <= time)
            ++step;
        step = std::min(step, tl.steps() - 1);
        const QString held =
            tl.model().sizesInNodes()
                ? QString::fromStdString(formatSize(tl.bytesAt(step), true))
                : tr("%1 (%2 bytes)").arg(QString::fromStdString(formatBytes(tl.bytesAt(step)))).arg(tl.bytesAt(step));
        const QString host =
            tl.hostBytesAt(step) > 0
                ? tr(", host %1")
                      .arg(QString::fromStdString(formatSize(tl.hostBytesAt(step), tl.model().sizesInNodes())))
                : QString();
        lines << tr("%1: %2%3 during op %4, %5")
                     .arg(s.name, held, host)
                     .arg(step + 1)
                     .arg(QString::fromStdString(describe(tl.model(), tl.op(step))));
        if (i < chart_.measured().size() && chart_.measured()[i]) {
            const double m = (*chart_.measured()[i])[static_cast<std::size_t>(step)];
            lines << tr("&nbsp;&nbsp;measured after it: %1 (in this pane's bytes)").arg(m, 0, 'g', 12);
        }
    }
    return lines.join(QStringLiteral("<br>"));
}

void MemoryChartView::paintEvent(QPaintEvent *) {
    QPainter painter(this);
    chart_.paint(painter, QRectF(rect()), playhead_, palette_);
}

void MemoryChartView::mousePressEvent(QMouseEvent *event) {
    if (event->button() == Qt::LeftButton && !chart_.series().empty())
        emit timeClicked(std::max(0.0, mapping().xToTime(event->position().x())));
}

void MemoryChartView::mouseMoveEvent(QMouseEvent *event) {
    // Dragging scrubs.
    if ((event->buttons() & Qt::LeftButton) && !chart_.series().empty())
        emit timeClicked(std::max(0.0, mapping().xToTime(event->position().x())));
}

bool MemoryChartView::event(QEvent *event) {
    if (event->type() == QEvent::ToolTip && !chart_.series().empty()) {
        const auto *help = static_cast<QHelpEvent *>(event);
        const render::MemoryChartMapping m = mapping();
        if (m.plot.contains(help->pos()))
            QToolTip::showText(help->globalPos(), describeTime(m.xToTime(help->pos().x())), this);
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(event);
}

} // namespace remat::studio
