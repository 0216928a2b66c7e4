// app/render/measured_points_painter.h: the framework race's points mapped to
// the picture without a window: inside the plot, more peak further right and
// more re-run FLOPs higher, labels clear of each other, and a picture painted.
#include "app/render/measured_points_painter.h"
#include "core/race_points.h"

#include <QFont>
#include <QFontMetricsF>
#include <QGuiApplication>
#include <QImage>
#include <QPainter>
#include <QtTest>

using namespace remat;
using namespace remat::render;

namespace {

RaceResult shippedRace() {
    return readRaceFile(std::string(qgetenv("REMAT_SOURCE_DIR").constData()) +
                        "/bench/results/2026-11-27-frameworks/gpt2.json");
}

RacePoint point(const char *who, RaceKind kind, std::int64_t peak, double flops) {
    return {who, kind, peak, flops, 0.5};
}

} // namespace

class TestMeasuredPointsLayout : public QObject {
    Q_OBJECT
private slots:
    void mapsMonotonicallyInsideThePlot_data() {
        QTest::addColumn<QRectF>("rect");
        QTest::newRow("dialog") << QRectF(0, 0, 700, 560);
        QTest::newRow("offset, wide") << QRectF(40, 30, 1200, 500);
        QTest::newRow("small") << QRectF(0, 0, 420, 300);
    }
    void mapsMonotonicallyInsideThePlot() {
        QFETCH(QRectF, rect);
        const RaceResult race = shippedRace();
        const QFontMetricsF metrics{QFont()};
        const MeasuredPointsLayout l = MeasuredPointsLayout::make(rect, metrics, race);
        QVERIFY(rect.contains(l.plot));
        QCOMPARE(l.points.size(), race.points.size());
        // Points measured alike share a label: torch.compile 0.7 and 0.9, remat block-level at two budgets.
        QCOMPARE(l.labelOf.size(), race.points.size());
        QCOMPARE(l.labels.size(), race.points.size() - 2);
        QCOMPARE(l.labelTexts.size(), l.labels.size());
        QCOMPARE(l.labelTexts[l.labelOf[7]], QStringLiteral("torch.compile budget 0.7; torch.compile budget 0.9"));
        QCOMPARE(l.labelOf[6], l.labelOf[7]);
        QCOMPARE(l.flopsBottom, 0.0); // no point re-ran fewer FLOPs than store-all
        QCOMPARE(l.y(0), l.plot.bottom());
        QCOMPARE(l.x(0), l.plot.left());
        for (std::size_t i = 0; i < race.points.size(); ++i) {
            const RacePoint &p = race.points[i];
            QVERIFY2(l.plot.contains(l.points[i]), p.who.c_str());
            QVERIFY(l.labels[l.labelOf[i]].box.width() > 0);
            QVERIFY(l.labelTexts[l.labelOf[i]].contains(QString::fromStdString(p.who)));
            for (std::size_t j = 0; j < race.points.size(); ++j) {
                const RacePoint &q = race.points[j];
                // More peak: further right; more re-run FLOPs: higher (smaller y); equal: the same.
                QCOMPARE(p.observedPeakBytes < q.observedPeakBytes, l.points[i].x() < l.points[j].x());
                QCOMPARE(p.recomputeFlops<q.recomputeFlops, l.points[i].y()> l.points[j].y());
                QCOMPARE(p.observedPeakBytes == q.observedPeakBytes, l.points[i].x() == l.points[j].x());
                QCOMPARE(p.observedPeakBytes == q.observedPeakBytes && p.recomputeFlops == q.recomputeFlops,
                         l.labelOf[i] == l.labelOf[j]);
            }
        }
        // Axes: ticks inside the plot, round tops above the largest values.
        QVERIFY(l.bytesTop >= 114870280);
        QVERIFY(l.flopsTop >= 3758096384.0);
        QVERIFY(l.flopsTop < 2 * 3758096384.0);
        for (const double b : l.byteTicks)
            QVERIFY(l.x(b) >= l.plot.left() - 0.01 && l.x(b) <= l.plot.right() + 0.01);
        for (const double f : l.flopTicks)
            QVERIFY(l.y(f) >= l.plot.top() - 0.01 && l.y(f) <= l.plot.bottom() + 0.01);
        QVERIFY(l.plot.contains(l.legend));
    }

    void labelsDoNotOverlapWhereThereIsRoom() {
        RaceResult race;
        race.points = {point("store-all", RaceKind::Peer, 100 << 20, 0),
                       point("per-layer", RaceKind::Peer, 30 << 20, 3.7e9),
                       point("torch.compile budget 0.5", RaceKind::Compile, 50 << 20, 1.3e8),
                       point("remat op-level", RaceKind::Remat, 52 << 20, 1.3e8)};
        const MeasuredPointsLayout l = MeasuredPointsLayout::make(QRectF(0, 0, 800, 600), QFontMetricsF(QFont()), race);
        for (std::size_t i = 0; i < l.labels.size(); ++i) {
            QVERIFY(l.plot.contains(l.labels[i].box));
            QVERIFY(!l.labels[i].box.intersects(l.legend));
            for (std::size_t j = i + 1; j < l.labels.size(); ++j)
                QVERIFY(!l.labels[i].box.intersects(l.labels[j].box));
        }
    }

    void fewerFlopsThanStoreAllGoBelowZero() {
        RaceResult race;
        race.points = {point("store-all", RaceKind::Peer, 1000, 0), point("decomposed", RaceKind::Compile, 900, -2e6),
                       point("re-runs", RaceKind::Remat, 500, 8e6)};
        const MeasuredPointsLayout l = MeasuredPointsLayout::make(QRectF(0, 0, 600, 400), QFontMetricsF(QFont()), race);
        QVERIFY(l.flopsBottom < -2e6);
        QVERIFY(l.flopsBottom > -8e6);
        QVERIFY(l.points[1].y() > l.points[0].y()); // below zero
        QVERIFY(l.points[2].y() < l.points[0].y());
        for (const QPointF &p : l.points)
            QVERIFY(l.plot.contains(p));
        QVERIFY(std::find(l.flopTicks.begin(), l.flopTicks.end(), 0.0) != l.flopTicks.end());
    }

    void allZeroFlopsStillHaveAnAxis() {
        RaceResult race;
        race.points = {point("a", RaceKind::Peer, 1 << 20, 0), point("b", RaceKind::Peer, 2 << 20, 0)};
        const MeasuredPointsLayout l = MeasuredPointsLayout::make(QRectF(0, 0, 600, 400), QFontMetricsF(QFont()), race);
        QVERIFY(l.flopsTop > l.flopsBottom);
        QCOMPARE(l.points[0].y(), l.plot.bottom());
        QVERIFY(std::isfinite(l.points[1].y()));
    }

    void paintsEachKindsColour() {
        const RaceResult race = shippedRace();
        QImage image(900, 600, QImage::Format_ARGB32);
        {
            QPainter painter(&image);
            paintMeasuredPoints(painter, image.rect(), &race, Palette::light());
        }
        const Palette palette = Palette::light();
        for (const RaceKind kind : {RaceKind::Peer, RaceKind::Compile, RaceKind::Remat}) {
            const QColor colour = raceKindColour(kind, palette);
            bool seen = false;
            for (int y = 0; y < image.height() && !seen; ++y)
                for (int x = 0; x < image.width() && !seen; ++x)
                    seen = image.pixelColor(x, y) == colour;
            QVERIFY2(seen, raceKindName(kind));
        }
        // Null: a line saying how to add points, no crash.
        QPainter painter(&image);
        paintMeasuredPoints(painter, image.rect(), nullptr, palette);
    }
};

QTEST_MAIN(TestMeasuredPointsLayout)
#include "test_measured_points_layout.moc"
