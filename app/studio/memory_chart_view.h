#pragma once
// Memory against time for every pane on shared axes, with the player's
// playhead. Hover shows the exact bytes and op of each pane; a click seeks.
#include "app/render/memory_chart_painter.h"

#include <QWidget>

namespace remat::studio {

class MemoryChartView : public QWidget {
    Q_OBJECT
public:
    explicit MemoryChartView(QWidget *parent = nullptr);

    void setSeries(std::vector<render::MemoryChartPainter::Series> series, render::TimeAxis axis);
    void setPlayhead(double time);
    void setPalette(const render::Palette &palette);
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
};

} // namespace remat::studio
