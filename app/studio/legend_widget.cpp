#include "app/studio/legend_widget.h"

#include "app/render/schedule_painter.h"

#include <QPainter>

#include <cmath>

namespace remat::studio {

LegendWidget::LegendWidget(QWidget *parent) : QWidget(parent) {
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
}

void LegendWidget::setPalette(const render::Palette &palette) {
    palette_ = palette;
    update();
}

void LegendWidget::setShowsOffload(bool shows) {
    if (shows == showsOffload_)
        return;
    showsOffload_ = shows;
    updateGeometry();
    update();
}

void LegendWidget::setShowsSavedInternals(bool shows) {
    if (shows == showsSavedInternals_)
        return;
    showsSavedInternals_ = shows;
    updateGeometry();
    update();
}

bool LegendWidget::isCompactAt(int width) const {
    // The full texts when they fit on one line, else the short ones: on a
    // projector (larger text) the legend keeps to one line and leaves the room to the panes.
    const double oneLine = render::SchedulePainter::legendHeight(font(), 1e6, false, showsSavedInternals_, showsOffload_);
    return render::SchedulePainter::legendHeight(font(), width - 8, false, showsSavedInternals_, showsOffload_) > oneLine + 0.5;
}

int LegendWidget::heightForWidth(int width) const {
    return static_cast<int>(std::ceil(
        render::SchedulePainter::legendHeight(font(), width - 8, isCompactAt(width), showsSavedInternals_, showsOffload_)));
}

void LegendWidget::paintEvent(QPaintEvent *) {
    QPainter painter(this);
    render::SchedulePainter::paintLegend(painter, QRectF(rect()).adjusted(4, 0, -4, 0), palette_, isCompactAt(width()),
                                         showsSavedInternals_, showsOffload_);
}

} // namespace remat::studio
