#include "app/export/gif_encoder.h"

#include "core/errors.h"

#include <cgif.h>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace remat::exporting {

GifEncoder::GifEncoder(const QString &path, int width, int height, GifPalette palette, int loops)
    : file_(path), palette_(std::move(palette)), paletteBytes_(palette_.rgbBytes()), width_(width), height_(height) {
    if (width < 1 || width > 65535 || height < 1 || height > 65535)
        throw Error("GIF size " + std::to_string(width) + "x" + std::to_string(height) +
                    " is out of range; each side must be 1 to 65535 pixels");
    if (loops < 0 || loops > 65536)
        throw Error("loop count " + std::to_string(loops) + " is out of range; use 0 (forever) to 65536");
    // Nothing at `path` changes before commit(); a directory that cannot
    // take the temporary file fails here.
    file_.setDirectWriteFallback(false);
    if (!file_.open(QIODevice::WriteOnly))
        throw Error("cannot write '" + path.toStdString() + "': " + file_.errorString().toStdString());

    CGIF_Config config;
    std::memset(&config, 0, sizeof config);
    config.pGlobalPalette = paletteBytes_.data();
    config.numGlobalPaletteEntries = static_cast<std::uint16_t>(palette_.size());
    config.attrFlags = CGIF_ATTR_IS_ANIMATED;
    // NETSCAPE2.0 counts repetitions after the first play; a single play has
    // no loop extension at all.
    if (loops == 1)
        config.attrFlags |= CGIF_ATTR_NO_LOOP;
    config.numLoops = loops == 0 ? CGIF_INFINITE_LOOP : static_cast<std::uint16_t>(loops - 1);
    config.width = static_cast<std::uint16_t>(width);
    config.height = static_cast<std::uint16_t>(height);
    config.pWriteFn = &GifEncoder::writeChunk;
    config.pContext = this;
    gif_ = cgif_newgif(&config);
    if (!gif_) {
        file_.cancelWriting();
        throw Error("cannot start the GIF '" + path.toStdString() + "' (libcgif failed)");
    }
    pending_.resize(static_cast<std::size_t>(width) * static_cast<std::size_t>(height));
    scratch_.resize(pending_.size());
}

GifEncoder::~GifEncoder() {
    if (!done_)
        cancel();
}

int GifEncoder::writeChunk(void *context, const std::uint8_t *data, std::size_t size) {
    auto *self = static_cast<GifEncoder *>(context);
    if (self->writeFailed_)
        return -1;
    if (self->file_.write(reinterpret_cast<const char *>(data), static_cast<qint64>(size)) !=
        static_cast<qint64>(size)) {
        self->writeFailed_ = true;
        return -1;
    }
    self->bytes_ += static_cast<std::int64_t>(size);
    return 0;
}

int GifEncoder::delayCentiseconds(int delayMs) {
    const int ms = std::clamp(delayMs, kMinDelayMs, kMaxDelayMs);
    return static_cast<int>(std::lround(ms / 10.0));
}

void GifEncoder::fail(const QString &what) {
    const std::string message = "cannot write '" + file_.fileName().toStdString() + "': " + what.toStdString();
    cancel();
    throw Error(message);
}

void GifEncoder::addFrame(const QImage &image, int delayMs) {
    if (done_)
        throw Error("GIF encoder: frame added after finish or cancel");
    if (image.width() != width_ || image.height() != height_)
        throw Error("GIF encoder: frame of " + std::to_string(image.width()) + "x" + std::to_string(image.height()) +
                    " in a " + std::to_string(width_) + "x" + std::to_string(height_) + " GIF");
    const QImage rgb = (image.format() == QImage::Format_RGB32 || image.format() == QImage::Format_ARGB32)
                           ? image
                           : image.convertToFormat(QImage::Format_RGB32);
    // Most rows are as in the frame before: reuse their indices.
    const std::size_t rowBytes = static_cast<std::size_t>(width_) * sizeof(QRgb);
    for (int y = 0; y < height_; ++y) {
        const auto offset = static_cast<std::size_t>(y) * static_cast<std::size_t>(width_);
        const uchar *row = rgb.constScanLine(y);
        if (hasPending_ && std::memcmp(row, previous_.constScanLine(y), rowBytes) == 0)
            std::memcpy(scratch_.data() + offset, pending_.data() + offset, static_cast<std::size_t>(width_));
        else
            palette_.mapRow(reinterpret_cast<const QRgb *>(row), scratch_.data() + offset, width_);
    }
    previous_ = rgb;
    ++added_;
    const int delayCs = delayCentiseconds(delayMs);
    // cgif would merge an identical frame on its own; doing it here keeps the
    // count of written frames and their delays known to the caller.
    if (hasPending_ && scratch_ == pending_) {
        pendingDelayCs_ = std::min(pendingDelayCs_ + delayCs, kMaxDelayMs / 10);
        return;
    }
    flushPending();
    pending_.swap(scratch_);
    pendingDelayCs_ = delayCs;
    hasPending_ = true;
}

void GifEncoder::flushPending() {
    if (!hasPending_)
        return;
    CGIF_FrameConfig frame;
    std::memset(&frame, 0, sizeof frame);
    frame.pImageData = pending_.data();
    frame.delay = static_cast<std::uint16_t>(pendingDelayCs_);
    // Store only the changed rectangle; inside it, unchanged pixels become
    // transparent and compress to almost nothing.
    frame.genFlags = CGIF_FRAME_GEN_USE_DIFF_WINDOW | CGIF_FRAME_GEN_USE_TRANSPARENCY;
    hasPending_ = false;
    if (cgif_addframe(gif_, &frame) != CGIF_OK || writeFailed_)
        fail(file_.errorString().isEmpty() ? QStringLiteral("libcgif failed to add a frame") : file_.errorString());
    ++written_;
}

void GifEncoder::finish() {
    if (done_)
        throw Error("GIF encoder: finish after finish or cancel");
    if (!hasPending_)
        fail(QStringLiteral("no frames"));
    flushPending();
    const int closed = cgif_close(gif_);
    gif_ = nullptr;
    if (closed != CGIF_OK || writeFailed_)
        fail(writeFailed_ ? file_.errorString() : QStringLiteral("libcgif failed to finish the file"));
    done_ = true;
    if (!file_.commit())
        throw Error("cannot write '" + file_.fileName().toStdString() + "': " + file_.errorString().toStdString());
}

void GifEncoder::cancel() {
    if (done_)
        return;
    done_ = true;
    if (gif_) {
        cgif_close(gif_); // frees cgif's buffers; what it writes goes to the discarded temporary file
        gif_ = nullptr;
    }
    file_.cancelWriting();
    file_.commit(); // after cancelWriting: removes the temporary file, leaves `path` alone
}

} // namespace remat::exporting
