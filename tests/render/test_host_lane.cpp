// The host lane under a timed pane (app/render/host_lane_layout.h,
// host_lane_painter.h, stream_narration.h): its geometry as plain numbers
// without a window, then the pixels it paints against the simulator's
// Timeline: every host cell in the colour of where its activation is, an
// arrow in a_i's column while a_i is copied, the link's copies and the
// compute stream's stalls where the simulator timed them; and the words
// that say what the two streams do.
#include "app/render/host_lane_painter.h"
#include "app/render/narration.h"
#include "app/render/node_appearance.h"
#include "app/render/stream_narration.h"
#include "app/render/time_axis.h"
#include "core/simulator.h"
#include "core/strategy_registry.h"
#include "tests/common/timed_chain.h"

#include <QImage>
#include <QPainter>
#include <QtTest>

using namespace remat;
using render::HostCell;
using render::HostLaneLayout;
using render::HostLanePainter;
using render::Palette;

namespace {

// offload-all or another strategy on testing::timedChain, replayed on its link.
std::shared_ptr<const Timeline> timed(const std::string &strategy, int n, const std::string &link) {
    const testing::TimedChain chain = testing::timedChain(n, link);
    auto schedule = std::make_shared<const Schedule>(
        StrategyRegistry::builtin().get(strategy).makeSchedule(*chain.model, chain.params));
    return std::make_shared<const Timeline>(Simulator::replay(chain.model, schedule, *chain.params.machine).timeline);
}

bool near(double a, double b) {
    return std::abs(a - b) < 1e-6;
}

} // namespace

class TestHostLane : public QObject {
    Q_OBJECT
private slots:
    void layoutStacksItsRowsUnderThePicture_data() {
        QTest::addColumn<QRectF>("pane");
        QTest::addColumn<int>("layers");
        QTest::addColumn<double>("textHeight");
        QTest::newRow("studio pane") << QRectF(6, 4, 420, 300) << 16 << 17.0;
        QTest::newRow("projector") << QRectF(0, 0, 600, 420) << 16 << 26.0;
        QTest::newRow("narrow GIF pane") << QRectF(10, 40, 300, 330) << 16 << 14.0;
        QTest::newRow("short pane: half of it at most") << QRectF(0, 0, 400, 80) << 8 << 20.0;
        QTest::newRow("thousands of layers") << QRectF(0, 0, 800, 400) << 4000 << 16.0;
        QTest::newRow("one layer") << QRectF(0, 0, 200, 200) << 1 << 12.0;
    }
    void layoutStacksItsRowsUnderThePicture() {
        QFETCH(QRectF, pane);
        QFETCH(int, layers);
        QFETCH(double, textHeight);
        const HostLaneLayout l = HostLaneLayout::make(pane, layers, 0.1337, textHeight, 40);
        // The lane takes the bottom of the pane and the picture the rest, never more than half.
        QVERIFY(near(l.area.bottom(), pane.bottom()));
        QVERIFY(l.area.height() <= pane.height() * 0.5 + 1e-9);
        const QRectF picture = HostLaneLayout::pictureArea(pane, textHeight);
        QVERIFY(near(picture.bottom(), l.area.top()));
        QVERIFY(near(picture.top(), pane.top()));
        // Link row, host row, (gap,) compute row, copy row, caption: top to bottom, inside the lane.
        const QRectF rows[] = {l.linkRow, l.hostRow, l.computeRow, l.copyRow, l.captionRow};
        for (int r = 0; r < 5; ++r) {
            QVERIFY2(rows[r].height() > 0, qPrintable(QString::number(r)));
            QVERIFY(rows[r].top() >= l.area.top() - 1e-9 && rows[r].bottom() <= l.area.bottom() + 1e-9);
            if (r > 0)
                QVERIFY(rows[r].top() >= rows[r - 1].bottom() - 1e-9);
        }
        // The row names take a gutter only where most of the width stays for the rows.
        QCOMPARE(l.gutter > 0, 40 * 6 <= pane.width());
        // The time axis spans the rows; x and time are each other's inverse.
        QVERIFY(near(l.timeToX(0), l.left()));
        QVERIFY(near(l.timeToX(0.1337), pane.right()));
        for (const double t : {0.0, 0.01, 0.05, 0.1337})
            QVERIFY(near(l.xToTime(l.timeToX(t)), t));
        // Cells a_1..a_n left to right inside the host row, each in its own column.
        for (int i = 1; i <= layers; ++i) {
            const QRectF c = l.cell(i);
            QVERIFY(c.top() >= l.hostRow.top() && c.bottom() <= l.hostRow.bottom());
            QVERIFY(near(c.center().x(), l.left() + (i - 0.5) * l.width() / layers));
            if (i > 1 && l.separateCells())
                QVERIFY(c.left() >= l.cell(i - 1).right());
        }
        QCOMPARE(l.separateCells(), l.width() / layers >= HostLaneLayout::kMinCellWidth);
        // A bar is at least a pixel wide, at its times.
        const QRectF bar = l.bar(l.computeRow, 0.01, 0.01);
        QVERIFY(bar.width() >= 1);
        QVERIFY(near(bar.left(), l.timeToX(0.01)));
    }

    void arrowsMoveBetweenDeviceAndHost_data() {
        QTest::addColumn<bool>("toHost");
        QTest::newRow("offload: down into the host cell") << true;
        QTest::newRow("prefetch: up out of it") << false;
    }
    void arrowsMoveBetweenDeviceAndHost() {
        QFETCH(bool, toHost);
        const HostLaneLayout l = HostLaneLayout::make(QRectF(0, 0, 480, 320), 16, 1, 18, 40);
        double lastLength = 0;
        for (const double p : {0.0, 0.3, 0.6, 1.0}) {
            const QLineF a = l.arrow(5, toHost, p);
            QVERIFY(near(a.p1().x(), l.cell(5).center().x()));
            QVERIFY(near(a.p2().x(), a.p1().x()));
            QCOMPARE(a.dy() > 0, toHost); // the head points where the bytes go
            QVERIFY(a.length() > 0);      // a queued copy shows its head too
            QVERIFY(a.length() >= lastLength);
            lastLength = a.length();
            for (const QPointF &end : {a.p1(), a.p2()})
                QVERIFY(end.y() >= l.linkRow.top() && end.y() <= l.hostRow.top() + 1);
        }
        QVERIFY(l.arrow(5, toHost, 1.0).length() > l.arrow(5, toHost, 0.3).length());
    }

    // The pixels: host cells, the arrow of the copy under way, the link's copies, the stalls.
    void paintsWhatTheSimulatorTimed_data() {
        QTest::addColumn<QString>("link");
        QTest::addColumn<bool>("dark");
        QTest::newRow("16 GB/s: a stall before each forward layer") << "16GB/s" << false;
        QTest::newRow("16 GB/s, dark") << "16GB/s" << true;
        QTest::newRow("64 GB/s: copies hidden behind compute") << "64GB/s" << false;
    }
    void paintsWhatTheSimulatorTimed() {
        QFETCH(QString, link);
        QFETCH(bool, dark);
        const auto timeline = timed("offload-all", 16, link.toStdString());
        QVERIFY(!timeline->transfers().empty());
        QCOMPARE(timeline->stalls().empty(), link == "64GB/s");
        const HostLanePainter painter(timeline);
        const Palette palette = Palette::forDarkMode(dark);
        QImage image(640, 400, QImage::Format_ARGB32_Premultiplied);
        QFont font;
        font.setPixelSize(14);
        const HostLaneLayout l =
            HostLaneLayout::make(QRectF(image.rect()), 16, timeline->makespan(), QFontMetricsF(font).height(),
                                 HostLanePainter::gutterWidth(QFontMetricsF(font)));
        // Moments in the middle of transfers (the arrow shows) and the end.
        std::vector<double> times;
        for (std::size_t k = 0; k < timeline->transfers().size(); k += 5)
            times.push_back(timeline->transfers()[k].start +
                            0.6 * (timeline->transfers()[k].end - timeline->transfers()[k].start));
        times.push_back(timeline->makespan());
        int arrows = 0, onHost = 0;
        for (const double t : times) {
            const StepState state = timeline->stateAt(render::stepAtTime(*timeline, t, render::TimeAxis::Cost));
            image.fill(palette.background);
            QPainter p(&image);
            p.setFont(font);
            painter.paint(p, l, state, t, palette);
            p.end();
            for (int i = 1; i <= 16; ++i) {
                const HostCell cell = HostLanePainter::cellOf(*timeline, state, i, t);
                QCOMPARE(QColor(image.pixel(l.cellProbe(i).toPoint())),
                         QColor(HostLanePainter::cellColour(cell.kind, palette).rgb()));
                onHost += cell.kind == HostCell::Kind::OnHost;
                if (cell.kind == HostCell::Kind::ToHost || cell.kind == HostCell::Kind::ToDevice) {
                    // The arrow of the copy, painted in the text colour along its line.
                    const QLineF a = l.arrow(i, cell.kind == HostCell::Kind::ToHost, cell.progress);
                    QCOMPARE(QColor(image.pixel(a.pointAt(0.4).toPoint())), QColor(palette.text.rgb()));
                    ++arrows;
                }
            }
        }
        QVERIFY(arrows >= 3);
        QVERIFY(onHost > 0);
        // The last picture (at the end: no copy under way) shows every copy
        // on the link's row at its times, an offload or a prefetch by its shade.
        for (const Transfer &x : timeline->transfers()) {
            const QColor copy = x.direction == Direction::ToHost ? palette.inFlight : palette.inFlight.darker(125);
            const QPointF mid(l.timeToX(x.start + 0.4 * (x.end - x.start)), l.copyRow.center().y());
            QCOMPARE(QColor(image.pixel(mid.toPoint())), QColor(copy.rgb()));
        }
        // Each stall the simulator timed (3 px wide or more) is hatched on the
        // compute row: the stall grey and the hatch's lines.
        int stalls = 0;
        for (const Stall &s : timeline->stalls()) {
            const int x0 = static_cast<int>(std::ceil(l.timeToX(s.from))), x1 = static_cast<int>(l.timeToX(s.to));
            if (x1 - x0 < 3)
                continue;
            bool grey = false, hatch = false;
            for (int x = x0; x < x1; ++x)
                for (int y = static_cast<int>(l.computeRow.top()) + 1; y < l.computeRow.bottom() - 1; ++y) {
                    grey = grey || image.pixel(x, y) == palette.stall.rgb();
                    hatch = hatch || image.pixel(x, y) == palette.badge.rgb();
                }
            QVERIFY2(grey && hatch, qPrintable(QStringLiteral("stall at %1 s").arg(s.from)));
            ++stalls;
        }
        if (!timeline->stalls().empty())
            QVERIFY(stalls >= 10); // the forward's, one before each layer
    }

    // The words: a copy beside the op, a stall named as such, the end.
    void narratesTheTwoStreams() {
        const auto timeline = timed("offload-all", 16, "16GB/s");
        const auto mask = render::checkpointMask(*timeline);
        bool overlap = false;
        for (const Transfer &x : timeline->transfers()) {
            const double t = (x.start + x.end) / 2;
            if (render::stallAt(*timeline, t) || timeline->computeAt(t) < 0)
                continue;
            const StepState state = timeline->stateAt(render::stepAtTime(*timeline, t, render::TimeAxis::Cost));
            const std::string said = render::narrateAt(*timeline, mask, state, t);
            const std::string name = timeline->model().name(x.node);
            const std::string busy = timeline->model().name(timeline->op(timeline->computeAt(t)).node);
            const std::string expected = x.direction == Direction::ToHost
                                             ? "offloading " + name + " to host while computing " + busy
                                             : "prefetching " + name + " from host while computing " + busy;
            QVERIFY2(said.find(expected) != std::string::npos, said.c_str());
            overlap = true;
        }
        QVERIFY(overlap);
        QVERIFY(!timeline->stalls().empty());
        const Stall &s = timeline->stalls().front();
        const double t = (s.from + s.to) / 2;
        const StepState state = timeline->stateAt(render::stepAtTime(*timeline, t, render::TimeAxis::Cost));
        const std::string said = render::narrateAt(*timeline, mask, state, t);
        QVERIFY2(said.rfind("Stalled ", 0) == 0, said.c_str());
        const std::string copied =
            timeline->model().name(timeline->transfers()[static_cast<std::size_t>(s.transfer)].node);
        QVERIFY2(said.find(copied) != std::string::npos, said.c_str());
        QVERIFY(render::laneCaption(*timeline, t).rfind("stalled ", 0) == 0);
        QVERIFY(render::laneCaption(*timeline, timeline->makespan()).rfind("done in ", 0) == 0);
        // Untimed timelines keep the plain narration and have no lane caption.
        auto model = std::make_shared<const Model>(Model::chain(8));
        auto schedule = std::make_shared<const Schedule>(
            StrategyRegistry::builtin().get("store-all").makeSchedule(*model, StrategyParams{}));
        const Timeline plain = Simulator::replay(model, schedule).timeline;
        QVERIFY(render::laneCaption(plain, 1).empty());
        QCOMPARE(render::narrateAt(plain, render::checkpointMask(plain), plain.stateAt(2), 3),
                 render::narrate(plain, render::checkpointMask(plain), plain.stateAt(2)));
    }
};

QTEST_MAIN(TestHostLane)
#include "test_host_lane.moc"
