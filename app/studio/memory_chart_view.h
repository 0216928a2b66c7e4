#pragma once
// Memory against time for every pane on shared axes, with the player's
// playhead. Hover shows the exact bytes and op of each pane; a click seeks.
#include "app/render/memory_chart_painter.h"

#include <QWidget>

class QAction;

#include <memory>
#include <utility>
#include <vector>

namespace remat::studio {

class MemoryChartView : public QWidget {
    Q_OBJECT
public:
    explicit MemoryChartView(QWidget *parent = nullptr);

    void setSeries(std::vector<render::MemoryChartPainter::Series> series, render::TimeAxis axis);
    // Measured bytes op by op for the timelines they were measured for; a
    // series whose timeline is among them gets the dashed overlay (while
    // showMeasured()). Kept across setSeries while the timeline is shown: a
    // pane that is re-planned has a new timeline and so loses its overlay.
    using MeasuredTrace = std::pair<std::shared_ptr<const Timeline>, render::MemoryChartPainter::Measured>;
    void setMeasured(std::vector<MeasuredTrace> traces);
    void setShowMeasured(bool show);
    bool showMeasured() const { return showMeasured_; }
    bool hasMeasured() const { return !measured_.empty(); }
    void setPlayhead(double time);
    void setPalette(const render::Palette &palette);
    // Checkable: stacks the first pane's memory by kind (also in the chart's context menu).
    QAction *stackByKindAction() const { return stackByKind_; }
    const render::MemoryChartPainter &chart() const { return chart_; }
    render::MemoryChartMapping mapping() const;
    // What the hover tooltip says at time `time`: each pane's op and exact bytes.
    QString describeTime(double time) const;

    QSize sizeHint() const override { return {800, 190}; }
    QSize minimumSizeHint() const override { return {200, 110}; }

signals:
    void timeClicked(double time);

protected:
    void paintEvent(QPaintEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    bool event(QEvent *event) override;

private:
    render::MemoryChartPainter chart_;
    render::Palette palette_ = render::Palette::light();
    double playhead_ = 0;
    std::vector<MeasuredTrace> measured_;
    bool showMeasured_ = true;
    QAction *stackByKind_;

    void attachMeasured();
};

} // namespace remat::studio
