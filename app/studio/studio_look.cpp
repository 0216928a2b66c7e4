#include "app/studio/studio_look.h"

#include "app/render/palette.h"

#include <QPainter>
#include <QPixmap>

namespace remat::studio {

QPalette darkWidgetPalette() {
    QPalette p;
    const QColor window(0x2a, 0x2b, 0x33), base(0x1e, 0x1f, 0x26), text(0xe8, 0xe8, 0xee);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, window);
    p.setColor(QPalette::ToolTipBase, window);
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, window);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::Highlight, QColor(0x7b, 0x5c, 0xd6));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::PlaceholderText, QColor(0x90, 0x90, 0xa0));
    p.setColor(QPalette::Disabled, QPalette::Text, QColor(0x80, 0x80, 0x90));
    p.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(0x80, 0x80, 0x90));
    p.setColor(QPalette::Disabled, QPalette::WindowText, QColor(0x80, 0x80, 0x90));
    return p;
}

QIcon playerIcon(QStyle::StandardPixmap kind, QColor colour) {
    const qreal dpr = 2;
    QPixmap pixmap(QSize(20, 20) * dpr);
    pixmap.setDevicePixelRatio(dpr);
    pixmap.fill(Qt::transparent);
    QPainter p(&pixmap);
    p.setRenderHint(QPainter::Antialiasing, true);
    p.setPen(Qt::NoPen);
    p.setBrush(colour);
    auto triangle = [&](double x, double w, bool right) {
        const QPointF pts[3] = {right ? QPointF(x, 4) : QPointF(x + w, 4), right ? QPointF(x, 16) : QPointF(x + w, 16),
                                right ? QPointF(x + w, 10) : QPointF(x, 10)};
        p.drawPolygon(pts, 3);
    };
    switch (kind) {
    case QStyle::SP_MediaPlay:
        triangle(6, 10, true);
        break;
    case QStyle::SP_MediaPause:
        p.drawRect(QRectF(5, 4, 3.5, 12));
        p.drawRect(QRectF(11.5, 4, 3.5, 12));
        break;
    case QStyle::SP_MediaSeekForward:
        p.drawRect(QRectF(13, 4, 2.5, 12));
        triangle(5, 8, true);
        break;
    case QStyle::SP_MediaSeekBackward:
        p.drawRect(QRectF(4.5, 4, 2.5, 12));
        triangle(7, 8, false);
        break;
    case QStyle::SP_MediaSkipForward:
        triangle(3, 7, true);
        triangle(10, 7, true);
        p.drawRect(QRectF(16, 4, 2, 12));
        break;
    case QStyle::SP_MediaSkipBackward:
        p.drawRect(QRectF(2, 4, 2, 12));
        triangle(3, 7, false);
        triangle(10, 7, false);
        break;
    default:
        break;
    }
    return QIcon(pixmap);
}

QIcon appIcon() {
    QPixmap pixmap(64, 64);
    pixmap.fill(Qt::transparent);
    QPainter p(&pixmap);
    p.setRenderHint(QPainter::Antialiasing, true);
    const render::Palette palette = render::Palette::light();
    p.setPen(QPen(palette.arrow, 4));
    p.drawLine(QPointF(12, 32), QPointF(52, 32));
    const QColor fills[] = {palette.resident, palette.resident, palette.recomputed};
    for (int i = 0; i < 3; ++i) {
        p.setPen(QPen(palette.nodeOutline, 2));
        p.setBrush(fills[i]);
        p.drawEllipse(QPointF(12 + 20 * i, 32), 8, 8);
    }
    p.setPen(QPen(palette.checkpointRing, 3));
    p.setBrush(Qt::NoBrush);
    p.drawEllipse(QPointF(12, 32), 11.5, 11.5);
    return QIcon(pixmap);
}

} // namespace remat::studio
