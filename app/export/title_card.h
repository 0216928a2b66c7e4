#pragma once
// The first frame of an exported GIF: a title, optionally a description of
// one or two sentences (a lesson chapter's caption), one row per pane (or any
// line with a colour swatch) and the legend of node states. Its texts and
// their places are given apart from painting, so a test can draw them alone
// and find them in a decoded GIF.
#include "app/render/palette.h"

#include <QColor>
#include <QFont>
#include <QRectF>
#include <QSize>
#include <QString>

#include <vector>

class QImage;

namespace remat::exporting {

// Text grows with the picture (13 px at 960, 26 px at 1920): a GIF on a
// slide is shown at its width, so small text stays small there.
QFont exportFont(int width, double scale = 1.0);

struct TitleCard {
    struct Row {
        QColor swatch;
        QString text;
    };
    struct Text {
        QRectF rect;
        QFont font;
        int flags = 0;
        QString text;
    };

    QString title;
    QString description; // "" for none: the older layout, title then rows
    std::vector<Row> rows;
    bool legend = true;
    bool offloadLegend = false; // the legend's host-lane items (on host, in flight, stall)

    // Every text drawn on a card of `size`: the title, the description, the rows.
    std::vector<Text> texts(QSize size) const;
    // Paints the card into `image` (made `size`, RGB32, when it differs).
    void paint(QImage &image, QSize size, const render::Palette &palette) const;
};

} // namespace remat::exporting
