#include "app/studio/screen_blank.h"

#include <QEvent>
#include <QPainter>

namespace remat::studio {

ScreenBlank::ScreenBlank(QWidget *window) : QWidget(window) {
    setObjectName(QStringLiteral("screenBlank"));
    setAttribute(Qt::WA_OpaquePaintEvent);
    setFocusPolicy(Qt::NoFocus);
    hide();
    window->installEventFilter(this);
}

void ScreenBlank::setBlank(bool on) {
    if (on) {
        setGeometry(parentWidget()->rect());
        raise();
    }
    setVisible(on);
}

bool ScreenBlank::eventFilter(QObject *watched, QEvent *event) {
    if (watched == parentWidget() && event->type() == QEvent::Resize)
        setGeometry(parentWidget()->rect());
    return false;
}

void ScreenBlank::paintEvent(QPaintEvent *) {
    QPainter(this).fillRect(rect(), Qt::black);
}

} // namespace remat::studio
