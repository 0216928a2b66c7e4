#pragma once
// The studio's own pictures and colours: the dark widget palette (View >
// Dark), the application icon and the player's media icons, drawn so they
// read in light and dark palettes alike.
#include <QColor>
#include <QIcon>
#include <QPalette>
#include <QStyle>

namespace remat::studio {

QPalette darkWidgetPalette();
// Three nodes as in the pictures: a checkpoint, a resident node, a recomputed one.
QIcon appIcon();
// Play, pause, seek and skip in `colour` (the palette's button text).
QIcon playerIcon(QStyle::StandardPixmap kind, QColor colour);

} // namespace remat::studio
