#pragma once
// One global GIF colour table for a whole export, built from the render
// Palette: every colour the painters use maps to itself exactly (so a test
// reading a node's centre sees the true fill), and anti-aliased edge pixels,
// which are blends of two of those colours, map to the nearest of the blend
// shades added between them. No per-frame quantization: every frame shares
// one table, which keeps frames small and colours stable over time.
#include "app/render/palette.h"

#include <QRgb>

#include <array>
#include <cstdint>
#include <vector>

namespace remat::exporting {

class GifPalette {
public:
    // GIF tables hold 256 colours; one index is left free for cgif's
    // "unchanged pixel" transparency.
    static constexpr int kMaxColors = 255;

    static GifPalette fromPalette(const render::Palette &palette);

    int size() const { return static_cast<int>(colors_.size()); }
    QRgb color(int index) const { return colors_[static_cast<std::size_t>(index)]; }
    // r, g, b bytes per entry, as cgif wants them.
    std::vector<std::uint8_t> rgbBytes() const;
    // The index of an exact palette colour, or -1.
    int exactIndex(QRgb rgb) const;
    // The index of the nearest colour (exact for palette colours). Cached:
    // anti-aliasing produces few distinct colours per picture.
    std::uint8_t indexOf(QRgb rgb) const;
    // Converts a row of 0xffRRGGBB pixels to indices.
    void mapRow(const QRgb *pixels, std::uint8_t *indices, int count) const;

private:
    int add(QRgb rgb); // no-op when present or full; returns the index or -1
    std::uint8_t nearest(QRgb rgb) const;

    std::vector<QRgb> colors_;
    // Direct-mapped cache from colour to index; a slot holds rgb | 0xff000000
    // when valid (images are opaque), 0 when empty.
    static constexpr std::size_t kCacheSize = 1u << 14;
    mutable std::vector<QRgb> cacheKey_ = std::vector<QRgb>(kCacheSize, 0);
    mutable std::vector<std::uint8_t> cacheIndex_ = std::vector<std::uint8_t>(kCacheSize, 0);
};

} // namespace remat::exporting
