#pragma once
// Writes an animated GIF with libcgif: one global colour table (GifPalette),
// cgif's frame-difference options (only the rectangle that changed is stored,
// unchanged pixels inside it are transparent), per-frame delays and a loop
// count. The file goes through a QSaveFile: until finish() succeeds nothing
// is visible at `path`, and an existing file there stays as it was when the
// export fails or is cancelled.
#include "app/export/gif_palette.h"

#include <QImage>
#include <QSaveFile>
#include <QString>

#include <cstdint>
#include <memory>
#include <vector>

struct st_gif;

namespace remat::exporting {

class GifEncoder {
public:
    // Browsers show delays under 20 ms as 100 ms; GIF counts in 1/100 s.
    static constexpr int kMinDelayMs = 20;
    static constexpr int kMaxDelayMs = 655'350;

    // `loops`: 0 = forever, N >= 1 = the animation plays N times in all.
    // Throws remat::Error when the file cannot be opened or a size is out of
    // GIF's range (1..65535).
    GifEncoder(const QString &path, int width, int height, GifPalette palette, int loops);
    ~GifEncoder(); // an unfinished encoder discards its file
    GifEncoder(const GifEncoder &) = delete;
    GifEncoder &operator=(const GifEncoder &) = delete;

    // `image` must be width x height. `delayMs` is rounded to 1/100 s and
    // raised to kMinDelayMs. A frame identical to the one before only lengthens
    // that one (so framesWritten() counts distinct pictures).
    void addFrame(const QImage &image, int delayMs);
    // Writes the last frame and the trailer and commits the file. Throws
    // remat::Error naming the path when writing failed.
    void finish();
    // Stops without touching `path`.
    void cancel();

    int framesAdded() const { return added_; }
    int framesWritten() const { return written_; }
    std::int64_t bytesWritten() const { return bytes_; }
    const GifPalette &palette() const { return palette_; }

    // The delay a GIF stores for a wish of `delayMs`, in 1/100 s.
    static int delayCentiseconds(int delayMs);

private:
    static int writeChunk(void *context, const std::uint8_t *data, std::size_t size);
    void flushPending();
    void fail(const QString &what);

    QSaveFile file_;
    GifPalette palette_;
    std::vector<std::uint8_t> paletteBytes_;
    int width_;
    int height_;
    st_gif *gif_ = nullptr;
    std::vector<std::uint8_t> pending_; // indices of the frame not yet given to cgif
    int pendingDelayCs_ = 0;
    bool hasPending_ = false;
    std::vector<std::uint8_t> scratch_;
    QImage previous_; // the RGB picture of the pending frame
    bool writeFailed_ = false;
    bool done_ = false;
    int added_ = 0;
    int written_ = 0;
    std::int64_t bytes_ = 0;
};

} // namespace remat::exporting
