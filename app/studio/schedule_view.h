#pragma once
// One pane's schedule picture: paints with render::SchedulePainter at the step
// the player says, explains a node on hover, and reports clicks on nodes.
// A timed timeline (a link is set) gets its host lane under the picture
// (render::HostLanePainter): what is on the host, the copies as arrows, the
// two streams with their stalls.
#include "app/render/host_lane_painter.h"
#include "app/render/schedule_painter.h"

#include <QWidget>

#include <memory>
#include <optional>

namespace remat::studio {

class ScheduleView : public QWidget {
    Q_OBJECT
public:
    explicit ScheduleView(QWidget *parent = nullptr);

    void setTimeline(std::shared_ptr<const Timeline> timeline);
    // `time`: the timeline's own clock (render::streamTime), where the host
    // lane's copies and stalls are; ignored by untimed timelines.
    void setStep(std::int64_t step, double time = 0);
    // The host lanes' shared time axis (the slowest pane's makespan), so that playheads line up.
    void setLaneEnd(double seconds);
    void setPalette(const render::Palette &palette);
    void setPlaceholder(const QString &text); // shown instead of a picture (errors, "simulating")

    std::int64_t step() const { return state_.step; }
    const StepState &state() const { return state_; }
    bool hasTimeline() const { return painter_ != nullptr; }
    render::ScheduleLayout layout() const;
    bool hasHostLane() const { return lane_ != nullptr; }
    render::HostLaneLayout hostLane() const; // valid when hasHostLane()
    double time() const { return time_; }
    // Tooltip text for a node: name, bytes, state, compute count, why resident.
    QString describeNode(NodeId node) const;

    QSize sizeHint() const override { return {420, 220}; }
    QSize minimumSizeHint() const override { return {160, 90}; }

signals:
    void nodeClicked(NodeId node);

protected:
    void paintEvent(QPaintEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void leaveEvent(QEvent *event) override;
    bool event(QEvent *event) override;

private:
    std::optional<NodeId> nodeAt(QPointF point) const;

    QRectF pictureRect() const; // the picture's area: above the host lane when there is one

    std::unique_ptr<render::SchedulePainter> painter_;
    std::unique_ptr<render::HostLanePainter> lane_; // timed timelines only
    double time_ = 0;
    double laneEnd_ = 0;
    render::Palette palette_ = render::Palette::light();
    StepState state_;
    std::optional<NodeId> hover_;
    QString placeholder_;
};

} // namespace remat::studio
