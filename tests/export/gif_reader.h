#pragma once
// Reads a GIF back with giflib (an independent decoder, not the encoder under
// test): each frame composited onto the canvas as a viewer shows it, with its
// delay, and the NETSCAPE2.0 loop count.
#include <QImage>
#include <QString>

#include <optional>
#include <vector>

namespace remat::testing {

struct DecodedGif {
    int width = 0;
    int height = 0;
    int globalColors = 0;          // entries in the global colour table
    bool localTables = false;      // any frame with its own table
    std::optional<int> loopCount;  // NETSCAPE2.0 repetitions (0 = forever); none: plays once
    std::vector<QImage> frames;    // full canvases, RGB32
    std::vector<int> delaysCs;     // per frame, in 1/100 s
    std::vector<QRect> frameRects; // the rectangle each frame stores
};

// Throws std::runtime_error with giflib's message when the file is not a GIF.
DecodedGif decodeGif(const QString &path);

} // namespace remat::testing
