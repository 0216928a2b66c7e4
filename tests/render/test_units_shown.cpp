// What the chart and the clock call sizes and times: abstract chains count
// nodes (never "18 B"), model files show their bytes and their cost unit, and
// no time reads in exponent form ("2.005e+06").
#include "app/render/memory_chart_painter.h"
#include "core/model_io.h"
#include "core/simulator.h"
#include "core/strategy_registry.h"

#include <QtTest>

using namespace remat;
using namespace remat::render;

namespace {

std::shared_ptr<const Model> example(const char *file) {
    return std::make_shared<const Model>(
        loadModelFile(qEnvironmentVariable("REMAT_SOURCE_DIR").toStdString() + "/resources/models/" + file).model);
}

MemoryChartPainter chartOf(std::shared_ptr<const Model> model) {
    auto schedule =
        std::make_shared<const Schedule>(StrategyRegistry::builtin().get("store-all").makeSchedule(*model, {}));
    const Replay replay = Simulator::replay(model, schedule);
    MemoryChartPainter chart;
    chart.setSeries({{std::make_shared<const Timeline>(replay.timeline), "store-all", replay.summary.peakBytes,
                      replay.summary.peakStep}},
                    TimeAxis::Cost);
    return chart;
}

} // namespace

class TestUnitsShown : public QObject {
    Q_OBJECT
private slots:
    void abstractChainsCountNodes() {
        const MemoryChartPainter chart = chartOf(std::make_shared<const Model>(Model::chain(16)));
        QCOMPARE(chart.peakLabel(0), QString("peak 18 nodes")); // store-all: a_0..a_16 and b_16
        QCOMPARE(QString::fromStdString(timeAxisTitle(TimeAxis::Cost, chart.series()[0].timeline->model())),
                 QString("time (cost: forward op 1, backward op 2)"));
    }

    void modelFilesShowBytesAndTheirCostUnit() {
        const auto model = example("gpt2-small.json");
        const MemoryChartPainter chart = chartOf(model);
        QVERIFY2(chart.peakLabel(0).endsWith("GiB"), qPrintable(chart.peakLabel(0)));
        QCOMPARE(QString::fromStdString(timeAxisTitle(TimeAxis::Cost, *model)), QString("time (GFLOP)"));
        QCOMPARE(QString::fromStdString(timeAxisTitle(TimeAxis::Ops, *model)), QString("time (ops)"));
        const QString end = QString::fromStdString(timeText(chart.maxTime(), TimeAxis::Cost, *model, true));
        QVERIFY2(end.endsWith("FLOP") && !end.contains('e'), qPrintable(end));
    }

    void clocksNeverUseExponents_data() {
        QTest::addColumn<double>("time");
        QTest::newRow("small") << 12.5;
        QTest::newRow("millions") << 2.005e6;
        QTest::newRow("billions") << 3.3e9;
    }
    void clocksNeverUseExponents() {
        QFETCH(double, time);
        const Model chain = Model::chain(4);
        const QString text = QString::fromStdString(timeText(time, TimeAxis::Cost, chain, true));
        QVERIFY2(!text.contains("e+") && !text.contains('e') && text.size() <= 6, qPrintable(text));
    }
};

QTEST_MAIN(TestUnitsShown)
#include "test_units_shown.moc"
