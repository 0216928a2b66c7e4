#include "gif_reader.h"

#include <gif_lib.h>

#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

namespace remat::testing {

namespace {

struct Closer {
    void operator()(GifFileType *gif) const {
        int error = 0;
        DGifCloseFile(gif, &error);
    }
};

// NETSCAPE2.0 application extension followed by its sub-block {1, lo, hi}.
std::optional<int> loopCountIn(const ExtensionBlock *blocks, int count) {
    for (int i = 0; i + 1 < count; ++i) {
        const ExtensionBlock &app = blocks[i];
        if (app.Function == APPLICATION_EXT_FUNC_CODE && app.ByteCount == 11 &&
            std::memcmp(app.Bytes, "NETSCAPE2.0", 11) == 0) {
            const ExtensionBlock &sub = blocks[i + 1];
            if (sub.ByteCount >= 3 && sub.Bytes[0] == 1)
                return sub.Bytes[1] | (sub.Bytes[2] << 8);
        }
    }
    return std::nullopt;
}

} // namespace

DecodedGif decodeGif(const QString &path) {
    int error = 0;
    std::unique_ptr<GifFileType, Closer> gif(DGifOpenFileName(path.toLocal8Bit().constData(), &error));
    if (!gif)
        throw std::runtime_error("cannot open GIF: " + std::string(GifErrorString(error)));
    if (DGifSlurp(gif.get()) != GIF_OK)
        throw std::runtime_error("cannot decode GIF: " + std::string(GifErrorString(gif->Error)));

    DecodedGif out;
    out.width = gif->SWidth;
    out.height = gif->SHeight;
    out.globalColors = gif->SColorMap ? gif->SColorMap->ColorCount : 0;
    out.loopCount = loopCountIn(gif->ExtensionBlocks, gif->ExtensionBlockCount);

    QImage canvas(out.width, out.height, QImage::Format_RGB32);
    canvas.fill(Qt::black);
    for (int f = 0; f < gif->ImageCount; ++f) {
        const SavedImage &image = gif->SavedImages[f];
        if (!out.loopCount)
            out.loopCount = loopCountIn(image.ExtensionBlocks, image.ExtensionBlockCount);
        GraphicsControlBlock gcb{};
        gcb.TransparentColor = NO_TRANSPARENT_COLOR;
        DGifSavedExtensionToGCB(gif.get(), f, &gcb);
        const ColorMapObject *map = image.ImageDesc.ColorMap ? image.ImageDesc.ColorMap : gif->SColorMap;
        out.localTables = out.localTables || image.ImageDesc.ColorMap != nullptr;
        if (!map)
            throw std::runtime_error("GIF frame without a colour table");
        const GifImageDesc &d = image.ImageDesc;
        const QImage before = canvas;
        for (int y = 0; y < d.Height; ++y)
            for (int x = 0; x < d.Width; ++x) {
                const int index = image.RasterBits[y * d.Width + x];
                if (index == gcb.TransparentColor)
                    continue;
                if (index >= map->ColorCount)
                    throw std::runtime_error("GIF pixel index outside the colour table");
                const GifColorType c = map->Colors[index];
                canvas.setPixel(d.Left + x, d.Top + y, qRgb(c.Red, c.Green, c.Blue));
            }
        out.frames.push_back(canvas);
        out.delaysCs.push_back(gcb.DelayTime);
        out.frameRects.push_back(QRect(d.Left, d.Top, d.Width, d.Height));
        if (gcb.DisposalMode == DISPOSE_PREVIOUS)
            canvas = before;
        else if (gcb.DisposalMode == DISPOSE_BACKGROUND)
            for (int y = 0; y < d.Height; ++y)
                for (int x = 0; x < d.Width; ++x)
                    canvas.setPixel(d.Left + x, d.Top + y, qRgb(0, 0, 0));
    }
    return out;
}

} // namespace remat::testing
