#include "app/studio/legend_widget.h"

#include "app/render/schedule_painter.h"

#include <QImage>
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

void LegendWidget::setShowsSavedInternals(bool shows) {
    if (shows == showsSavedInternals_)
        return;
    showsSavedInternals_ = shows;
    updateGeometry();
    update();
}

int LegendWidget::heightForWidth(int width) const {
    // Measure by laying the legend out on a scratch image.
    QImage scratch(1, 1, QImage::Format_ARGB32_Premultiplied);
    QPainter painter(&scratch);
    painter.setFont(font());
    return static_cast<int>(std::ceil(
        render::SchedulePainter::paintLegend(painter, QRectF(4, 0, width - 8, 0), palette_, false, showsSavedInternals_)));
}

void LegendWidget::paintEvent(QPaintEvent *) {
    QPainter painter(this);
    render::SchedulePainter::paintLegend(painter, QRectF(rect()).adjusted(4, 0, -4, 0), palette_, false, showsSavedInternals_);
}

} // namespace remat::studio
