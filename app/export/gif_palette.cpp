#include "app/export/gif_palette.h"

#include <algorithm>
#include <initializer_list>

namespace remat::exporting {

namespace {

QRgb opaque(const QColor &color) {
    return color.rgb() | 0xff000000u;
}

QRgb blend(QRgb a, QRgb b, int num, int den) {
    auto mix = [&](int x, int y) { return (x * (den - num) + y * num + den / 2) / den; };
    return qRgb(mix(qRed(a), qRed(b)), mix(qGreen(a), qGreen(b)), mix(qBlue(a), qBlue(b)));
}

std::size_t slotOf(QRgb rgb) {
    // Fibonacci hashing of the 24 colour bits.
    return (static_cast<std::uint32_t>(rgb & 0xffffffu) * 2654435769u) >> (32 - 14);
}

} // namespace

GifPalette GifPalette::fromPalette(const render::Palette &p) {
    GifPalette out;
    const std::initializer_list<QColor> own = {
        p.background, p.text,      p.mutedText, p.grid,           p.arrow,     p.notComputed, p.nodeOutline, p.resident,
        p.recomputed, p.current,   p.freed,     p.checkpointRing, p.badge,     p.badgeText,   p.hover,       p.peak,
        p.playhead,   p.series[0], p.series[1], p.series[2],      p.series[3], p.onHost,      p.inFlight,    p.stall};
    std::vector<QRgb> base;
    for (const QColor &c : own)
        if (std::find(base.begin(), base.end(), opaque(c)) == base.end()) {
            base.push_back(opaque(c));
            out.add(opaque(c));
        }

    // Edges are drawn over the background almost everywhere: a fine ramp from
    // the background to every colour keeps text and circles smooth.
    const QRgb bg = opaque(p.background);
    for (int k = 1; k < 8; ++k)
        for (const QRgb c : base)
            out.add(blend(bg, c, k, 8));
    // Node outlines over node fills, badge text over the badge.
    for (const QColor &fill : {p.resident, p.recomputed, p.current, p.freed, p.notComputed, p.onHost})
        for (int k = 1; k < 4; ++k)
            out.add(blend(opaque(p.nodeOutline), opaque(fill), k, 4));
    for (int k = 1; k < 4; ++k)
        out.add(blend(opaque(p.badge), opaque(p.badgeText), k, 4));
    // Whatever room is left: the steps between every pair of base colours.
    for (std::size_t i = 0; i < base.size(); ++i)
        for (std::size_t j = i + 1; j < base.size(); ++j)
            out.add(blend(base[i], base[j], 1, 2));
    return out;
}

int GifPalette::add(QRgb rgb) {
    rgb |= 0xff000000u;
    if (const int i = exactIndex(rgb); i >= 0)
        return i;
    if (size() >= kMaxColors)
        return -1;
    colors_.push_back(rgb);
    return size() - 1;
}

std::vector<std::uint8_t> GifPalette::rgbBytes() const {
    std::vector<std::uint8_t> out;
    out.reserve(colors_.size() * 3);
    for (const QRgb c : colors_) {
        out.push_back(static_cast<std::uint8_t>(qRed(c)));
        out.push_back(static_cast<std::uint8_t>(qGreen(c)));
        out.push_back(static_cast<std::uint8_t>(qBlue(c)));
    }
    return out;
}

int GifPalette::exactIndex(QRgb rgb) const {
    rgb |= 0xff000000u;
    const auto it = std::find(colors_.begin(), colors_.end(), rgb);
    return it == colors_.end() ? -1 : static_cast<int>(it - colors_.begin());
}

std::uint8_t GifPalette::nearest(QRgb rgb) const {
    // Weighted RGB distance (green counts most, as for the eye); exact
    // colours have distance 0 and win.
    int best = 0;
    long bestDistance = -1;
    for (int i = 0; i < size(); ++i) {
        const QRgb c = colors_[static_cast<std::size_t>(i)];
        const long dr = qRed(c) - qRed(rgb), dg = qGreen(c) - qGreen(rgb), db = qBlue(c) - qBlue(rgb);
        const long d = 3 * dr * dr + 4 * dg * dg + 2 * db * db;
        if (bestDistance < 0 || d < bestDistance) {
            best = i;
            bestDistance = d;
            if (d == 0)
                break;
        }
    }
    return static_cast<std::uint8_t>(best);
}

std::uint8_t GifPalette::indexOf(QRgb rgb) const {
    rgb |= 0xff000000u;
    const std::size_t slot = slotOf(rgb);
    if (cacheKey_[slot] == rgb)
        return cacheIndex_[slot];
    const std::uint8_t index = nearest(rgb);
    cacheKey_[slot] = rgb;
    cacheIndex_[slot] = index;
    return index;
}

void GifPalette::mapRow(const QRgb *pixels, std::uint8_t *indices, int count) const {
    // Pictures are mostly runs of one colour: reuse the last answer.
    QRgb last = 0;
    std::uint8_t lastIndex = 0;
    for (int x = 0; x < count; ++x) {
        const QRgb rgb = pixels[x] | 0xff000000u;
        if (rgb != last) {
            last = rgb;
            lastIndex = indexOf(rgb);
        }
        indices[x] = lastIndex;
    }
}

} // namespace remat::exporting
