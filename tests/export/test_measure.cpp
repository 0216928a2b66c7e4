// Measure in the studio: the panes' strategies run on the CPU execution core
// report measured peaks equal to the simulator's prediction and gradients
// equal to store-all's; a pane that cannot run keeps its error; oversized
// networks are refused before allocating; Cancel stops between strategies.
#include "app/studio/measure_dialog.h"

#include "core/errors.h"

#include <QLabel>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>

using namespace remat;
using namespace remat::studio;

namespace {

PaneConfig config(const std::string &strategy, std::optional<int> every = std::nullopt) {
    PaneConfig c;
    c.strategy = strategy;
    c.params.every = every;
    return c;
}

std::vector<PaneConfig> seed() { return {config("store-all"), config("recompute-all"), config("periodic", 4)}; }

} // namespace

class TestMeasure : public QObject {
    Q_OBJECT
private slots:
    void measuredPeaksEqualPredicted_data();
    void measuredPeaksEqualPredicted();
    void badPaneKeepsItsError();
    void oversizedNetworkIsRefused();
    void cancelStopsBetweenStrategies();
    void cudaWithoutADeviceSaysWhy();
    void dialogShowsMeasuredBesidePredicted();
};

void TestMeasure::measuredPeaksEqualPredicted_data() {
    QTest::addColumn<int>("layers");
    QTest::addColumn<int>("width");
    QTest::addColumn<int>("batch");
    QTest::newRow("n=16 32x8") << 16 << 32 << 8;
    QTest::newRow("n=9 17x3") << 9 << 17 << 3;
}

void TestMeasure::measuredPeaksEqualPredicted() {
    QFETCH(int, layers);
    QFETCH(int, width);
    QFETCH(int, batch);
    int calls = 0;
    const MeasureReport report = measurePanes(seed(), layers, {"cpu", width, batch, 1}, [&](int, int total) {
        ++calls;
        QCOMPARE(total, 3);
    });
    QCOMPARE(calls, 3);
    QCOMPARE(report.backend, std::string("cpu"));
    QCOMPARE(report.panes.size(), std::size_t{3});
    const std::int64_t node = std::int64_t{width} * batch * 4;
    for (const MeasuredPane &p : report.panes) {
        QVERIFY2(p.ok(), p.error.c_str());
        QVERIFY2(p.peakMatches(), qPrintable(QStringLiteral("%1: measured %2 predicted %3")
                                                 .arg(QString::fromStdString(p.strategy))
                                                 .arg(p.measuredPeakBytes)
                                                 .arg(p.predicted.peakBytes)));
        QVERIFY(p.gradientsBitwiseEqual);
        QVERIFY(p.secondsPerStep > 0);
        QVERIFY(p.predicted.peakBytes >= 3 * node); // at least a_0, one node and its gradient
    }
    // Recompute-all holds less than store-all on the real network too.
    QVERIFY(report.panes[1].measuredPeakBytes < report.panes[0].measuredPeakBytes);
}

void TestMeasure::badPaneKeepsItsError() {
    const MeasureReport report =
        measurePanes({config("periodic", 99), config("store-all")}, 8, {"cpu", 16, 4, 1});
    QVERIFY(!report.panes[0].ok());
    QVERIFY2(QString::fromStdString(report.panes[0].error).contains("99"), report.panes[0].error.c_str());
    QVERIFY(report.panes[1].ok());
    QVERIFY(report.panes[1].peakMatches());
}

void TestMeasure::oversizedNetworkIsRefused() {
    try {
        measurePanes(seed(), 64, {"cpu", exec::NetworkShape::kMaxWidth, 1 << 16, 1});
        QFAIL("a network of terabytes was accepted");
    } catch (const LimitExceeded &e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains("choose a smaller width or batch"), e.what());
    }
}

void TestMeasure::cancelStopsBetweenStrategies() {
    int done = 0;
    QVERIFY_THROWS_EXCEPTION(Cancelled, measurePanes(seed(), 16, {"cpu", 16, 4, 1}, [&](int d, int) { done = d; },
                                                     [&] { return done >= 1; }));
    QCOMPARE(done, 1);
}

void TestMeasure::cudaWithoutADeviceSaysWhy() {
    const std::optional<QString> why = cudaUnavailable();
    if (!why)
        QSKIP("a CUDA device is available here");
    QVERIFY2(why->startsWith("CUDA not available: "), qPrintable(*why));
    MeasureSettings settings{"cuda", 16, 4, 1};
    try {
        measurePanes(seed(), 8, settings);
        QFAIL("measured on CUDA without a device");
    } catch (const DeviceUnavailable &e) {
        QCOMPARE(QString::fromUtf8(e.what()), *why);
    }
    // The dialog offers CUDA disabled, with the reason beside it.
    MeasureDialog dialog(seed(), 8);
    auto *note = dialog.findChild<QLabel *>(QStringLiteral("backendNote"));
    QVERIFY(note);
    QCOMPARE(note->text(), *why);
}

void TestMeasure::dialogShowsMeasuredBesidePredicted() {
    MeasureDialog dialog(seed(), 12);
    QSignalSpy measured(&dialog, &MeasureDialog::measured);
    QVERIFY(dialog.start());
    QVERIFY(measured.wait(60000));
    QCOMPARE(measured.first().first().toBool(), true);
    QTableWidget *t = dialog.results();
    QCOMPARE(t->rowCount(), 3);
    for (int r = 0; r < 3; ++r) {
        QCOMPARE(t->item(r, MeasureDialog::Measured)->text(), t->item(r, MeasureDialog::Predicted)->text());
        QCOMPARE(t->item(r, MeasureDialog::GradientCheck)->text(), QStringLiteral("\u2713"));
    }
    QVERIFY2(dialog.statusText().contains("every peak as predicted"), qPrintable(dialog.statusText()));
}

QTEST_MAIN(TestMeasure)
#include "test_measure.moc"
