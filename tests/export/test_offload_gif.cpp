// A GIF of timed panes (a link: store-all, periodic, offload-all at n = 16 as
// in the lecture GIF of docs/export.md), read back with giflib: every pane has
// its host lane, whose cells show at every frame where the simulator says each
// activation is; the copies' arrows are in the frames; the first stall is a
// frame of its own, held; and the memory chart carries the host's curve and
// peak beside the device's.
#include "gif_reader.h"

#include "app/export/timeline_gif_export.h"
#include "app/render/host_lane_painter.h"
#include "app/render/stream_narration.h"
#include "core/units.h"
#include "tests/common/timed_chain.h"

#include <QFontMetricsF>

#include <QTemporaryDir>
#include <QTest>

using namespace remat;
using namespace remat::exporting;
using remat::testing::decodeGif;

namespace {

std::vector<ExportPane> lecturePanes(const std::string &link) {
    const testing::TimedChain chain = testing::timedChain(16, link);
    return simulatePanes(chain.model, {"store-all", "periodic", "offload-all"}, chain.params);
}

} // namespace

class TestOffloadGif : public QObject {
    Q_OBJECT
private slots:
    void framesShowTheHostLane_data() {
        QTest::addColumn<QString>("link");
        QTest::addColumn<bool>("dark");
        QTest::newRow("16 GB/s, light") << "16GB/s" << false;
        QTest::newRow("8 GB/s, dark") << "8GB/s" << true;
    }
    void framesShowTheHostLane() {
        QFETCH(QString, link);
        QFETCH(bool, dark);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("offload.gif"));
        GifExportOptions options;
        options.picture.size = QSize(1280, 720);
        options.picture.palette = render::Palette::forDarkMode(dark);
        options.sampling.maxFrames = 120;
        options.titleFrameMs = 0;
        TimelineGifExport job(lecturePanes(link.toStdString()), options);
        job.run(path);
        const testing::DecodedGif gif = decodeGif(path);
        QCOMPARE(gif.frames.size(), job.frames().size());
        const TimelinePicture &picture = job.picture();
        const render::Palette &palette = options.picture.palette;
        for (int p = 0; p < picture.shownPanes(); ++p)
            QVERIFY(picture.hasHostLane(p)); // all timed: all with a lane
        const int offload = 2;
        const Timeline &tl = *picture.panes()[offload].timeline;
        const render::HostLaneLayout lane = picture.hostLane(offload);
        QVERIFY(lane.area.top() >= picture.scheduleRect(offload).bottom() - 1e-9);
        int onHost = 0, copying = 0, arrows = 0;
        for (std::size_t f = 0; f < gif.frames.size(); ++f) {
            const double time = job.frames()[f].time;
            const double now = picture.streamTime(offload, time);
            const StepState state = tl.stateAt(picture.stepAt(offload, time));
            for (int i = 1; i <= 16; ++i) {
                const render::HostCell cell = render::HostLanePainter::cellOf(tl, state, i, now);
                const QRgb rgb = gif.frames[f].pixel(lane.cellProbe(i).toPoint()) | 0xff000000u;
                QVERIFY2(rgb == render::HostLanePainter::cellColour(cell.kind, palette).rgb(),
                         qPrintable(QStringLiteral("frame %1 a_%2 %3").arg(f).arg(i).arg(QColor(rgb).name())));
                onHost += cell.kind == render::HostCell::Kind::OnHost;
                if (cell.kind == render::HostCell::Kind::ToHost || cell.kind == render::HostCell::Kind::ToDevice) {
                    ++copying;
                    const QLineF a = lane.arrow(i, cell.kind == render::HostCell::Kind::ToHost, cell.progress);
                    arrows += (gif.frames[f].pixel(a.pointAt(0.4).toPoint()) | 0xff000000u) == palette.text.rgb();
                }
            }
        }
        // The last frame shows every pane finished (the export "ends with the finished backward pass").
        for (int p = 0; p < picture.shownPanes(); ++p) {
            const Timeline &t = *picture.panes()[static_cast<std::size_t>(p)].timeline;
            QCOMPARE(picture.stepAt(p, job.frames().back().time), t.steps() - 1);
            QVERIFY(render::laneCaption(t, picture.streamTime(p, job.frames().back().time)).rfind("done in ", 0) == 0);
        }
        QVERIFY(onHost > 100);
        QVERIFY(copying > 10);
        QCOMPARE(arrows, copying); // every copy under way has its arrow
        // The first stall: a frame inside it, held at least options.holdMs.
        QVERIFY(!tl.stalls().empty());
        const Stall &first = tl.stalls().front();
        bool held = false;
        for (std::size_t f = 0; f < job.frames().size(); ++f)
            if (job.frames()[f].time > first.from && job.frames()[f].time < first.to)
                held = held || gif.delaysCs[f] * 10 >= options.holdMs;
        QVERIFY(held);
    }

    void chartCarriesHostMemory() {
        const std::vector<ExportPane> panes = lecturePanes("16GB/s");
        std::vector<render::MemoryChartPainter::Series> series;
        for (std::size_t i = 0; i < panes.size(); ++i)
            series.push_back({panes[i].timeline, panes[i].title, panes[i].summary.peakBytes, panes[i].summary.peakStep,
                              static_cast<int>(i)});
        render::MemoryChartPainter chart;
        chart.setSeries(series, render::TimeAxis::Cost);
        // One host peak, offload-all's, at the simulator's host peak.
        QCOMPARE(chart.hostSeries(), std::vector<std::size_t>{2});
        QCOMPARE(chart.peakCount(), std::size_t{4});
        QVERIFY(chart.peakLabel(3).startsWith(QStringLiteral("host ")));
        QVERIFY(chart.peakLabel(3).contains(QString::fromStdString(formatSize(panes[2].summary.peakHostBytes, false))));
        // Its curve follows the timeline's host bytes: at its peak, the highest point of the host curve.
        const render::MemoryChartMapping m = chart.mapping(QRectF(0, 0, 900, 300), QFontMetricsF(QFont()));
        const std::vector<QPolygonF> curves = chart.curves(m);
        QCOMPARE(curves.size(), std::size_t{4});
        double top = 1e9;
        for (const QPointF &pt : curves.back())
            top = std::min(top, pt.y());
        QCOMPARE(top, m.bytesToY(static_cast<double>(panes[2].summary.peakHostBytes)));
    }
};

QTEST_MAIN(TestOffloadGif)
#include "test_offload_gif.moc"
