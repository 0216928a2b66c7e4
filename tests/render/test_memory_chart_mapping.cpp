// The memory chart's coordinate mapping, checked without a window: time <-> x,
// bytes <-> y, round axis tops, and where each strategy's peak is drawn.
#include "app/render/memory_chart_painter.h"
#include "core/simulator.h"
#include "core/strategy_registry.h"

#include <QFontMetricsF>
#include <QtTest>

using namespace remat;
using remat::render::MemoryChartMapping;
using remat::render::TimeAxis;

class TestMemoryChartMapping : public QObject {
    Q_OBJECT
private slots:
    void roundTrips_data() {
        QTest::addColumn<double>("maxTime");
        QTest::addColumn<qint64>("maxBytes");
        QTest::newRow("seed n=16") << 170.0 << qint64(18);
        QTest::newRow("one op") << 1.0 << qint64(1);
        QTest::newRow("GiB") << 12345.5 << qint64(3) * 1024 * 1024 * 1024;
    }

    void roundTrips() {
        QFETCH(double, maxTime);
        QFETCH(qint64, maxBytes);
        const QRectF plot(50, 10, 700, 180);
        const MemoryChartMapping m = MemoryChartMapping::make(plot, maxTime, maxBytes);
        QCOMPARE(m.timeToX(0), plot.left());
        QCOMPARE(m.timeToX(maxTime), plot.right()); // the last op ends at the right edge
        QCOMPARE(m.bytesToY(0), plot.bottom());     // zero bytes at the bottom
        QVERIFY(m.bytesTop >= maxBytes);            // the peak fits under the top
        QVERIFY(m.bytesToY(double(maxBytes)) > plot.top());
        for (const double f : {0.0, 0.13, 0.5, 0.99, 1.0}) {
            QVERIFY(qAbs(m.xToTime(m.timeToX(f * maxTime)) - f * maxTime) <= 1e-9 * (1 + maxTime));
            QVERIFY(qAbs(m.yToBytes(m.bytesToY(f * double(maxBytes))) - f * double(maxBytes)) <=
                    1e-6 * (1 + double(maxBytes)));
        }
        QVERIFY(m.bytesToY(double(maxBytes)) < m.bytesToY(double(maxBytes) / 2)); // more bytes, higher up
    }

    void niceCeiling_data() {
        QTest::addColumn<double>("value");
        QTest::addColumn<double>("expected");
        QTest::newRow("1") << 1.0 << 1.0;
        QTest::newRow("1.2") << 1.2 << 2.0;
        QTest::newRow("18") << 18.0 << 20.0;
        QTest::newRow("21") << 21.0 << 50.0;
        QTest::newRow("50") << 50.0 << 50.0;
        QTest::newRow("0.03") << 0.03 << 0.05;
        QTest::newRow("zero") << 0.0 << 1.0;
    }

    void niceCeiling() {
        QFETCH(double, value);
        QFETCH(double, expected);
        QCOMPARE(MemoryChartMapping::niceCeiling(value), expected);
    }

    void axisTopLeavesRoomButNotMuch_data() {
        QTest::addColumn<double>("peak");
        QTest::addColumn<double>("top");
        QTest::newRow("1") << 1.0 << 2.0;
        QTest::newRow("9") << 9.0 << 10.0;
        QTest::newRow("18") << 18.0 << 20.0;
        QTest::newRow("258") << 258.0 << 300.0;
        QTest::newRow("1000") << 1000.0 << 1500.0;
    }

    void axisTopLeavesRoomButNotMuch() {
        QFETCH(double, peak);
        QFETCH(double, top);
        QCOMPARE(MemoryChartMapping::axisTop(peak), top);
        QVERIFY(top >= peak * 1.1);
    }

    void ticksAreRoundAndCoverTheAxis() {
        const std::vector<double> t = MemoryChartMapping::ticks(170, 6);
        QCOMPARE(t.front(), 0.0);
        QVERIFY(t.size() >= 3 && t.size() <= 7);
        const double step = t[1] - t[0];
        QCOMPARE(step, MemoryChartMapping::niceCeiling(step));
        QVERIFY(t.back() <= 170 && t.back() + step > 170);
    }

    // Byte axes step in round binary units: 1.83 GiB of peak gives ticks at
    // multiples of 512 MiB, never 953.67 MiB.
    void byteTicksAreRoundInBinaryUnits_data() {
        QTest::addColumn<double>("peak");
        QTest::addColumn<double>("unit");
        QTest::newRow("GiB") << 1.83 * 1073741824.0 << 1048576.0;
        QTest::newRow("MiB") << 53.67 * 1048576.0 << 1048576.0;
        QTest::newRow("KiB") << 300.0 * 1024 << 1024.0;
    }
    void byteTicksAreRoundInBinaryUnits() {
        QFETCH(double, peak);
        QFETCH(double, unit);
        const double top = MemoryChartMapping::axisTop(peak);
        QVERIFY(top >= peak * 1.1);
        const std::vector<double> t = MemoryChartMapping::byteTicks(top, 5);
        QVERIFY(t.size() >= 3);
        const double step = t[1] - t[0];
        double inUnit = step / unit;
        while (inUnit >= 1024)
            inUnit /= 1024; // a step may be a whole larger unit
        QVERIFY2(inUnit < 1000, qPrintable(QString::number(inUnit)));
        double mantissa = inUnit;
        while (mantissa >= 10)
            mantissa /= 10;
        QVERIFY2(mantissa == 1 || mantissa == 2 || mantissa == 5, qPrintable(QString::number(inUnit)));
        QCOMPARE(std::fmod(top, step), 0.0);
    }

    void peakIsDrawnAtTheSimulatorsPeak_data() {
        QTest::addColumn<QString>("strategy");
        QTest::addColumn<int>("axis");
        for (const char *s : {"store-all", "recompute-all", "periodic"})
            for (const int axis : {0, 1})
                QTest::addRow("%s %s", s, axis ? "ops" : "cost") << QString(s) << axis;
    }

    void peakIsDrawnAtTheSimulatorsPeak() {
        QFETCH(QString, strategy);
        QFETCH(int, axis);
        const TimeAxis timeAxis = axis ? TimeAxis::Ops : TimeAxis::Cost;
        auto model = std::make_shared<const Model>(Model::chain(16));
        auto schedule = std::make_shared<const Schedule>(
            StrategyRegistry::builtin().get(strategy.toStdString()).makeSchedule(*model, {}));
        const Replay replay = Simulator::replay(model, schedule);
        auto timeline = std::make_shared<const Timeline>(replay.timeline);
        render::MemoryChartPainter chart;
        chart.setSeries({{timeline, strategy, replay.summary.peakBytes, replay.summary.peakStep}}, timeAxis);
        const MemoryChartMapping m =
            MemoryChartMapping::make(QRectF(40, 20, 800, 200), chart.maxTime(), replay.summary.peakBytes);
        const QPointF p = chart.peakPoint(m, 0);
        QCOMPARE(p.y(), m.bytesToY(double(replay.summary.peakBytes)));
        const double start = render::opStartTime(*timeline, replay.summary.peakStep, timeAxis);
        const double end = render::opEndTime(*timeline, replay.summary.peakStep, timeAxis);
        QVERIFY(p.x() >= m.timeToX(start) && p.x() <= m.timeToX(end));
        // No op holds more than the marked peak.
        for (std::int64_t s = 0; s < timeline->steps(); ++s)
            QVERIFY(m.bytesToY(double(timeline->bytesAt(s))) >= p.y());
    }

    // Peak labels never overlap each other or another peak's marker, stay
    // inside the chart, and a label with room stays where it wants to be.
    void peakLabelsAvoidEachOther_data() {
        QTest::addColumn<QList<QPointF>>("peaks");
        QTest::newRow("alone") << QList<QPointF>{{300, 100}};
        QTest::newRow("same point x4") << QList<QPointF>{{300, 100}, {300, 100}, {300, 100}, {300, 100}};
        QTest::newRow("close") << QList<QPointF>{{300, 100}, {305, 103}, {298, 96}, {310, 100}};
        QTest::newRow("near the top") << QList<QPointF>{{300, 32}, {302, 31}, {304, 33}};
        QTest::newRow("near the right edge") << QList<QPointF>{{780, 120}, {782, 118}, {785, 121}};
        QTest::newRow("far apart") << QList<QPointF>{{100, 150}, {400, 60}, {700, 100}};
    }

    void peakLabelsAvoidEachOther() {
        QFETCH(QList<QPointF>, peaks);
        const QRectF bounds(0, 30, 800, 170);
        const double w = 80, h = 14;
        std::vector<QRectF> wanted, markers;
        std::vector<double> flip;
        for (const QPointF &p : peaks) {
            const bool right = p.x() + 7 + w <= bounds.right();
            wanted.emplace_back(right ? p.x() + 7 : p.x() - 7 - w, p.y() - h - 2, w, h);
            markers.emplace_back(p.x() - 5, p.y() - 5, 10, 10);
            flip.push_back(right ? -(14 + w) : 14 + w);
        }
        const std::vector<QRectF> boxes = render::placeLabels(wanted, markers, bounds, flip);
        QCOMPARE(boxes.size(), wanted.size());
        for (std::size_t i = 0; i < boxes.size(); ++i) {
            QVERIFY2(bounds.contains(boxes[i]), qPrintable(QString("label %1 leaves the chart").arg(i)));
            QCOMPARE(boxes[i].size(), wanted[i].size());
            for (std::size_t j = 0; j < boxes.size(); ++j) {
                if (j != i)
                    QVERIFY2(!boxes[i].intersects(boxes[j]),
                             qPrintable(QString("labels %1 and %2 overlap").arg(i).arg(j)));
                QVERIFY2(!boxes[i].intersects(markers[j]),
                         qPrintable(QString("label %1 covers marker %2").arg(i).arg(j)));
            }
            // Each stays near its own peak: within a few label heights.
            QVERIFY(std::abs(boxes[i].center().y() - wanted[i].center().y()) <= 5 * (h + 1));
        }
        if (peaks.size() == 1 || QTest::currentDataTag() == QByteArray("far apart"))
            for (std::size_t i = 0; i < boxes.size(); ++i)
                QCOMPARE(boxes[i], wanted[i]);
    }

    // The painter's own boxes, for three strategies whose peaks are equal (the
    // case that overlapped): apart from each other.
    void chartPeakLabelsDoNotOverlap() {
        auto model = std::make_shared<const Model>(Model::chain(16));
        std::vector<render::MemoryChartPainter::Series> series;
        for (const char *name : {"store-all", "store-all", "store-all"}) {
            auto schedule =
                std::make_shared<const Schedule>(StrategyRegistry::builtin().get(name).makeSchedule(*model, {}));
            const Replay replay = Simulator::replay(model, schedule);
            series.push_back({std::make_shared<const Timeline>(replay.timeline), name, replay.summary.peakBytes,
                              replay.summary.peakStep});
        }
        render::MemoryChartPainter chart;
        chart.setSeries(series, TimeAxis::Cost);
        QFont font;
        font.setPixelSize(12);
        const QFontMetricsF metrics(font);
        const QRectF rect(0, 0, 800, 200);
        const MemoryChartMapping m = chart.mapping(rect, metrics);
        const std::vector<QRectF> boxes = chart.peakLabelBoxes(m, metrics, rect);
        QCOMPARE(boxes.size(), std::size_t{3});
        for (std::size_t i = 0; i < 3; ++i)
            for (std::size_t j = i + 1; j < 3; ++j)
                QVERIFY(!boxes[i].intersects(boxes[j]));
    }

    // A measured curve above the prediction raises the axis: a mismatch is never clipped.
    void measuredOverlayFitsTheAxis() {
        auto model = std::make_shared<const Model>(Model::chain(8));
        auto schedule =
            std::make_shared<const Schedule>(StrategyRegistry::builtin().get("store-all").makeSchedule(*model, {}));
        const Replay replay = Simulator::replay(model, schedule);
        auto timeline = std::make_shared<const Timeline>(replay.timeline);
        render::MemoryChartPainter chart;
        chart.setSeries({{timeline, "store-all", replay.summary.peakBytes, replay.summary.peakStep}}, TimeAxis::Ops);
        QFont font;
        font.setPixelSize(12);
        const QFontMetricsF metrics(font);
        const double predictedTop = chart.mapping(QRectF(0, 0, 800, 200), metrics).bytesTop;
        auto measured = std::make_shared<std::vector<double>>();
        for (std::int64_t t = 0; t < timeline->steps(); ++t)
            measured->push_back(double(timeline->bytesAt(t)));
        measured->back() = predictedTop * 3;
        chart.setMeasured({measured});
        QVERIFY(chart.hasMeasured());
        QVERIFY(chart.mapping(QRectF(0, 0, 800, 200), metrics).bytesTop >= double(measured->back()));
        chart.setSeries(chart.series(), TimeAxis::Ops); // new series: overlays belong to the old ones
        QVERIFY(!chart.hasMeasured());
    }
};

QTEST_MAIN(TestMemoryChartMapping) // font metrics need a QGuiApplication (offscreen in ctest)
#include "test_memory_chart_mapping.moc"
