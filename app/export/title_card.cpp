#include "app/export/title_card.h"

#include "app/render/schedule_painter.h"

#include <QFontMetricsF>
#include <QImage>
#include <QPainter>

#include <algorithm>

namespace remat::exporting {

QFont exportFont(int width, double scale) {
    QFont font;
    font.setPixelSize(static_cast<int>(std::max(10.0, width / 72.0) * scale));
    return font;
}

namespace {

constexpr double kRowScale = 1.2;

// Where the rows start, and their height.
struct RowsAt {
    double top;
    double line;
};

RowsAt rowsAt(const TitleCard &card, QSize size) {
    const double h = size.height();
    const double line = QFontMetricsF(exportFont(size.width(), kRowScale)).height() * 1.5;
    return {card.description.isEmpty() ? h * 0.45 : h * 0.56, line};
}

// "name (description) — figures" in `width`: a long description gives way
// (cut with "…"), the figures after the dash stay whole.
QString fitRow(const QString &text, const QFont &font, double width) {
    const QFontMetricsF metrics(font);
    if (metrics.horizontalAdvance(text) <= width)
        return text;
    const qsizetype dash = text.indexOf(QStringLiteral(" \u2014 "));
    if (dash < 0)
        return metrics.elidedText(text, Qt::ElideRight, width);
    const QString figures = text.mid(dash);
    return metrics.elidedText(text.left(dash), Qt::ElideRight, width - metrics.horizontalAdvance(figures)) + figures;
}

} // namespace

std::vector<TitleCard::Text> TitleCard::texts(QSize size) const {
    const double w = size.width(), h = size.height();
    QFont big = exportFont(size.width(), 2.0);
    big.setBold(true);
    std::vector<Text> out;
    const int wrap = Qt::TextWordWrap;
    if (description.isEmpty()) {
        out.push_back({QRectF(w * 0.06, h * 0.12, w * 0.88, h * 0.3), big, Qt::AlignCenter | wrap, title});
    } else {
        out.push_back({QRectF(w * 0.06, h * 0.06, w * 0.88, h * 0.24), big, Qt::AlignCenter | wrap, title});
        out.push_back({QRectF(w * 0.08, h * 0.31, w * 0.84, h * 0.23), exportFont(size.width(), 1.3),
                       Qt::AlignHCenter | Qt::AlignTop | wrap, description});
    }
    const RowsAt at = rowsAt(*this, size);
    const QFont rowFont = exportFont(size.width(), kRowScale);
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const QRectF rect(w * 0.12 + at.line * 0.7, at.top + at.line * static_cast<double>(i), w * 0.8, at.line);
        out.push_back({rect, rowFont, Qt::AlignLeft | Qt::AlignVCenter, fitRow(rows[i].text, rowFont, rect.width())});
    }
    return out;
}

void TitleCard::paint(QImage &image, QSize size, const render::Palette &palette) const {
    if (image.size() != size || image.format() != QImage::Format_RGB32)
        image = QImage(size, QImage::Format_RGB32);
    image.fill(palette.background);
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing, true);
    painter.setPen(palette.text);
    for (const Text &t : texts(size)) {
        painter.setFont(t.font);
        painter.drawText(t.rect, t.flags, t.text);
    }
    const RowsAt at = rowsAt(*this, size);
    const double w = size.width();
    for (std::size_t i = 0; i < rows.size(); ++i)
        painter.fillRect(
            QRectF(w * 0.12, at.top + at.line * (static_cast<double>(i) + 0.3), at.line * 0.4, at.line * 0.4),
            rows[i].swatch);
    if (legend) {
        const double y = at.top + at.line * static_cast<double>(rows.size());
        painter.setFont(exportFont(size.width()));
        render::SchedulePainter::paintLegend(painter, QRectF(w * 0.12, y + at.line * 0.5, w * 0.76, size.height() - y),
                                             palette, false, false, offloadLegend);
    }
}

} // namespace remat::exporting
