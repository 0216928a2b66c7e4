// The timeline GIF as a user receives it, read back with giflib: size, frame
// count, delays, loop count, one global table, and at chosen frames the fill
// at every node's centre telling exactly the simulator's resident set.
#include "gif_reader.h"

#include "app/export/gif_encoder.h"
#include "app/export/timeline_gif_export.h"
#include "core/errors.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace remat;
using namespace remat::exporting;
using remat::testing::DecodedGif;
using remat::testing::decodeGif;

namespace {

std::vector<ExportPane> seedPanes(int n) {
    return simulatePanes(std::make_shared<const Model>(Model::chain(n)), {"store-all", "recompute-all", "periodic"},
                         {});
}

QByteArray readAll(const QString &path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

bool residentFill(QRgb rgb, const render::Palette &p) {
    return rgb == p.resident.rgb() || rgb == p.recomputed.rgb() || rgb == p.current.rgb();
}
bool absentFill(QRgb rgb, const render::Palette &p) {
    return rgb == p.notComputed.rgb() || rgb == p.freed.rgb();
}

} // namespace

class TestGifExport : public QObject {
    Q_OBJECT
private slots:
    void delaysKeepTheFrameRate_data();
    void delaysKeepTheFrameRate();
    void samplingKeepsFirstAndLast();
    void eventsAreEveryOpEnd_data();
    void eventsAreEveryOpEnd();
    void paletteMapsAppColoursExactly();
    void decodedGifMatchesThePlan_data();
    void decodedGifMatchesThePlan();
    void nodeCentresShowTheResidentSet_data();
    void nodeCentresShowTheResidentSet();
    void loopCountIsStored_data();
    void loopCountIsStored();
    void titleFrameComesFirst();
    void slideReadyByDefault_data();
    void slideReadyByDefault();
    void twoDigitBadgesAreNotClipped();
    void cancelledExportLeavesExistingFileUntouched();
    void failedExportLeavesNothing();
    void identicalFramesAreMerged();
    void badOptionsAreRefused_data();
    void badOptionsAreRefused();
};

void TestGifExport::delaysKeepTheFrameRate_data() {
    QTest::addColumn<double>("fps");
    QTest::addColumn<int>("frames");
    QTest::newRow("8 fps") << 8.0 << 40;
    QTest::newRow("10 fps") << 10.0 << 33;
    QTest::newRow("30 fps") << 30.0 << 90;
    QTest::newRow("50 fps") << 50.0 << 10;
    QTest::newRow("0.5 fps") << 0.5 << 3;
}

void TestGifExport::delaysKeepTheFrameRate() {
    QFETCH(double, fps);
    QFETCH(int, frames);
    const std::vector<int> delays = frameDelaysMs(frames, fps, 0);
    QCOMPARE(static_cast<int>(delays.size()), frames);
    long total = 0;
    for (const int d : delays) {
        QVERIFY2(d >= GifEncoder::kMinDelayMs, qPrintable(QString::number(d)));
        QCOMPARE(d % 10, 0); // GIF stores 1/100 s
        total += d;
    }
    // Rounding is carried over: the whole lasts frames / fps to within 10 ms.
    QVERIFY(std::abs(total - 1000.0 * frames / fps) <= 10.0);
    QCOMPARE(frameDelaysMs(frames, fps, 3000).back(), 3000);
}

void TestGifExport::samplingKeepsFirstAndLast() {
    std::vector<double> events;
    for (int i = 0; i <= 1000; ++i)
        events.push_back(i * 0.5);
    for (const FrameSampling sampling :
         {FrameSampling{FrameSampling::Mode::MaxFrames, 1, 300}, FrameSampling{FrameSampling::Mode::EveryKth, 7, 0},
          FrameSampling{FrameSampling::Mode::EveryOp, 1, 0}}) {
        const std::vector<double> s = sampleEvents(events, sampling);
        QCOMPARE(s.front(), events.front());
        QCOMPARE(s.back(), events.back());
        QVERIFY(std::is_sorted(s.begin(), s.end()));
        QVERIFY(std::adjacent_find(s.begin(), s.end()) == s.end());
        if (sampling.mode == FrameSampling::Mode::MaxFrames)
            QCOMPARE(s.size(), std::size_t{300});
        if (sampling.mode == FrameSampling::Mode::EveryKth)
            QCOMPARE(s.size(), std::size_t{1000 / 7 + 2});
        if (sampling.mode == FrameSampling::Mode::EveryOp)
            QCOMPARE(s.size(), events.size());
    }
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, sampleEvents(events, {FrameSampling::Mode::MaxFrames, 1, 1}));
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, sampleEvents(events, {FrameSampling::Mode::EveryKth, 0, 0}));
}

void TestGifExport::eventsAreEveryOpEnd_data() {
    QTest::addColumn<int>("axis");
    QTest::newRow("by cost") << int(render::TimeAxis::Cost);
    QTest::newRow("by op") << int(render::TimeAxis::Ops);
}

void TestGifExport::eventsAreEveryOpEnd() {
    QFETCH(int, axis);
    const auto a = static_cast<render::TimeAxis>(axis);
    const std::vector<ExportPane> panes = seedPanes(12);
    std::vector<const Timeline *> timelines;
    std::vector<double> expected{0.0};
    for (const ExportPane &p : panes) {
        timelines.push_back(p.timeline.get());
        for (std::int64_t s = 0; s < p.timeline->steps(); ++s)
            expected.push_back(render::opEndTime(*p.timeline, s, a));
    }
    std::sort(expected.begin(), expected.end());
    expected.erase(std::unique(expected.begin(), expected.end()), expected.end());
    QCOMPARE(render::timelineEvents(timelines, a), expected);
    // The clock ends when the slowest pane does.
    double end = 0;
    for (const ExportPane &p : panes)
        end = std::max(end, render::totalTime(*p.timeline, a));
    QCOMPARE(expected.back(), end);
}

void TestGifExport::paletteMapsAppColoursExactly() {
    for (const render::Palette &p : {render::Palette::light(), render::Palette::dark()}) {
        const GifPalette gif = GifPalette::fromPalette(p);
        QVERIFY(gif.size() <= GifPalette::kMaxColors);
        for (const QColor &c : {p.background, p.text, p.resident, p.recomputed, p.current, p.freed, p.notComputed,
                                p.checkpointRing, p.series[1], p.peak}) {
            const int i = gif.exactIndex(c.rgb());
            QVERIFY(i >= 0);
            QCOMPARE(gif.indexOf(c.rgb()), static_cast<std::uint8_t>(i));
        }
        // An anti-aliased pixel half way between the background and the resident
        // fill lands on a shade between them, not on some unrelated colour.
        const QRgb half =
            qRgb((p.background.red() + p.resident.red()) / 2, (p.background.green() + p.resident.green()) / 2,
                 (p.background.blue() + p.resident.blue()) / 2);
        const QRgb mapped = gif.color(gif.indexOf(half));
        QVERIFY(std::abs(qRed(mapped) - qRed(half)) <= 24);
        QVERIFY(std::abs(qGreen(mapped) - qGreen(half)) <= 24);
        QVERIFY(std::abs(qBlue(mapped) - qBlue(half)) <= 24);
    }
}

void TestGifExport::decodedGifMatchesThePlan_data() {
    QTest::addColumn<int>("width");
    QTest::addColumn<bool>("paneOnly");
    QTest::addColumn<double>("fps");
    QTest::addColumn<int>("maxFrames");
    QTest::newRow("side by side 960") << 960 << false << 8.0 << 300;
    QTest::newRow("side by side 640, 40 frames") << 640 << false << 12.0 << 40;
    QTest::newRow("one pane 480") << 480 << true << 25.0 << 300;
}

void TestGifExport::decodedGifMatchesThePlan() {
    QFETCH(int, width);
    QFETCH(bool, paneOnly);
    QFETCH(double, fps);
    QFETCH(int, maxFrames);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("t.gif"));
    GifExportOptions options;
    options.picture.size = QSize(width, width * 9 / 16);
    options.picture.paneOnly = paneOnly;
    options.picture.caption = QStringLiteral("caption");
    options.fps = fps;
    options.sampling.maxFrames = maxFrames;
    options.titleFrameMs = 0; // the sampled frames alone
    options.finalHoldMs = 1500;
    TimelineGifExport job(seedPanes(16), options);
    int lastDone = 0, calls = 0;
    const GifExportResult result = job.run(path, [&](int done, int total) {
        QCOMPARE(total, static_cast<int>(job.frames().size()));
        QCOMPARE(done, lastDone + 1);
        lastDone = done;
        ++calls;
    });
    QCOMPARE(calls, static_cast<int>(job.frames().size()));
    QVERIFY(static_cast<int>(job.frames().size()) <= maxFrames);
    QCOMPARE(QFileInfo(path).size(), result.bytes);

    const DecodedGif gif = decodeGif(path);
    QCOMPARE(gif.width, width);
    QCOMPARE(gif.height, width * 9 / 16);
    QVERIFY(gif.globalColors > 16);
    QVERIFY(!gif.localTables); // one global table for the whole file
    // Each moment changes some op counter, so no frame is merged away.
    QCOMPARE(static_cast<int>(gif.frames.size()), static_cast<int>(job.frames().size()));
    QCOMPARE(result.framesWritten, static_cast<int>(gif.frames.size()));
    for (std::size_t i = 0; i < gif.frames.size(); ++i)
        QCOMPARE(gif.delaysCs[i] * 10, job.frames()[i].delayMs);
    QCOMPARE(gif.delaysCs.back(), 150);
    // Frame differencing: after the first frame, frames store only what changed.
    int smaller = 0;
    for (std::size_t i = 1; i < gif.frameRects.size(); ++i)
        smaller += gif.frameRects[i].width() * gif.frameRects[i].height() < width * (width * 9 / 16);
    QVERIFY2(smaller > static_cast<int>(gif.frameRects.size()) / 2, qPrintable(QString::number(smaller)));
}

void TestGifExport::nodeCentresShowTheResidentSet_data() {
    QTest::addColumn<QString>("theme");
    QTest::addColumn<int>("n");
    QTest::addColumn<int>("axis");
    QTest::newRow("light n=16 by cost") << "light" << 16 << int(render::TimeAxis::Cost);
    QTest::newRow("dark n=16 by op") << "dark" << 16 << int(render::TimeAxis::Ops);
    QTest::newRow("light n=9 by cost") << "light" << 9 << int(render::TimeAxis::Cost);
}

void TestGifExport::nodeCentresShowTheResidentSet() {
    QFETCH(QString, theme);
    QFETCH(int, n);
    QFETCH(int, axis);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("t.gif"));
    GifExportOptions options;
    options.picture.size = QSize(960, 540);
    options.picture.palette = render::Palette::forDarkMode(theme == QStringLiteral("dark"));
    options.picture.axis = static_cast<render::TimeAxis>(axis);
    options.sampling.mode = FrameSampling::Mode::EveryOp;
    options.fps = 50;
    options.titleFrameMs = 0; // every frame shows nodes
    TimelineGifExport job(seedPanes(n), options);
    job.run(path);
    const DecodedGif gif = decodeGif(path);
    QCOMPARE(gif.frames.size(), job.frames().size());
    const render::Palette &palette = options.picture.palette;
    const TimelinePicture &picture = job.picture();

    // Every frame: first, last and all between (n is small).
    int checkedResident = 0, checkedAbsent = 0;
    for (std::size_t f = 0; f < gif.frames.size(); ++f) {
        const double time = job.frames()[f].time;
        for (int p = 0; p < picture.shownPanes(); ++p) {
            const Timeline &timeline = *picture.panes()[static_cast<std::size_t>(p)].timeline;
            const std::int64_t step = render::stepAtTime(timeline, time, options.picture.axis);
            const StepState state = timeline.stateAt(step);
            const render::ScheduleLayout layout = picture.layout(p);
            const Model &model = timeline.model();
            for (NodeId id = 0; id < static_cast<NodeId>(model.nodeCount()); ++id) {
                const QPointF c = layout.center(model, id);
                const QRgb rgb = gif.frames[f].pixel(static_cast<int>(c.x()), static_cast<int>(c.y())) | 0xff000000u;
                const bool resident = state.resident[id] != 0;
                const QString where = QStringLiteral("frame %1 pane %2 step %3 node %4 colour %5")
                                          .arg(f)
                                          .arg(p)
                                          .arg(step)
                                          .arg(QString::fromStdString(model.name(id)))
                                          .arg(QColor(rgb).name());
                if (resident) {
                    QVERIFY2(residentFill(rgb, palette), qPrintable(where));
                    ++checkedResident;
                } else {
                    QVERIFY2(absentFill(rgb, palette), qPrintable(where));
                    ++checkedAbsent;
                }
            }
        }
    }
    QVERIFY(checkedResident > 100);
    QVERIFY(checkedAbsent > 100);
}

void TestGifExport::loopCountIsStored_data() {
    QTest::addColumn<int>("loops");
    QTest::addColumn<int>("stored"); // -1: no NETSCAPE2.0 block
    QTest::newRow("forever") << 0 << 0;
    QTest::newRow("once") << 1 << -1;
    QTest::newRow("three times") << 3 << 2;
}

void TestGifExport::loopCountIsStored() {
    QFETCH(int, loops);
    QFETCH(int, stored);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("t.gif"));
    GifExportOptions options;
    options.picture.size = QSize(320, 180);
    options.loops = loops;
    options.sampling.maxFrames = 5;
    TimelineGifExport(seedPanes(4), options).run(path);
    const DecodedGif gif = decodeGif(path);
    if (stored < 0)
        QVERIFY(!gif.loopCount.has_value());
    else
        QCOMPARE(gif.loopCount.value_or(-1), stored);
}

void TestGifExport::titleFrameComesFirst() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("t.gif"));
    GifExportOptions options;
    options.picture.size = QSize(480, 270);
    options.titleFrameMs = 2500;
    options.sampling.maxFrames = 6;
    TimelineGifExport job(seedPanes(8), options);
    QVERIFY(job.frames().front().title);
    job.run(path);
    const DecodedGif gif = decodeGif(path);
    QCOMPARE(gif.frames.size(), job.frames().size());
    QCOMPARE(gif.delaysCs.front(), 250);
    QVERIFY(gif.frames[0] != gif.frames[1]);
}

void TestGifExport::slideReadyByDefault_data() {
    QTest::addColumn<int>("width");
    QTest::addColumn<int>("panes");
    QTest::newRow("960, three panes") << 960 << 3;
    QTest::newRow("480, four panes") << 480 << 4;
    QTest::newRow("1920, one pane") << 1920 << 1;
}

// Without asking: a title card first, and on every other frame a legend of
// the node states (each state's colour is found in the legend band).
void TestGifExport::slideReadyByDefault() {
    QFETCH(int, width);
    QFETCH(int, panes);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("t.gif"));
    GifExportOptions options;
    options.picture.size = TimelinePicture::defaultSize(width, false);
    options.sampling.maxFrames = 4;
    std::vector<ExportPane> all = simulatePanes(std::make_shared<const Model>(Model::chain(12)),
                                                {"store-all", "recompute-all", "periodic", "revolve"}, {});
    all.resize(static_cast<std::size_t>(panes));
    TimelineGifExport job(std::move(all), options);
    QVERIFY(job.frames().front().title);
    job.run(path);
    const DecodedGif gif = decodeGif(path);
    QCOMPARE(gif.frames.size(), job.frames().size());
    const render::Palette &p = options.picture.palette;
    const QRect legend = job.picture().legendRect().toAlignedRect().intersected(QRect(QPoint(), gif.frames[0].size()));
    QVERIFY(legend.height() >= 8);
    QVERIFY2(legend.top() > job.picture().scheduleRect(0).bottom(), "the legend is below the panes");
    for (std::size_t f = 1; f < gif.frames.size(); ++f) {
        for (const QColor &state : {p.resident, p.current, p.recomputed, p.freed, p.checkpointRing}) {
            bool found = false;
            for (int y = legend.top(); y <= legend.bottom() && !found; ++y)
                for (int x = legend.left(); x <= legend.right() && !found; ++x)
                    found = (gif.frames[f].pixel(x, y) | 0xff000000u) == state.rgb();
            QVERIFY2(found, qPrintable(QStringLiteral("frame %1 lacks %2 in its legend").arg(f).arg(state.name())));
        }
    }
}

// recompute-all computes a_1 sixteen times at n = 16: the "16\u00D7" badge
// is a pill wider than one digit's circle, whole on both sides of its centre.
void TestGifExport::twoDigitBadgesAreNotClipped() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("t.gif"));
    GifExportOptions options;
    options.picture.size = QSize(960, 480);
    options.picture.paneOnly = true;
    options.sampling.maxFrames = 2;
    options.titleFrameMs = 0;
    TimelineGifExport job(simulatePanes(std::make_shared<const Model>(Model::chain(16)), {"recompute-all"}, {}),
                          options);
    job.run(path);
    const DecodedGif gif = decodeGif(path);
    const QImage &last = gif.frames.back();
    const Timeline &timeline = *job.picture().panes()[0].timeline;
    QVERIFY(timeline.stateAt(timeline.steps() - 1).computeCount[1] >= 10);
    const render::ScheduleLayout layout = job.picture().layout(0);
    const double r = layout.radius;
    const QPointF badge = layout.forwardCenter(1) + QPointF(r * 0.8, -r * 0.8);
    const double br = std::max(5.5, r * 0.5);
    const int y = static_cast<int>(std::round(badge.y() - br * 0.6)); // above the text
    int left = -1, right = -1;
    for (int x = static_cast<int>(badge.x() - 3 * br); x <= static_cast<int>(badge.x() + 3 * br); ++x)
        if ((last.pixel(x, y) | 0xff000000u) == options.picture.palette.badge.rgb()) {
            left = left < 0 ? x : left;
            right = x;
        }
    QVERIFY2(left >= 0, "no badge");
    const double leftHalf = badge.x() - left, rightHalf = right - badge.x();
    QVERIFY2(std::abs(leftHalf - rightHalf) <= 2.5,
             qPrintable(QStringLiteral("%1 vs %2").arg(leftHalf).arg(rightHalf)));
    QVERIFY2(right - left > 2 * br,
             qPrintable(QStringLiteral("pill %1 px for a radius of %2").arg(right - left).arg(br)));
}

void TestGifExport::cancelledExportLeavesExistingFileUntouched() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("keep.gif"));
    {
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("an earlier export");
    }
    GifExportOptions options;
    options.picture.size = QSize(480, 270);
    TimelineGifExport job(seedPanes(16), options);
    int painted = 0;
    QVERIFY_THROWS_EXCEPTION(Cancelled,
                             job.run(
                                 path, [&](int done, int) { painted = done; }, [&] { return painted >= 5; }));
    QCOMPARE(painted, 5);
    QCOMPARE(readAll(path), QByteArray("an earlier export"));
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden), QStringList{QStringLiteral("keep.gif")});
}

void TestGifExport::failedExportLeavesNothing() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("missing/folder/t.gif"));
    GifExportOptions options;
    options.picture.size = QSize(320, 180);
    TimelineGifExport job(seedPanes(4), options);
    try {
        job.run(path);
        QFAIL("writing into a missing folder succeeded");
    } catch (const Error &e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains(path), e.what());
    }
    QVERIFY(!QFile::exists(path));
}

void TestGifExport::identicalFramesAreMerged() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("t.gif"));
    QImage a(64, 32, QImage::Format_RGB32), b(64, 32, QImage::Format_RGB32);
    a.fill(Qt::white);
    b.fill(Qt::white);
    b.setPixel(10, 10, qRgb(0x7b, 0x3f, 0xc4));
    GifEncoder encoder(path, 64, 32, GifPalette::fromPalette(render::Palette::light()), 0);
    encoder.addFrame(a, 100);
    encoder.addFrame(a, 100);
    encoder.addFrame(b, 40);
    encoder.addFrame(a, 5);
    encoder.finish();
    QCOMPARE(encoder.framesAdded(), 4);
    QCOMPARE(encoder.framesWritten(), 3);
    const DecodedGif gif = decodeGif(path);
    QCOMPARE(gif.delaysCs, (std::vector<int>{20, 4, 2})); // 5 ms is raised to the 20 ms minimum
    QCOMPARE(gif.frames[1].pixel(10, 10) | 0xff000000u, qRgb(0x7b, 0x3f, 0xc4));
    QCOMPARE(gif.frames[2].pixel(10, 10) | 0xff000000u, qRgb(0xff, 0xff, 0xff));
}

void TestGifExport::badOptionsAreRefused_data() {
    QTest::addColumn<double>("fps");
    QTest::addColumn<int>("loops");
    QTest::addColumn<int>("width");
    QTest::addColumn<int>("maxFrames");
    QTest::addColumn<QString>("message");
    QTest::newRow("fps 0") << 0.0 << 0 << 320 << 10 << "frame rate";
    QTest::newRow("fps 60") << 60.0 << 0 << 320 << 10 << "at most 50";
    QTest::newRow("negative loops") << 8.0 << -1 << 320 << 10 << "loop count -1";
    QTest::newRow("tiny") << 8.0 << 0 << 100 << 10 << "too small";
    QTest::newRow("huge") << 8.0 << 0 << 5000 << 10 << "too large";
    QTest::newRow("one frame") << 8.0 << 0 << 320 << 1 << "at most 1 frames";
}

void TestGifExport::badOptionsAreRefused() {
    QFETCH(double, fps);
    QFETCH(int, loops);
    QFETCH(int, width);
    QFETCH(int, maxFrames);
    QFETCH(QString, message);
    GifExportOptions options;
    options.picture.size = QSize(width, 180);
    options.fps = fps;
    options.loops = loops;
    options.sampling.maxFrames = maxFrames;
    try {
        TimelineGifExport job(seedPanes(4), options);
        QFAIL("bad options accepted");
    } catch (const InvalidArgument &e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains(message), e.what());
    }
}

QTEST_MAIN(TestGifExport)
#include "test_gif_export.moc"
