// The memory chart's coordinate mapping, checked without a window: time <-> x,
// bytes <-> y, round axis tops, and where each strategy's peak is drawn.
#include "app/render/memory_chart_painter.h"
#include "core/simulator.h"
#include "core/strategy_registry.h"
#include "tests/common/peak_label_checks.h"

#include <QFontMetricsF>
#include <QPainterPathStroker>
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

    // The placement on made-up charts: peaks crowded together, near the
    // edges, and under other curves. Every label lands clear of the others,
    // the markers and the curves; a label with room stays beside its marker.
    void peakLabelsAvoidEachOtherAndTheCurves_data() {
        QTest::addColumn<QList<QPointF>>("peaks");
        QTest::addColumn<bool>("flatCurvesThroughPeaks");
        QTest::newRow("alone") << QList<QPointF>{{300, 100}} << false;
        QTest::newRow("same point x4") << QList<QPointF>{{300, 100}, {300, 100}, {300, 100}, {300, 100}} << false;
        QTest::newRow("close") << QList<QPointF>{{300, 100}, {305, 103}, {298, 96}, {310, 100}} << true;
        QTest::newRow("near the top") << QList<QPointF>{{300, 52}, {302, 51}, {304, 53}} << true;
        QTest::newRow("near the right edge") << QList<QPointF>{{780, 120}, {782, 118}, {785, 121}} << true;
        QTest::newRow("far apart") << QList<QPointF>{{100, 150}, {400, 60}, {700, 100}} << false;
    }

    void peakLabelsAvoidEachOtherAndTheCurves() {
        QFETCH(QList<QPointF>, peaks);
        QFETCH(bool, flatCurvesThroughPeaks);
        const QRectF bounds(0, 30, 800, 170);
        const QSizeF size(80, 14);
        std::vector<QPointF> markers(peaks.begin(), peaks.end());
        std::vector<QPolygonF> curves;
        for (const QPointF &p : peaks) {
            // A tent through the peak, or a line across the whole plot at its height.
            QPolygonF line;
            if (flatCurvesThroughPeaks)
                line << QPointF(bounds.left(), p.y()) << QPointF(bounds.right(), p.y());
            else
                line << QPointF(p.x() - 60, bounds.bottom()) << p << QPointF(p.x() + 60, bounds.bottom());
            curves.push_back(line);
        }
        const std::vector<render::PeakLabel> labels =
            render::placePeakLabels(markers, std::vector<QSizeF>(markers.size(), size), 5, curves, 2, {}, bounds);
        QCOMPARE(labels.size(), markers.size());
        QPainterPathStroker stroker;
        stroker.setWidth(2);
        for (std::size_t i = 0; i < labels.size(); ++i) {
            const QRectF box = labels[i].box;
            QVERIFY2(bounds.contains(box), qPrintable(QString("label %1 leaves the chart").arg(i)));
            QCOMPARE(box.size(), size);
            for (std::size_t j = 0; j < labels.size(); ++j) {
                if (j != i)
                    QVERIFY2(!box.intersects(labels[j].box),
                             qPrintable(QString("labels %1 and %2 overlap").arg(i).arg(j)));
                QVERIFY2(!box.intersects(QRectF(markers[j] - QPointF(5, 5), QSizeF(10, 10))),
                         qPrintable(QString("label %1 covers marker %2").arg(i).arg(j)));
                QPainterPath path;
                path.addPolygon(curves[j]);
                QVERIFY2(!stroker.createStroke(path).intersects(box),
                         qPrintable(QString("label %1 lies on curve %2").arg(i).arg(j)));
            }
            if (labels[i].besideMarker)
                QVERIFY(QLineF(markers[i], render::leaderEnd(markers[i], box)).length() <= 9);
        }
        if (peaks.size() == 1 || QTest::currentDataTag() == QByteArray("far apart"))
            for (const render::PeakLabel &label : labels)
                QVERIFY(label.besideMarker);
    }

    // The column coverage says a box touches a curve exactly when Qt's stroke
    // of the curve (with the margin) meets it: steps, slopes and verticals.
    void curveCoverageAgreesWithTheStroke() {
        QPolygonF curve;
        curve << QPointF(10, 150) << QPointF(60, 150) << QPointF(60, 80) << QPointF(140, 80) << QPointF(220, 20)
              << QPointF(220.4, 140) << QPointF(300, 140);
        const render::CurveCoverage coverage(QRectF(0, 0, 320, 200), {curve}, 2);
        QPainterPathStroker stroker;
        stroker.setWidth(4);
        QPainterPath path;
        path.addPolygon(curve);
        const QPainterPath stroke = stroker.createStroke(path);
        int disagreements = 0, touching = 0;
        for (double x = 0; x < 300; x += 7)
            for (double y = 0; y < 180; y += 5) {
                const QRectF box(x, y, 23, 9);
                const bool exact = stroke.intersects(box);
                touching += exact;
                // The coverage is whole pixel columns: it may only err on the safe side.
                if (exact && !coverage.touches(box))
                    ++disagreements;
            }
        QVERIFY(touching > 50);
        QCOMPARE(disagreements, 0);
        QVERIFY(!coverage.touches(QRectF(70, 100, 40, 30))); // under the step, clear of it
        QVERIFY(coverage.touches(QRectF(70, 75, 40, 4)));    // on it
    }

    // The axis leaves the asked headroom above the highest value.
    void headroomStaysFree_data() {
        QTest::addColumn<qint64>("maxBytes");
        QTest::addColumn<double>("plotHeight");
        QTest::newRow("18 nodes, short plot") << qint64(18) << 90.0;
        QTest::newRow("18 nodes, tall plot") << qint64(18) << 400.0;
        QTest::newRow("9.57 GiB") << qint64(10275000000) << 150.0;
        QTest::newRow("1 node") << qint64(1) << 120.0;
    }

    void headroomStaysFree() {
        QFETCH(qint64, maxBytes);
        QFETCH(double, plotHeight);
        const QRectF plot(40, 20, 800, plotHeight);
        const double headroom = 22;
        const MemoryChartMapping m = MemoryChartMapping::make(plot, 100, maxBytes, headroom);
        QVERIFY2(m.bytesToY(double(maxBytes)) - plot.top() >= headroom - 1e-6,
                 qPrintable(QString("%1 px free").arg(m.bytesToY(double(maxBytes)) - plot.top())));
        QVERIFY(m.bytesTop <= MemoryChartMapping::make(plot, 100, maxBytes, headroom * 4).bytesTop);
    }

    // The painter's own labels on real schedules, among them the case that
    // overlapped (three equal peaks) and the seed strategies whose labels lay
    // on each other's curves, at the sizes of a window and a GIF.
    void chartPeakLabelsAreClear_data() {
        QTest::addColumn<QStringList>("strategies");
        QTest::addColumn<int>("layers");
        QTest::addColumn<QSizeF>("size");
        for (const QSizeF size : {QSizeF(800, 200), QSizeF(1260, 240), QSizeF(1900, 360), QSizeF(944, 150)}) {
            const QString at = QStringLiteral(" %1x%2").arg(size.width()).arg(size.height());
            QTest::addRow("three equal peaks%s", qPrintable(at))
                << QStringList{"store-all", "store-all", "store-all"} << 16 << size;
            QTest::addRow("seed%s", qPrintable(at))
                << QStringList{"store-all", "recompute-all", "periodic"} << 16 << size;
            QTest::addRow("four n=64%s", qPrintable(at))
                << QStringList{"store-all", "recompute-all", "periodic", "revolve"} << 64 << size;
            QTest::addRow("n=8%s", qPrintable(at)) << QStringList{"store-all", "recompute-all"} << 8 << size;
        }
    }

    void chartPeakLabelsAreClear() {
        QFETCH(QStringList, strategies);
        QFETCH(int, layers);
        QFETCH(QSizeF, size);
        auto model = std::make_shared<const Model>(Model::chain(layers));
        std::vector<render::MemoryChartPainter::Series> series;
        for (const QString &name : strategies) {
            auto schedule = std::make_shared<const Schedule>(
                StrategyRegistry::builtin().get(name.toStdString()).makeSchedule(*model, {}));
            const Replay replay = Simulator::replay(model, schedule);
            series.push_back({std::make_shared<const Timeline>(replay.timeline), name, replay.summary.peakBytes,
                              replay.summary.peakStep});
        }
        for (const TimeAxis axis : {TimeAxis::Cost, TimeAxis::Ops}) {
            render::MemoryChartPainter chart;
            chart.setSeries(series, axis);
            QFont font;
            font.setPixelSize(15);
            const QFontMetricsF metrics(font);
            const MemoryChartMapping m = chart.mapping(QRectF(QPointF(0, 0), size), metrics);
            const QString problem = test::peakLabelProblem(chart, m, metrics);
            QVERIFY2(problem.isEmpty(), qPrintable(problem));
        }
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
