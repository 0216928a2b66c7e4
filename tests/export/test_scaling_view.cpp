// The scaling view's numbers: the simulator's peak memory and forward
// evaluations on chains n = 4 ... 4096 give the seed notes' growth laws as
// fitted log-log slopes, and the dialog shows them after computing off the
// GUI thread (and stops on Cancel).
#include "app/studio/scaling_view.h"
#include "tests/studio/studio_test_main.h"

#include "core/errors.h"

#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>

#include <chrono>

using namespace remat::studio;

class TestScalingView : public QObject {
    Q_OBJECT
private slots:
    void seedLaws_data();
    void seedLaws();
    void cancelStops();
    void dialogShowsSlopes();
};

void TestScalingView::seedLaws_data() {
    QTest::addColumn<QString>("strategy");
    QTest::addColumn<double>("memory");
    QTest::addColumn<double>("compute");
    QTest::newRow("store-all: O(n) memory, O(n) compute") << "store-all" << 1.0 << 1.0;
    QTest::newRow("recompute-all: O(1) memory, O(n^2) compute") << "recompute-all" << 0.0 << 2.0;
    QTest::newRow("periodic: O(sqrt n) memory, O(n) compute") << "periodic" << 0.5 << 1.0;
}

void TestScalingView::seedLaws() {
    QFETCH(QString, strategy);
    QFETCH(double, memory);
    QFETCH(double, compute);
    static const std::vector<ScalingSeries> all = computeScaling(doublings(4, 4096));
    const auto it = std::find_if(all.begin(), all.end(),
                                 [&](const ScalingSeries &s) { return s.strategy == strategy.toStdString(); });
    QVERIFY(it != all.end());
    QCOMPARE(it->n.size(), std::size_t{11});
    QVERIFY2(it->stoppedAt.empty(), it->stoppedAt.c_str());
    QVERIFY2(std::abs(it->memorySlope - memory) < 0.12, qPrintable(QString::number(it->memorySlope)));
    QVERIFY2(std::abs(it->computeSlope - compute) < 0.12, qPrintable(QString::number(it->computeSlope)));
}

void TestScalingView::cancelStops() {
    int calls = 0;
    QVERIFY_THROWS_EXCEPTION(remat::Cancelled,
                             computeScaling(
                                 doublings(4, 4096), [&](int, int) { ++calls; }, [&] { return calls >= 3; }));
    QCOMPARE(calls, 3);
}

void TestScalingView::dialogShowsSlopes() {
    const int lastN = qEnvironmentVariableIsSet("REMAT_SCALING_PNG") ? 4096 : 256;
    ScalingDialog dialog(nullptr, lastN);
    QSignalSpy computed(&dialog, &ScalingDialog::computed);
    QVERIFY(computed.wait(60000));
    QCOMPARE(computed.first().first().toBool(), true);
    QTableWidget *table = dialog.slopes();
    QCOMPARE(table->rowCount(), static_cast<int>(dialog.chart()->series().size()));
    // The table prints the chart's fitted slopes, row by row.
    for (int r = 0; r < table->rowCount(); ++r) {
        const ScalingSeries &s = dialog.chart()->series()[static_cast<std::size_t>(r)];
        QCOMPARE(table->item(r, 0)->text(), QString::fromStdString(s.strategy));
        QCOMPARE(table->item(r, 1)->text(), QString::number(s.memorySlope, 'f', 2));
        QCOMPARE(table->item(r, 3)->text(), QString::number(s.computeSlope, 'f', 2));
        QCOMPARE(s.n.back(), static_cast<double>(lastN));
    }
    QVERIFY(table->rowCount() >= 3);
    dialog.chart()->resize(1000, 450);
    const QImage image = dialog.chart()->grab().toImage(); // paints without a window system
    QCOMPARE(image.size(), dialog.chart()->size());
    if (const QString out = qEnvironmentVariable("REMAT_SCALING_PNG"); !out.isEmpty())
        QVERIFY(image.save(out)); // for docs: a picture of the chart
}

int main(int argc, char **argv) {
    TestScalingView test; // settings in test mode, away from the user's
    return remat::testing::runStudioTest(test, "test_scaling_view", argc, argv);
}
#include "test_scaling_view.moc"
