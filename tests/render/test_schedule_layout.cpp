// The schedule picture's geometry: the classic layout (forward row on top,
// a_0 top left, b_i under a_i, loss side bottom right), no overlaps from
// n = 4 to 512, hit testing, and label thinning.
#include "app/render/schedule_layout.h"
#include "core/model_io.h"

#include <QtTest>

#include <cmath>

using remat::Model;
using remat::NodeId;
using remat::render::ScheduleLayout;

class TestScheduleLayout : public QObject {
    Q_OBJECT
private slots:
    void geometry_data() {
        QTest::addColumn<int>("layers");
        QTest::addColumn<QSizeF>("size");
        for (const int n : {4, 16, 64, 256, 512})
            for (const QSizeF size : {QSizeF(420, 300), QSizeF(1280, 400), QSizeF(300, 600)})
                QTest::addRow("n=%d %dx%d", n, int(size.width()), int(size.height())) << n << size;
    }

    // A wrapped picture names both rows of every band: one band's backward
    // names and the next band's forward names must not meet (they ran into
    // one line, "b_0 a_18 b_2 a_20", in the lesson's three panes at 1280x720).
    void namesBetweenBandsNeverMeet_data() {
        QTest::addColumn<int>("layers");
        QTest::addColumn<QSizeF>("size");
        QTest::addRow("lesson pane, n=32") << 32 << QSizeF(390, 137);
        QTest::addRow("n=16 320x200") << 16 << QSizeF(320, 200);
        QTest::addRow("n=64 420x300") << 64 << QSizeF(420, 300);
        QTest::addRow("n=100 600x500") << 100 << QSizeF(600, 500);
        QTest::addRow("n=48 700x260") << 48 << QSizeF(700, 260);
    }
    void namesBetweenBandsNeverMeet() {
        QFETCH(int, layers);
        QFETCH(QSizeF, size);
        const QRectF area(QPointF(0, 0), size);
        const ScheduleLayout l = ScheduleLayout::make(layers + 1, area);
        QVERIFY2(l.bands > 1 && l.labelEvery > 0, "the case must wrap and show names");
        const double line = ScheduleLayout::labelLineHeight(l.pitch);
        for (int i = l.columns; i < l.forwardCount; i += l.columns) {
            const double backwardNamesEnd = l.backwardCenter(i - 1).y() + l.ringRadius() + 1 + line;
            const double forwardNamesStart = l.forwardCenter(i).y() - l.ringRadius() - 1 - line;
            QVERIFY2(forwardNamesStart - backwardNamesEnd >= 2 - 1e-6,
                     qPrintable(QString("band %1: %2 px").arg(l.band(i)).arg(forwardNamesStart - backwardNamesEnd)));
        }
        // The first band's forward names and the last band's backward names stay inside the area too.
        const double top = l.forwardCenter(0).y() - l.ringRadius() - 1 - line;
        const double bottom = l.backwardCenter(l.forwardCount - 1).y() + l.ringRadius() + 1 + line;
        QVERIFY2(top >= area.top() - 1e-6 && bottom <= area.bottom() + 1e-6,
                 qPrintable(QString("names from %1 to %2 px").arg(top).arg(bottom)));
        QVERIFY(area.adjusted(-0.5, -0.5, 0.5, 0.5).contains(l.contentRect()));
    }

    void geometry() {
        QFETCH(int, layers);
        QFETCH(QSizeF, size);
        const QRectF area(QPointF(10, 20), size);
        const ScheduleLayout l = ScheduleLayout::make(layers + 1, area);
        QVERIFY(l.pitch > 0);
        QVERIFY(l.radius < l.pitch / 2); // neighbours never touch
        QVERIFY(l.columns * l.bands >= layers + 1);
        const QRectF inside = area.adjusted(-0.01, -0.01, 0.01, 0.01);
        QVERIFY2(inside.contains(l.contentRect()), "the picture stays in its area");
        const QPointF a0 = l.forwardCenter(0);
        for (int i = 0; i <= layers; ++i) {
            const QPointF f = l.forwardCenter(i), b = l.backwardCenter(i);
            QVERIFY(inside.contains(f) && inside.contains(b));
            QVERIFY(f.x() >= a0.x() - 1e-9 && f.y() >= a0.y() - 1e-9); // a_0 at the top left
            QCOMPARE(b.x(), f.x());                                    // b_i right under a_i
            QVERIFY(b.y() - f.y() >= 2 * l.radius);
            if (i > 0 && l.band(i) == l.band(i - 1))
                QVERIFY(f.x() - l.forwardCenter(i - 1).x() >= 2 * l.radius); // left to right
            if (i > 0 && l.band(i) != l.band(i - 1))
                QVERIFY(f.y() - l.backwardCenter(i - 1).y() >= 2 * l.radius); // next band below
            // Every node is found at its centre.
            QCOMPARE(l.hitTest(f), static_cast<long long>(i));
            QCOMPARE(l.hitTest(b), static_cast<long long>(layers + 1 + i));
        }
        // The loss side b_n is the bottom row's last node.
        const QPointF bn = l.backwardCenter(layers);
        for (int i = 0; i <= layers; ++i)
            QVERIFY(l.backwardCenter(i).y() <= bn.y());
        // Between the rows there is no node.
        QCOMPARE(l.hitTest((l.forwardCenter(0) + l.backwardCenter(0)) / 2), -1LL);
        QCOMPARE(l.hitTest(QPointF(area.left() - 50, area.top() - 50)), -1LL);
        // Labels never crowd: the labelled nodes are far enough apart.
        if (l.labelEvery > 0)
            QVERIFY(l.labelEvery * l.pitch >= ScheduleLayout::kMinLabelSpacing &&
                    l.pitch >= ScheduleLayout::kMinLabelPitch);
    }

    void labelsThinOutWhenNodesGetSmall() {
        const QRectF area(0, 0, 420, 260);
        const ScheduleLayout small = ScheduleLayout::make(9, area);
        const ScheduleLayout large = ScheduleLayout::make(513, area);
        QCOMPARE(small.labelEvery, 1);
        QVERIFY(large.labelEvery > 1 || large.labelEvery == 0);
        QVERIFY(small.showsLabel(8));
        QVERIFY(large.pitch < small.pitch);
    }

    void skipEdgesArcAwayFromTheOtherRow_data();
    void skipEdgesArcAwayFromTheOtherRow();

    void shortChainsDoNotBlowUp() {
        const ScheduleLayout l = ScheduleLayout::make(5, QRectF(0, 0, 2000, 1000));
        QCOMPARE(l.pitch, ScheduleLayout::kMaxPitch);
        QCOMPARE(l.bands, 1);
    }
};

void TestScheduleLayout::skipEdgesArcAwayFromTheOtherRow_data() {
    QTest::addColumn<QSizeF>("size");
    QTest::addRow("one band") << QSizeF(1400, 150);
    QTest::addRow("wrapped") << QSizeF(360, 700);
}

// Every dependency of the U-Net has an arrow: neighbours straight, skip
// connections arcing above the forward row (below the backward row), also
// between bands of a wrapped picture.
void TestScheduleLayout::skipEdgesArcAwayFromTheOtherRow() {
    QFETCH(QSizeF, size);
    const Model model = remat::loadModelFile(qEnvironmentVariable("REMAT_SOURCE_DIR").toStdString() +
                                             "/resources/models/unet-batch8.json")
                            .model;
    QVERIFY(!model.isChain());
    const ScheduleLayout l = ScheduleLayout::make(model.forwardCount(), QRectF(QPointF(0, 0), size));
    int skips = 0, crossings = 0;
    for (NodeId to = 0; to < NodeId(model.nodeCount()); ++to)
        for (const NodeId from : model.reads(to)) {
            const ScheduleLayout::Edge e = l.edge(model, from, to);
            const int i = model.indexOf(from), j = model.indexOf(to);
            if (l.band(i) != l.band(j)) {
                QVERIFY(e.crossesBands);
                // Skips are drawn across bands; a chain link to the next band is not.
                QCOMPARE(e.drawn, std::abs(i - j) > 1);
                QVERIFY(!e.drawn || !e.straight);
                crossings += e.drawn ? 1 : 0;
                continue;
            }
            const bool sameRow = model.isBackward(from) == model.isBackward(to);
            if (!sameRow || std::abs(i - j) <= 1) {
                QVERIFY(e.straight);
                continue;
            }
            ++skips;
            QVERIFY(!e.straight);
            const double row = l.center(model, to).y();
            const double apex = (e.start.y() + 3 * e.control1.y() + 3 * e.control2.y() + e.end.y()) / 8;
            if (model.isBackward(to))
                QVERIFY2(apex > row + l.radius, "backward skips arc below the backward row");
            else
                QVERIFY2(apex < row - l.radius, "forward skips arc above the forward row");
        }
    if (l.bands == 1)
        QVERIFY2(skips == 8, "the U-Net's four long skips appear in both rows"); // 4 forward + 4 backward
    else
        QVERIFY(crossings > 0);
}

QTEST_GUILESS_MAIN(TestScheduleLayout)
#include "test_schedule_layout.moc"
