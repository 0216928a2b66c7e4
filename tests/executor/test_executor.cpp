// The executor runs real schedules on the Eigen CPU backend: the memory it
// measures is the memory the simulator predicts, byte for byte, and every
// strategy produces the very gradients of store-all.
#include "core/errors.h"
#include "core/executor/cpu_backend.h"
#include "core/executor/executor.h"
#include "core/executor/network.h"
#include "core/simulator.h"
#include "core/strategy_registry.h"
#include "step_helpers.h"

#include <QtTest>
#include <algorithm>
#include <cmath>
#include <memory>

using namespace remat;
using namespace remat::exec;

namespace {

StrategyParams periodicEvery(int k) {
    StrategyParams p;
    p.every = k;
    return p;
}

using testing::allSchedules;
using testing::Planned;
using testing::runOnce;
using testing::TracedStep;
using testing::traceStep;

// The network in double precision with plain loops: the definition of
// network.h written out, independent of Eigen and of any schedule.
Gradients referenceGradients(const NetworkParameters &p) {
    const int n = p.shape.layers, w = p.shape.width, b = p.shape.batch;
    const auto at = [w](int row, int col) { return static_cast<std::size_t>(row) + static_cast<std::size_t>(col) * w; };
    std::vector<std::vector<double>> a(n + 1, std::vector<double>(p.input.begin(), p.input.end()));
    for (int i = 1; i <= n; ++i) {
        const float *W = p.weight(i);
        for (int r = 0; r < w; ++r)
            for (int c = 0; c < b; ++c) {
                double sum = p.bias(i)[r];
                for (int k = 0; k < w; ++k)
                    sum += static_cast<double>(W[at(r, k)]) * std::tanh(a[i - 1][at(k, c)]);
                a[i][at(r, c)] = sum;
            }
    }
    std::vector<double> g(a[n].size());
    for (std::size_t k = 0; k < g.size(); ++k)
        g[k] = a[n][k] - p.target[k];
    Gradients out;
    out.weights.assign(p.weights.size(), 0);
    out.biases.assign(p.biases.size(), 0);
    for (int layer = n; layer >= 1; --layer) {
        const float *W = p.weight(layer);
        const std::vector<double> &in = a[layer - 1];
        for (int r = 0; r < w; ++r) {
            double bias = 0;
            for (int c = 0; c < b; ++c)
                bias += g[at(r, c)];
            out.biases[static_cast<std::size_t>(layer - 1) * w + r] = static_cast<float>(bias);
            for (int k = 0; k < w; ++k) {
                double sum = 0;
                for (int c = 0; c < b; ++c)
                    sum += g[at(r, c)] * std::tanh(in[at(k, c)]);
                out.weights[static_cast<std::size_t>(layer - 1) * w * w + at(r, k)] = static_cast<float>(sum);
            }
        }
        std::vector<double> prev(g.size());
        for (int k = 0; k < w; ++k)
            for (int c = 0; c < b; ++c) {
                double sum = 0;
                for (int r = 0; r < w; ++r)
                    sum += static_cast<double>(W[at(r, k)]) * g[at(r, c)];
                const double t = std::tanh(in[at(k, c)]);
                prev[at(k, c)] = sum * (1 - t * t);
            }
        g = std::move(prev);
    }
    out.input.assign(g.begin(), g.end());
    return out;
}

} // namespace

class TestExecutor : public QObject {
    Q_OBJECT

private slots:
    void networkModelCountsBuffers() {
        const NetworkShape shape{4, 8, 3};
        const Model m = networkModel(shape);
        QCOMPARE(m.layers(), 4);
        QVERIFY(m.isChain());
        for (NodeId id = 0; id < static_cast<NodeId>(m.nodeCount()); ++id)
            QCOMPARE(m.bytes(id), std::int64_t{8 * 3 * 4});
        QCOMPARE(m.workspace(m.forwardNode(0)), std::int64_t{0});
        QCOMPARE(m.workspace(m.forwardNode(2)), std::int64_t{96});
        QCOMPARE(m.workspace(m.backwardNode(4)), std::int64_t{0}); // b_n = a_n - target
        QCOMPARE(m.workspace(m.backwardNode(0)), std::int64_t{96});
    }

    void badShapesAreRejected_data() {
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("width");
        QTest::addColumn<int>("batch");
        QTest::addColumn<QString>("named");
        QTest::newRow("zero layers") << 0 << 4 << 4 << "n (layers)";
        QTest::newRow("zero width") << 3 << 0 << 4 << "width";
        QTest::newRow("negative batch") << 3 << 4 << -2 << "batch";
        QTest::newRow("width too large") << 3 << NetworkShape::kMaxWidth + 1 << 4 << "width";
    }
    void badShapesAreRejected() {
        QFETCH(int, n);
        QFETCH(int, width);
        QFETCH(int, batch);
        QFETCH(QString, named);
        try {
            networkModel(NetworkShape{n, width, batch});
            QFAIL("accepted a bad shape");
        } catch (const InvalidArgument &e) {
            QVERIFY2(QString(e.what()).startsWith(named), e.what());
        }
    }

    // The backward pass is the true gradient of 1/2||a_n - target||^2.
    void gradientsMatchDoublePrecisionReference() {
        const auto params = std::make_shared<const NetworkParameters>(NetworkParameters::generate({3, 5, 4}, 7));
        const Model model = networkModel(params->shape);
        CpuBackend backend(params);
        const Gradients g =
            runOnce(backend, model, StrategyRegistry::builtin().get("store-all").makeSchedule(model, {}));
        const Gradients ref = referenceGradients(*params);
        const double diff = g.maxAbsDiff(ref);
        QVERIFY2(diff < 1e-5, qPrintable(QString("max |diff| = %1").arg(diff)));
        double largest = 0;
        for (float v : ref.weights)
            largest = std::max(largest, std::fabs(static_cast<double>(v)));
        QVERIFY(largest > 1e-2); // the comparison is not vacuous
    }

    void measuredPeakEqualsPredicted_data() {
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("width");
        QTest::addColumn<int>("batch");
        QTest::newRow("n=1") << 1 << 4 << 2;
        QTest::newRow("n=5 w=16 b=7") << 5 << 16 << 7;
        QTest::newRow("n=12 w=33 b=1") << 12 << 33 << 1;
        QTest::newRow("n=30 w=8 b=20") << 30 << 8 << 20;
    }
    void measuredPeakEqualsPredicted() {
        QFETCH(int, n);
        QFETCH(int, width);
        QFETCH(int, batch);
        const auto params = std::make_shared<const NetworkParameters>(NetworkParameters::generate({n, width, batch}));
        const Model model = networkModel(params->shape);
        CpuBackend backend(params);
        for (const Planned &p : allSchedules(model)) {
            const Summary predicted = Simulator::summarize(model, p.schedule);
            StepRecord r;
            runOnce(backend, model, p.schedule, &r);
            QVERIFY2(
                r.memory.peakBytes == predicted.peakBytes,
                qPrintable(QString::fromStdString(p.strategy) +
                           QString(": measured %1, predicted %2").arg(r.memory.peakBytes).arg(predicted.peakBytes)));
            // The schedule ends with a_0 and b_0 resident and nothing else.
            QCOMPARE(r.memory.liveBytes, 2 * params->shape.nodeBytes());
        }
    }

    // The trace op by op is the simulator's timeline, byte for byte: during
    // each op (workspace included) and after it (what stays resident).
    void measuredTraceEqualsTimeline_data() { measuredPeakEqualsPredicted_data(); }
    void measuredTraceEqualsTimeline() {
        QFETCH(int, n);
        QFETCH(int, width);
        QFETCH(int, batch);
        const auto params = std::make_shared<const NetworkParameters>(NetworkParameters::generate({n, width, batch}));
        const auto model = std::make_shared<const Model>(networkModel(params->shape));
        CpuBackend backend(params);
        for (const Planned &p : allSchedules(*model)) {
            const TracedStep step = traceStep(backend, model, p.schedule);
            QVERIFY2(step.mismatch.empty(), step.mismatch.c_str());
            const Timeline &tl = step.replay.timeline;
            const StepRecord &r = step.record;
            const Replay &replay = step.replay;
            QCOMPARE(std::int64_t(r.trace.after.size()), tl.steps());
            for (std::int64_t t = 0; t < tl.steps(); ++t) {
                const auto u = static_cast<std::size_t>(t);
                const StepState state = tl.stateAt(t);
                std::int64_t resident = 0;
                for (NodeId id : state.residentNodes())
                    resident += model->bytes(id);
                QCOMPARE(r.trace.after[u], resident);
            }
            QCOMPARE(r.memory.peakBytes, replay.summary.peakBytes);
        }
    }

    // measure() hands the probe step's trace back, and recording it leaves
    // the timed steps' peak unchanged (they are checked against the probe).
    void measureReturnsTrace() {
        const auto params = std::make_shared<const NetworkParameters>(NetworkParameters::generate({7, 8, 3}));
        const Model model = networkModel(params->shape);
        CpuBackend backend(params);
        const Schedule s = StrategyRegistry::builtin().get("periodic").makeSchedule(model, periodicEvery(3));
        const Measurement m = measure(backend, model, s, MeasureOptions{2});
        QCOMPARE(m.trace.during.size(), s.ops.size());
        QCOMPARE(*std::max_element(m.trace.during.begin(), m.trace.during.end()), m.predicted.peakBytes);
        QCOMPARE(m.measuredPeakBytes, m.predicted.peakBytes);
    }

    // A cancel callback stops a step between ops, inside one strategy; the
    // next step on the same backend starts clean and reaches the same peak.
    void cancelStopsBetweenOps() {
        const auto params = std::make_shared<const NetworkParameters>(NetworkParameters::generate({10, 8, 2}));
        const Model model = networkModel(params->shape);
        CpuBackend backend(params);
        const Schedule s = StrategyRegistry::builtin().get("recompute-all").makeSchedule(model, {});
        Executor executor(backend, model, s);
        int checks = 0;
        StepOptions options;
        options.cancelled = [&checks] { return ++checks > 5; };
        QVERIFY_THROWS_EXCEPTION(Cancelled, executor.runStep(options));
        QCOMPARE(checks, 6); // asked before each op, stopped before the sixth
        const StepRecord r = executor.runStep();
        QCOMPARE(r.memory.peakBytes, executor.predicted().peakBytes);

        int calls = 0;
        const CancelCheck afterOneStep = [&calls, &s] { return ++calls > static_cast<int>(s.ops.size()) + 3; };
        QVERIFY_THROWS_EXCEPTION(Cancelled,
                                 measure(backend, model, s, MeasureOptions{3}, afterOneStep)); // inside the second step
        QVERIFY(calls > static_cast<int>(s.ops.size()));
    }

    void gradientsBitwiseEqualStoreAll_data() {
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("width");
        QTest::addColumn<int>("batch");
        QTest::newRow("n=2") << 2 << 8 << 3;
        QTest::newRow("n=9 w=24 b=5") << 9 << 24 << 5;
        QTest::newRow("n=17 w=16 b=16") << 17 << 16 << 16;
    }
    void gradientsBitwiseEqualStoreAll() {
        QFETCH(int, n);
        QFETCH(int, width);
        QFETCH(int, batch);
        const auto params = std::make_shared<const NetworkParameters>(NetworkParameters::generate({n, width, batch}));
        const Model model = networkModel(params->shape);
        CpuBackend backend(params);
        const auto schedules = allSchedules(model);
        std::size_t runnable = 0;
        for (const Strategy *s : StrategyRegistry::builtin().all())
            runnable += s->usesLink() || s->needsOpLevel() ? 0 : 1;
        QCOMPARE(schedules.size(), runnable);
        const Gradients reference =
            runOnce(backend, model, StrategyRegistry::builtin().get("store-all").makeSchedule(model, {}));
        for (const Planned &p : schedules) {
            const Gradients g = runOnce(backend, model, p.schedule);
            QVERIFY2(g.bitwiseEqual(reference), qPrintable(QString::fromStdString(p.strategy) +
                                                           QString(": max |diff| %1").arg(g.maxAbsDiff(reference))));
        }
    }

    void measureReportsMedianAndPeaks() {
        const auto params = std::make_shared<const NetworkParameters>(NetworkParameters::generate({6, 16, 8}));
        const Model model = networkModel(params->shape);
        CpuBackend backend(params);
        const Schedule s = StrategyRegistry::builtin().get("recompute-all").makeSchedule(model, {});
        const Measurement m = measure(backend, model, s, MeasureOptions{3});
        QCOMPARE(m.seconds.size(), std::size_t{3});
        QVERIFY(m.medianSeconds > 0);
        QCOMPARE(m.measuredPeakBytes, m.predicted.peakBytes);
        QVERIFY(m.predicted.recomputations > 0);
        QVERIFY(m.devicePeakBytes.has_value()); // Linux reports RSS
    }

    void medianOfEvenAndOddCounts() {
        QCOMPARE(median({3.0, 1.0, 2.0}), 2.0);
        QCOMPARE(median({4.0, 1.0, 3.0, 2.0}), 2.5);
    }

    void foreignModelIsRejected() {
        const auto params = std::make_shared<const NetworkParameters>(NetworkParameters::generate({4, 8, 2}));
        CpuBackend backend(params);
        const Model other = Model::chain(4); // 1-byte nodes: not this network
        const Schedule s = StrategyRegistry::builtin().get("store-all").makeSchedule(other, {});
        QVERIFY_THROWS_EXCEPTION(InvalidArgument, Executor(backend, other, s));
    }

    // An invalid schedule is refused by the simulator before a single buffer exists.
    void invalidScheduleAllocatesNothing() {
        const auto params = std::make_shared<const NetworkParameters>(NetworkParameters::generate({4, 8, 2}));
        const Model model = networkModel(params->shape);
        CpuBackend backend(params);
        Schedule bad;
        bad.ops = {Op::compute(model.forwardNode(2))}; // a_1 is not resident
        QVERIFY_THROWS_EXCEPTION(InvalidSchedule, Executor(backend, model, bad));
        QCOMPARE(backend.counters().allocations, std::int64_t{0});
    }

    void parametersAreDeterministic() {
        const auto a = NetworkParameters::generate({3, 8, 4}, 5);
        const auto b = NetworkParameters::generate({3, 8, 4}, 5);
        const auto c = NetworkParameters::generate({3, 8, 4}, 6);
        QCOMPARE(a.weights, b.weights);
        QCOMPARE(a.input, b.input);
        QVERIFY(a.weights != c.weights);
        for (float v : a.weights)
            QVERIFY(std::fabs(v) <= 1.0f / std::sqrt(8.0f));
    }
};

QTEST_GUILESS_MAIN(TestExecutor)
#include "test_executor.moc"
