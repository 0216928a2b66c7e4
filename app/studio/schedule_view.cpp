#include "app/studio/schedule_view.h"

#include "app/render/narration.h"
#include "core/units.h"

#include <QFontMetricsF>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

namespace remat::studio {

ScheduleView::ScheduleView(QWidget *parent) : QWidget(parent) {
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
}

void ScheduleView::setTimeline(std::shared_ptr<const Timeline> timeline) {
    lane_ = timeline && timeline->timed() ? std::make_unique<render::HostLanePainter>(timeline) : nullptr;
    painter_ = timeline ? std::make_unique<render::SchedulePainter>(std::move(timeline)) : nullptr;
    time_ = 0;
    placeholder_.clear();
    hover_.reset();
    if (painter_)
        state_ = painter_->timeline().stateAt(-1);
    update();
}

void ScheduleView::setPlaceholder(const QString &text) {
    placeholder_ = text;
    update();
}

void ScheduleView::setLaneEnd(double seconds) {
    laneEnd_ = seconds;
    if (lane_)
        update();
}

void ScheduleView::setStep(std::int64_t step, double time) {
    if (lane_ && time != time_) {
        time_ = time; // the copies move and stalls pass while the step stays
        update();
    }
    if (!painter_ || step == state_.step)
        return;
    const Timeline &tl = painter_->timeline();
    // Playback walks one op at a time: O(1) instead of a replay from a snapshot.
    if (step == state_.step + 1)
        tl.advance(state_);
    else
        state_ = tl.stateAt(step);
    update();
}

void ScheduleView::setPalette(const render::Palette &palette) {
    palette_ = palette;
    update();
}

QRectF ScheduleView::pictureRect() const {
    const QRectF area = QRectF(rect()).adjusted(6, 4, -6, -4);
    return lane_ ? render::HostLaneLayout::pictureArea(area, QFontMetricsF(font()).height()) : area;
}

render::ScheduleLayout ScheduleView::layout() const {
    const int count = painter_ ? painter_->timeline().model().forwardCount() : 1;
    return render::ScheduleLayout::make(count, pictureRect());
}

render::HostLaneLayout ScheduleView::hostLane() const {
    const QFontMetricsF metrics(font());
    const double end = laneEnd_ > 0 ? laneEnd_ : painter_->timeline().makespan();
    return render::HostLaneLayout::make(QRectF(rect()).adjusted(6, 4, -6, -4), painter_->timeline().model().layers(),
                                        end, metrics.height(), render::HostLanePainter::gutterWidth(metrics));
}

std::optional<NodeId> ScheduleView::nodeAt(QPointF point) const {
    if (!painter_)
        return std::nullopt;
    const long long hit = layout().hitTest(point);
    if (hit < 0)
        return std::nullopt;
    return static_cast<NodeId>(hit);
}

QString ScheduleView::describeNode(NodeId node) const {
    const Timeline &tl = painter_->timeline();
    const Model &model = tl.model();
    const render::NodeAppearance a = painter_->appearance(state_, node);
    QString text = QStringLiteral("<b>%1</b>").arg(QString::fromStdString(model.name(node)));
    if (!model.isBackward(node) && !model.label(model.indexOf(node)).empty())
        text += QStringLiteral(" (%1)").arg(QString::fromStdString(model.label(model.indexOf(node))).toHtmlEscaped());
    text += QStringLiteral(" &middot; %1<br>")
                .arg(QString::fromStdString(formatSize(model.bytes(node), model.sizesInNodes())));
    text += QStringLiteral("State: %1").arg(QString::fromUtf8(render::fillName(a.fill)));
    if (a.checkpoint)
        text +=
            node == model.inputNode() ? QStringLiteral(" (the input, always kept)") : QStringLiteral(" (checkpoint)");
    if (!model.isBackward(node) && model.savedBytes(model.indexOf(node)) > 0)
        text += QStringLiteral("<br>Saved internals (for its backward): %1, %2")
                    .arg(QString::fromStdString(formatBytes(model.savedBytes(model.indexOf(node)))),
                         state_.holdsSaved(model.indexOf(node)) ? tr("held now") : tr("not held now"));
    text += QStringLiteral("<br>Computed %1 time%2 so far").arg(a.computeCount).arg(a.computeCount == 1 ? "" : "s");
    const std::string why = render::whyResident(tl, painter_->checkpoints(), state_, node);
    if (!why.empty())
        text += QStringLiteral("<br>In memory because: %1").arg(QString::fromStdString(why).toHtmlEscaped());
    if (!model.isBackward(node) && node != model.inputNode() && node != model.outputNode())
        text += QStringLiteral("<br><i>Click to toggle it as a checkpoint.</i>");
    return text;
}

void ScheduleView::paintEvent(QPaintEvent *) {
    QPainter painter(this);
    painter.fillRect(rect(), palette_.background);
    if (!painter_ || !placeholder_.isEmpty()) {
        painter.setPen(palette_.mutedText);
        painter.drawText(rect().adjusted(8, 8, -8, -8), Qt::AlignCenter | Qt::TextWordWrap,
                         placeholder_.isEmpty() ? tr("No schedule") : placeholder_);
        return;
    }
    painter_->paint(painter, layout(), state_, palette_, hover_);
    if (lane_)
        lane_->paint(painter, hostLane(), state_, time_, palette_);
}

void ScheduleView::mouseMoveEvent(QMouseEvent *event) {
    const std::optional<NodeId> node = nodeAt(event->position());
    if (node != hover_) {
        hover_ = node;
        setCursor(node && !painter_->timeline().model().isBackward(*node) ? Qt::PointingHandCursor : Qt::ArrowCursor);
        update();
    }
}

void ScheduleView::leaveEvent(QEvent *) {
    if (hover_) {
        hover_.reset();
        update();
    }
}

void ScheduleView::mousePressEvent(QMouseEvent *event) {
    if (event->button() != Qt::LeftButton)
        return;
    if (const std::optional<NodeId> node = nodeAt(event->position()))
        emit nodeClicked(*node);
}

bool ScheduleView::event(QEvent *event) {
    if (event->type() == QEvent::ToolTip) {
        const auto *help = static_cast<QHelpEvent *>(event);
        if (const std::optional<NodeId> node = nodeAt(help->pos()))
            QToolTip::showText(help->globalPos(), describeNode(*node), this);
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(event);
}

} // namespace remat::studio
