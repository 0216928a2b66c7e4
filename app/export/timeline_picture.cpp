#include "app/export/timeline_picture.h"

#include "app/export/title_card.h"
#include "app/render/runtime_narration.h"
#include "app/render/stream_narration.h"
#include "core/errors.h"
#include "core/rates.h"
#include "core/units.h"

#include <QFont>
#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace remat::exporting {

namespace {

constexpr double kGap = 8;

} // namespace

TimelinePicture::TimelinePicture(std::vector<ExportPane> panes, Options options)
    : panes_(std::move(panes)), options_(std::move(options)) {
    if (panes_.empty())
        throw InvalidArgument("nothing to draw: no strategy panes");
    if (panes_.size() > 4)
        throw InvalidArgument("at most 4 panes side by side, got " + std::to_string(panes_.size()));
    if (options_.size.width() < 160 || options_.size.height() < 90)
        throw InvalidArgument("picture size " + std::to_string(options_.size.width()) + "x" +
                              std::to_string(options_.size.height()) + " is too small; use at least 160x90");
    for (const ExportPane &pane : panes_) {
        painters_.push_back(std::make_unique<render::SchedulePainter>(pane.timeline));
        lanes_.push_back(pane.timeline->timed() ? std::make_unique<render::HostLanePainter>(pane.timeline) : nullptr);
        states_.push_back(pane.timeline->stateAt(-1));
    }
    double laneEnd = 0; // the slowest pane's end: the lanes' playheads line up
    for (int i = 0; i < shownPanes(); ++i) {
        const Timeline &timeline = *panes_[static_cast<std::size_t>(i)].timeline;
        offload_ = offload_ || timeline.timed();
        laneEnd = std::max(laneEnd, timeline.makespan());
    }
    laneEnd_ = laneEnd > 0 ? laneEnd : 1;
    std::vector<render::MemoryChartPainter::Series> series;
    QStringList names;
    for (int i = 0; i < shownPanes(); ++i) {
        const ExportPane &pane = panes_[static_cast<std::size_t>(i)];
        const std::string_view name = pane.strategy ? pane.strategy->name() : std::string_view("pane");
        names << QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size()));
    }
    for (int i = 0; i < shownPanes(); ++i) {
        const ExportPane &pane = panes_[static_cast<std::size_t>(i)];
        // Two panes of one strategy (dtr with two heuristics): the pane's number tells them apart, as on screen.
        const QString name = names.count(names[i]) > 1 ? names[i] + QStringLiteral(" (%1)").arg(i + 1) : names[i];
        series.push_back({pane.timeline, name, pane.summary.peakBytes, pane.summary.peakStep, paneColourIndex(i)});
    }
    chart_.setSeries(std::move(series), options_.axis);
    chart_.setStackByKind(options_.stackByKind);
    const QFontMetricsF text(exportFont(options_.size.width()));
    const QFontMetricsF caption(exportFont(options_.size.width(), 1.25));
    captionHeight_ = options_.caption.isEmpty() ? 0 : std::ceil(caption.height() * 1.6);
    paneTitleHeight_ = std::ceil(text.height() * 1.5);
    // Three or four panes are narrow: the status takes two lines (where, what is held).
    statusLines_ = shownPanes() >= 3 ? 2 : 1;
    statusHeight_ = std::ceil(text.height() * (statusLines_ == 2 ? 2.4 : 1.4));
    // Every frame carries a compact legend of the node states at the bottom.
    for (const ExportPane &pane : panes_)
        savedInternals_ = savedInternals_ || pane.timeline->model().hasSavedBytes();
    legendHeight_ = std::ceil(render::SchedulePainter::legendHeight(exportFont(options_.size.width(), 0.9),
                                                                    options_.size.width() - 2 * kGap, true,
                                                                    savedInternals_, offload_)) +
                    kGap / 2;
}

double TimelinePicture::endTime() const {
    double end = 0;
    for (int i = 0; i < shownPanes(); ++i)
        end = std::max(end, render::totalTime(*panes_[static_cast<std::size_t>(i)].timeline, options_.axis));
    return end;
}

std::int64_t TimelinePicture::stepAt(int index, double time) const {
    return render::stepAtTime(*panes_[static_cast<std::size_t>(index)].timeline, time, options_.axis);
}

QRectF TimelinePicture::paneRect(int index) const {
    const QSizeF size = options_.size;
    const double top = captionHeight_;
    const double bottom =
        options_.paneOnly ? size.height() - legendHeight_ : top + (size.height() - top - legendHeight_) * 0.58;
    const double width = (size.width() - kGap * (shownPanes() + 1)) / shownPanes();
    return {kGap + index * (width + kGap), top, width, bottom - top};
}

QRectF TimelinePicture::paneBody(int index) const {
    return paneRect(index).adjusted(0, paneTitleHeight_, 0, -statusHeight_);
}

QRectF TimelinePicture::scheduleRect(int index) const {
    if (!hasHostLane(index))
        return paneBody(index);
    return render::HostLaneLayout::pictureArea(paneBody(index),
                                               QFontMetricsF(exportFont(options_.size.width(), 0.85)).height());
}

render::HostLaneLayout TimelinePicture::hostLane(int index) const {
    const QFontMetricsF metrics(exportFont(options_.size.width(), 0.85));
    return render::HostLaneLayout::make(paneBody(index),
                                        panes_[static_cast<std::size_t>(index)].timeline->model().layers(), laneEnd_,
                                        metrics.height(), render::HostLanePainter::gutterWidth(metrics));
}

double TimelinePicture::streamTime(int index, double time) const {
    return render::streamTime(*panes_[static_cast<std::size_t>(index)].timeline, time, options_.axis);
}

render::ScheduleLayout TimelinePicture::layout(int index) const {
    const int count = panes_[static_cast<std::size_t>(index)].timeline->model().forwardCount();
    return render::ScheduleLayout::make(count, scheduleRect(index));
}

QRectF TimelinePicture::chartRect() const {
    if (options_.paneOnly)
        return {};
    const QRectF last = paneRect(0);
    return {kGap, last.bottom() + kGap, options_.size.width() - 2 * kGap,
            options_.size.height() - legendHeight_ - last.bottom() - 2 * kGap};
}

QRectF TimelinePicture::legendRect() const {
    return {kGap, options_.size.height() - legendHeight_, options_.size.width() - 2 * kGap, legendHeight_};
}

const StepState &TimelinePicture::stateAt(int index, std::int64_t step) {
    StepState &state = states_[static_cast<std::size_t>(index)];
    const Timeline &timeline = *panes_[static_cast<std::size_t>(index)].timeline;
    // Exports walk forward: a few advances beat a rebuild from a snapshot.
    if (step >= state.step && step - state.step <= timeline.snapshotInterval()) {
        while (state.step < step)
            timeline.advance(state);
    } else {
        state = timeline.stateAt(step);
    }
    return state;
}

void TimelinePicture::paintPane(QPainter &painter, int index, double time) {
    const ExportPane &pane = panes_[static_cast<std::size_t>(index)];
    const Timeline &timeline = *pane.timeline;
    const render::Palette &palette = options_.palette;
    const QRectF rect = paneRect(index);
    const QFontMetricsF metrics(painter.font());

    // Title: the pane's colour in the chart, then its strategy.
    const double swatch = std::round(metrics.height() * 0.7);
    painter.fillRect(QRectF(rect.left() + 2, rect.top() + (paneTitleHeight_ - swatch) / 2, swatch, swatch),
                     palette.paneColour(paneColourIndex(index)));
    painter.setPen(palette.text);
    painter.drawText(QRectF(rect.left() + swatch + 8, rect.top(), rect.width() - swatch - 8, paneTitleHeight_),
                     Qt::AlignLeft | Qt::AlignVCenter,
                     metrics.elidedText(pane.title, Qt::ElideRight, rect.width() - swatch - 8));

    const std::int64_t step = stepAt(index, time);
    const StepState &state = stateAt(index, step);
    painters_[static_cast<std::size_t>(index)]->paint(painter, layout(index), state, palette);
    if (const auto &lane = lanes_[static_cast<std::size_t>(index)]) {
        painter.save();
        painter.setFont(exportFont(options_.size.width(), 0.85));
        lane->paint(painter, hostLane(index), state, streamTime(index, time), palette);
        painter.restore();
    }

    // Status: where the pane is and what it holds.
    QString status;
    if (step < 0) {
        status = QStringLiteral("before the first op \u00B7 %1 held")
                     .arg(QString::fromStdString(formatSize(timeline.model().bytes(timeline.model().inputNode()),
                                                            timeline.model().sizesInNodes())));
    } else {
        const Model &model = timeline.model();
        QString held = model.sizesInNodes() ? QString::fromStdString(formatSize(timeline.bytesAt(step), true))
                                            : QStringLiteral("%1 nodes, %2")
                                                  .arg(timeline.residentCountAt(step))
                                                  .arg(QString::fromStdString(formatBytes(timeline.bytesAt(step))));
        if (timeline.hostBytesAt(step) > 0)
            held += QStringLiteral(" · host %1")
                        .arg(QString::fromStdString(formatSize(timeline.hostBytesAt(step), model.sizesInNodes())));
        // In a stall the compute stream stands still: say which op waits, not the one before it.
        const std::optional<Stall> stall = render::stallAt(timeline, streamTime(index, time));
        const QString doing = stall ? QStringLiteral("stalled before %1")
                                          .arg(QString::fromStdString(describe(model, timeline.op(stall->step))))
                                    : QString::fromStdString(describe(model, timeline.op(step)));
        // What the runtime decided for this op (dtr) in place of the sizes: that is the news.
        const std::string decided = render::runtimeStatus(timeline, step);
        status = QStringLiteral("op %1/%2 \u00B7 %3").arg(step + 1).arg(timeline.steps()).arg(doing) +
                 (statusLines_ == 2 ? QStringLiteral("\n") : QStringLiteral(" \u00B7 ")) +
                 (decided.empty() ? held : QString::fromStdString(decided));
    }
    painter.setPen(palette.mutedText);
    QStringList lines = status.split('\n');
    for (QString &line : lines)
        line = metrics.elidedText(line, Qt::ElideRight, rect.width());
    painter.drawText(QRectF(rect.left(), rect.bottom() - statusHeight_, rect.width(), statusHeight_),
                     Qt::AlignLeft | Qt::AlignVCenter, lines.join('\n'));
}

void TimelinePicture::paint(QImage &image, double time) {
    if (image.size() != options_.size || image.format() != QImage::Format_RGB32)
        image = QImage(options_.size, QImage::Format_RGB32);
    image.fill(options_.palette.background);
    QPainter painter(&image);
    painter.setFont(exportFont(options_.size.width()));
    if (!options_.caption.isEmpty()) {
        painter.save();
        painter.setFont(exportFont(options_.size.width(), 1.25));
        painter.setPen(options_.palette.text);
        const QRectF band(kGap, 0, options_.size.width() - 2 * kGap, captionHeight_);
        painter.drawText(band, Qt::AlignLeft | Qt::AlignVCenter,
                         QFontMetricsF(painter.font()).elidedText(options_.caption, Qt::ElideRight, band.width()));
        painter.restore();
    }
    for (int i = 0; i < shownPanes(); ++i)
        paintPane(painter, i, time);
    if (!options_.paneOnly)
        chart_.paint(painter, chartRect(), time, options_.palette);
    painter.setFont(exportFont(options_.size.width(), 0.9));
    render::SchedulePainter::paintLegend(painter, legendRect(), options_.palette, true, savedInternals_, offload_);
}

void TimelinePicture::paintTitle(QImage &image) {
    TitleCard card;
    card.title = options_.caption.isEmpty() ? QStringLiteral("Gradient checkpointing") : options_.caption;
    card.description = options_.description;
    card.offloadLegend = offload_;
    for (int i = 0; i < shownPanes(); ++i) {
        const ExportPane &pane = panes_[static_cast<std::size_t>(i)];
        const Timeline &timeline = *pane.timeline;
        const bool nodes = timeline.model().sizesInNodes();
        QString figures = QStringLiteral("peak %1, %2 forward evaluations")
                              .arg(QString::fromStdString(formatSize(pane.summary.peakBytes, nodes)))
                              .arg(pane.summary.forwardEvaluations);
        if (timeline.timed()) // the two streams: what the host holds and what the step costs in time
            figures = QStringLiteral("device %1, host %2, step %3 (%4 stalled)")
                          .arg(QString::fromStdString(formatSize(pane.summary.peakBytes, nodes)),
                               QString::fromStdString(formatSize(pane.summary.peakHostBytes, nodes)),
                               QString::fromStdString(formatSeconds(pane.summary.makespanSeconds)),
                               QString::fromStdString(formatSeconds(pane.summary.stallSeconds)));
        card.rows.push_back(
            {options_.palette.paneColour(paneColourIndex(i)), QStringLiteral("%1 \u2014 %2").arg(pane.title, figures)});
    }
    // Timed panes without a description: the machine they are timed on.
    if (card.description.isEmpty() && offload_)
        for (int i = 0; i < shownPanes(); ++i)
            if (const Timeline &t = *panes_[static_cast<std::size_t>(i)].timeline; t.timed()) {
                card.description = QStringLiteral("Timed on a compute and a copy stream: %1")
                                       .arg(QString::fromStdString(describeMachine(t.machine(), t.model())));
                break;
            }
    card.paint(image, options_.size, options_.palette);
}

} // namespace remat::exporting
