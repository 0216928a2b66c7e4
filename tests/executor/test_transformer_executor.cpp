// The transformer network through the executor: for every strategy the bytes
// the CPU backend holds, op by op, are the simulator's timeline of
// transformerModel(), and every strategy's gradients are store-all's bit for
// bit (per-layer checkpointing re-runs each layer recording).
#include "core/errors.h"
#include "core/executor/executor.h"
#include "core/executor/transformer_backend.h"
#include "core/model_io.h"
#include "core/simulator.h"
#include "core/strategy_registry.h"
#include "step_helpers.h"

#include <QtTest>
#include <memory>

using namespace remat;
using namespace remat::exec;
using testing::allSchedules;
using testing::traceStep;
using testing::TracedStep;
using testing::Planned;
using testing::runOnce;

namespace {

TransformerShape makeShape(int layers, int h, int heads, int seq, int batch) {
    TransformerShape s;
    s.layers = layers;
    s.hidden = h;
    s.heads = heads;
    s.seq = seq;
    s.batch = batch;
    return s;
}

std::shared_ptr<const TransformerParameters> parametersOf(const TransformerShape &s) {
    return std::make_shared<const TransformerParameters>(TransformerParameters::generate(s));
}

} // namespace

class TestTransformerExecutor : public QObject {
    Q_OBJECT

private slots:
    void shapes_data() {
        QTest::addColumn<int>("layers");
        QTest::addColumn<int>("hidden");
        QTest::addColumn<int>("heads");
        QTest::addColumn<int>("seq");
        QTest::addColumn<int>("batch");
        QTest::newRow("L2 h8 a2 s5 b3") << 2 << 8 << 2 << 5 << 3;
        QTest::newRow("L7 h12 a3 s7 b1") << 7 << 12 << 3 << 7 << 1;
        QTest::newRow("L10 h16 a4 s9 b2") << 10 << 16 << 4 << 9 << 2;
    }

    void measuredTraceEqualsTimeline_data() { shapes_data(); }
    void measuredTraceEqualsTimeline() {
        QFETCH(int, layers);
        QFETCH(int, hidden);
        QFETCH(int, heads);
        QFETCH(int, seq);
        QFETCH(int, batch);
        const auto params = parametersOf(makeShape(layers, hidden, heads, seq, batch));
        const auto model = std::make_shared<const Model>(transformerModel(params->shape));
        QVERIFY(model->hasSavedBytes());
        TransformerCpuBackend backend(params);
        for (const Planned &p : allSchedules(*model)) {
            const TracedStep step = traceStep(backend, model, p.schedule);
            QVERIFY2(step.mismatch.empty(), step.mismatch.c_str());
            const StepRecord &r = step.record;
            QCOMPARE(r.memory.peakBytes, step.replay.summary.peakBytes);
            // The schedule ends with a_0 and b_0 resident and nothing else: every saved buffer was released.
            QCOMPARE(r.memory.liveBytes, 2 * params->shape.nodeBytes());
        }
    }

    void gradientsBitwiseEqualStoreAll_data() { shapes_data(); }
    void gradientsBitwiseEqualStoreAll() {
        QFETCH(int, layers);
        QFETCH(int, hidden);
        QFETCH(int, heads);
        QFETCH(int, seq);
        QFETCH(int, batch);
        const auto params = parametersOf(makeShape(layers, hidden, heads, seq, batch));
        const Model model = transformerModel(params->shape);
        TransformerCpuBackend backend(params);
        const Gradients reference =
            runOnce(backend, model, StrategyRegistry::builtin().get("store-all").makeSchedule(model, {}));
        auto schedules = allSchedules(model);
        StrategyParams everyLayer;
        everyLayer.every = 1;
        schedules.push_back(
            {"periodic --every 1", StrategyRegistry::builtin().get("periodic").makeSchedule(model, everyLayer)});
        for (const Planned &p : schedules) {
            const Gradients g = runOnce(backend, model, p.schedule);
            QVERIFY2(g.bitwiseEqual(reference), qPrintable(QString::fromStdString(p.strategy) +
                                                           QString(": max |diff| %1").arg(g.maxAbsDiff(reference))));
        }
        double largest = 0;
        for (float v : reference.weights)
            largest = std::max(largest, double{std::fabs(v)});
        QVERIFY(largest > 0); // the comparison compared real gradients
    }

    // Seed 002's per-layer checkpointing: each layer runs twice (discarding,
    // then recording right before its backward) and holds one layer's
    // internals at a time; store-all holds all of them.
    void perLayerCheckpointingHoldsOneLayersInternals() {
        const auto params = parametersOf(makeShape(6, 16, 2, 8, 2));
        const Model model = transformerModel(params->shape);
        TransformerCpuBackend backend(params);
        StrategyParams everyLayer;
        everyLayer.every = 1;
        const Schedule perLayer = StrategyRegistry::builtin().get("periodic").makeSchedule(model, everyLayer);
        const Schedule storeAll = StrategyRegistry::builtin().get("store-all").makeSchedule(model, {});
        StepRecord a, b;
        runOnce(backend, model, perLayer, &a);
        runOnce(backend, model, storeAll, &b);
        const std::int64_t saved = savedBytes(params->shape), node = params->shape.nodeBytes();
        QVERIFY(b.memory.peakBytes >= 6 * (saved + node));
        QVERIFY2(a.memory.peakBytes < b.memory.peakBytes - 4 * saved,
                 qPrintable(QString("per-layer %1, store-all %2").arg(a.memory.peakBytes).arg(b.memory.peakBytes)));
        // Every layer twice but the last, which records in the first pass: its backward comes next.
        QCOMPARE(Simulator::summarize(model, perLayer).forwardEvaluations, 11);
    }

    void foreignModelIsRejected() {
        const auto params = parametersOf(makeShape(3, 8, 2, 4, 2));
        TransformerCpuBackend backend(params);
        TransformerShape other = params->shape;
        other.seq = 5;
        const Model wrong = transformerModel(other);
        const Schedule s = StrategyRegistry::builtin().get("store-all").makeSchedule(wrong, {});
        QVERIFY_THROWS_EXCEPTION(InvalidArgument, Executor(backend, wrong, s));
    }

    // The shipped example is this network's model, node for node, so the
    // studio can run exactly what the file says.
    void exampleModelFileIsTheNetwork() {
        const ModelFile file = loadModelFile(qEnvironmentVariable("REMAT_SOURCE_DIR").toStdString() +
                                             "/resources/models/transformer-12x256-cpu.json");
        const Model expected = transformerModel(makeShape(12, 256, 4, 128, 4));
        QCOMPARE(file.model.nodeCount(), expected.nodeCount());
        QVERIFY(file.model.isChain());
        for (NodeId id = 0; id < static_cast<NodeId>(expected.nodeCount()); ++id) {
            QCOMPARE(file.model.bytes(id), expected.bytes(id));
            QCOMPARE(file.model.workspace(id), expected.workspace(id));
            QCOMPARE(file.model.cost(id), expected.cost(id));
        }
        for (int i = 0; i <= expected.layers(); ++i)
            QCOMPARE(file.model.savedBytes(i), expected.savedBytes(i));
    }
};

QTEST_GUILESS_MAIN(TestTransformerExecutor)
#include "test_transformer_executor.moc"
