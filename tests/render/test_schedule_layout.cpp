// The schedule picture's geometry: the classic layout (forward row on top,
// a_0 top left, b_i under a_i, loss side bottom right), no overlaps from
// n = 4 to 512, hit testing, and label thinning.
#include "app/render/schedule_layout.h"

#include <QtTest>

#include <cmath>

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
            QCOMPARE(b.x(), f.x());                                     // b_i right under a_i
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
            QVERIFY(l.labelEvery * l.pitch >= ScheduleLayout::kMinLabelSpacing && l.pitch >= ScheduleLayout::kMinLabelPitch);
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

    void shortChainsDoNotBlowUp() {
        const ScheduleLayout l = ScheduleLayout::make(5, QRectF(0, 0, 2000, 1000));
        QCOMPARE(l.pitch, ScheduleLayout::kMaxPitch);
        QCOMPARE(l.bands, 1);
    }
};

QTEST_GUILESS_MAIN(TestScheduleLayout)
#include "test_schedule_layout.moc"
