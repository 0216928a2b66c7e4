// GIF export speed and size. Targets (docs/export.md): 300 frames at 960x540
// in <= 3 s on one core; the n = 16 three-strategy GIF (the example
// command) <= 1 MB. Run from the release preset, pinned to one core:
//   taskset -c 0 build/release/bench/export/bench_gif_export
#include "app/export/gif_encoder.h"
#include "app/export/timeline_gif_export.h"

#include <QFileInfo>
#include <QGuiApplication>
#include <QTemporaryDir>

#include <chrono>
#include <cstdio>

using namespace remat;
using namespace remat::exporting;
using Clock = std::chrono::steady_clock;

namespace {

double seconds(Clock::time_point since) {
    return std::chrono::duration<double>(Clock::now() - since).count();
}

std::vector<ExportPane> seedPanes(int n) {
    return simulatePanes(std::make_shared<const Model>(Model::chain(n)), {"store-all", "recompute-all", "periodic"},
                         {});
}

void benchExport(const char *label, int n, QSize size, int maxFrames, const QString &path, double targetSeconds,
                 double targetBytes) {
    GifExportOptions options;
    options.picture.size = size;
    options.picture.caption = QStringLiteral("Gradient checkpointing, n = %1").arg(n);
    options.sampling.maxFrames = maxFrames;
    TimelineGifExport job(seedPanes(n), options);

    // Painting alone, to split the time between the renderer and the encoder.
    QImage image;
    auto t0 = Clock::now();
    for (const auto &frame : job.frames())
        job.picture().paint(image, frame.time);
    const double paint = seconds(t0);

    t0 = Clock::now();
    const GifExportResult result = job.run(path);
    const double total = seconds(t0);
    const double bytes = static_cast<double>(QFileInfo(path).size());
    std::printf("%-34s %4d frames %4dx%-4d  export %.2f s (paint %.2f s, palette+encode %.2f s)  %.0f KiB  "
                "[time %s %.1f s",
                label, result.framesPainted, size.width(), size.height(), total, paint, total - paint, bytes / 1024,
                total <= targetSeconds ? "ok <=" : "MISSED >", targetSeconds);
    if (targetBytes > 0)
        std::printf(", size %s %.0f KiB", bytes <= targetBytes ? "ok <=" : "MISSED >", targetBytes / 1024);
    std::printf("]\n");
}

} // namespace

int main(int argc, char **argv) {
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QGuiApplication app(argc, argv);
    QTemporaryDir dir;
    std::printf("remat GIF export benchmark (one thread)\n");
    benchExport("300 frames, n = 64, 3 panes", 64, QSize(960, 540), 300, dir.filePath("a.gif"), 3.0, 0);
    benchExport("issue example: n = 16, 3 panes", 16, QSize(960, 540), 300, dir.filePath("b.gif"), 3.0,
                1024.0 * 1024.0);
    benchExport("300 frames, n = 512, 3 panes", 512, QSize(960, 540), 300, dir.filePath("c.gif"), 3.0, 0);
    return 0;
}
