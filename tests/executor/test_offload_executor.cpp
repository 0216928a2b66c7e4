// Offload schedules run for real on the CPU backends: the device arena's and
// the host arena's high-water marks are the simulator's device and host
// peaks, op by op, and the gradients are store-all's bit for bit; a schedule
// that breaks the offload rules is refused before anything is allocated.
#include "core/errors.h"
#include "core/executor/cpu_backend.h"
#include "core/executor/executor.h"
#include "core/executor/network.h"
#include "core/executor/transformer_backend.h"
#include "core/simulator.h"
#include "core/strategy_registry.h"
#include "step_helpers.h"

#include <QtTest>
#include <cmath>
#include <memory>

using namespace remat;
using namespace remat::exec;

namespace {

// A machine on which a layer's forward takes 1 ms and a node crosses the
// link in `copyMs` ms.
Machine machineFor(const Model &model, double copyMs) {
    Machine m;
    m.secondsPerCost = 1e-3 / model.cost(model.forwardNode(1));
    m.link.bytesPerSecond = static_cast<double>(model.bytes(model.inputNode())) / (copyMs * 1e-3);
    return m;
}

// `budgetPercent` of the way from offload-all's device peak to store-all's
// (0: none, only offload-all is planned).
Schedule plan(const Model &model, const std::string &strategy, const Machine &machine, int budgetPercent) {
    StrategyParams params;
    params.machine = machine;
    if (strategy == "offload-budget") {
        StrategyParams all = params;
        const Schedule offloadAll = StrategyRegistry::builtin().get("offload-all").makeSchedule(model, all);
        const std::int64_t low = Simulator::summarize(model, offloadAll, machine).peakBytes;
        const Schedule storeAll = StrategyRegistry::builtin().get("store-all").makeSchedule(model, {});
        const std::int64_t high = Simulator::summarize(model, storeAll).peakBytes;
        params.budgetBytes = low + (high - low) * budgetPercent / 100;
    }
    return StrategyRegistry::builtin().get(strategy).makeSchedule(model, params);
}

// The step's memory beside the simulator's timed replay of the same
// schedule: "" when every op's device bytes (during it) and host bytes
// (after it) and both peaks agree and the gradients are store-all's, else
// the first difference.
QString compareWithReplay(Backend &backend, const std::shared_ptr<const Model> &model, const Schedule &schedule,
                          const Machine &machine) {
    const Replay replay = Simulator::replay(model, std::make_shared<const Schedule>(schedule), machine);
    Executor executor(backend, *model, schedule, machine);
    StepOptions traced;
    traced.recordTrace = true;
    const StepRecord r = executor.runStep(traced);
    const Timeline &tl = replay.timeline;
    if (static_cast<std::int64_t>(r.trace.during.size()) != tl.steps())
        return QString("trace has %1 ops, the schedule %2").arg(r.trace.during.size()).arg(tl.steps());
    for (std::int64_t t = 0; t < tl.steps(); ++t) {
        const auto u = static_cast<std::size_t>(t);
        const QString op = QString::fromStdString(schedule.strategy + " op " + std::to_string(t) + " (" +
                                                  describe(*model, tl.op(t)) + ")");
        if (r.trace.during[u] != tl.bytesAt(t))
            return op + QString(": device %1, predicted %2").arg(r.trace.during[u]).arg(tl.bytesAt(t));
        if (r.trace.host[u] != tl.hostBytesAt(t))
            return op + QString(": host %1, predicted %2").arg(r.trace.host[u]).arg(tl.hostBytesAt(t));
    }
    // A plain step (no per-op peak resets) reaches the same high-water marks.
    const StepRecord plain = executor.runStep();
    if (plain.memory.peakBytes != replay.summary.peakBytes || r.memory.peakBytes != replay.summary.peakBytes)
        return QString("device peak %1 (traced %2), predicted %3")
            .arg(plain.memory.peakBytes)
            .arg(r.memory.peakBytes)
            .arg(replay.summary.peakBytes);
    if (plain.memory.hostPeakBytes != replay.summary.peakHostBytes)
        return QString("host peak %1, predicted %2").arg(plain.memory.hostPeakBytes).arg(replay.summary.peakHostBytes);
    if (plain.memory.hostLiveBytes != 0)
        return QString("%1 host bytes left at the end of the step").arg(plain.memory.hostLiveBytes);
    // The step's gradients, then store-all's on the same backend: bit for bit.
    Gradients offloaded;
    backend.readGradients(offloaded);
    const Gradients reference =
        testing::runOnce(backend, *model, StrategyRegistry::builtin().get("store-all").makeSchedule(*model, {}));
    if (!offloaded.bitwiseEqual(reference))
        return QString("gradients differ from store-all's by up to %1").arg(offloaded.maxAbsDiff(reference));
    return {};
}

} // namespace

class TestOffloadExecutor : public QObject {
    Q_OBJECT
private slots:
    void mlpPeaksAndGradients_data() {
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("width");
        QTest::addColumn<int>("batch");
        QTest::addColumn<QString>("strategy");
        QTest::addColumn<double>("copyMs");
        QTest::addColumn<int>("budgetPercent");
        QTest::newRow("offload-all n=1") << 1 << 4 << 2 << "offload-all" << 0.5 << 0;
        QTest::newRow("offload-all n=3") << 3 << 8 << 3 << "offload-all" << 0.5 << 0;
        QTest::newRow("offload-all n=12 w=33 b=5") << 12 << 33 << 5 << "offload-all" << 3.0 << 0;
        QTest::newRow("offload-all n=30 w=8 b=20") << 30 << 8 << 20 << "offload-all" << 0.1 << 0;
        QTest::newRow("offload-budget n=8 fast 0%") << 8 << 16 << 4 << "offload-budget" << 0.1 << 0;
        QTest::newRow("offload-budget n=8 fast 30%") << 8 << 16 << 4 << "offload-budget" << 0.1 << 30;
        QTest::newRow("offload-budget n=16 slow 20%") << 16 << 12 << 6 << "offload-budget" << 2.5 << 20;
        QTest::newRow("offload-budget n=20 fast 50%") << 20 << 8 << 8 << "offload-budget" << 0.2 << 50;
        QTest::newRow("offload-budget n=20 fast 90%") << 20 << 8 << 8 << "offload-budget" << 0.2 << 90;
    }
    void mlpPeaksAndGradients() {
        QFETCH(int, n);
        QFETCH(int, width);
        QFETCH(int, batch);
        QFETCH(QString, strategy);
        QFETCH(double, copyMs);
        QFETCH(int, budgetPercent);
        const auto params = std::make_shared<const NetworkParameters>(NetworkParameters::generate({n, width, batch}));
        const auto model = std::make_shared<const Model>(networkModel(params->shape));
        const Machine machine = machineFor(*model, copyMs);
        const Schedule schedule = plan(*model, strategy.toStdString(), machine, budgetPercent);
        CpuBackend backend(params);
        const QString mismatch = compareWithReplay(backend, model, schedule, machine);
        QVERIFY2(mismatch.isEmpty(), qPrintable(mismatch));
    }

    // Not vacuous: with a fast link and a budget below store-all's peak the
    // planner does offload, and the host arena holds what it sends.
    void budgetPlanOffloads() {
        const auto params = std::make_shared<const NetworkParameters>(NetworkParameters::generate({20, 8, 8}));
        const Model model = networkModel(params->shape);
        const Machine machine = machineFor(model, 0.2);
        const Schedule s = plan(model, "offload-budget", machine, 50);
        QVERIFY(hasTransfers(s));
        CpuBackend backend(params);
        const Measurement m = measure(backend, model, s, MeasureOptions{2}, {}, machine);
        QVERIFY(m.predicted.peakHostBytes > 0);
        QCOMPARE(m.measuredHostPeakBytes, m.predicted.peakHostBytes);
        QCOMPARE(m.measuredPeakBytes, m.predicted.peakBytes);
        const Summary storeAll =
            Simulator::summarize(model, StrategyRegistry::builtin().get("store-all").makeSchedule(model, {}));
        QVERIFY(m.measuredPeakBytes < storeAll.peakBytes);
    }

    // The transformer's layers save internals (they stay on the device); its
    // outputs move, and the arenas still agree with the simulator.
    void transformerPeaksAndGradients_data() {
        QTest::addColumn<QString>("strategy");
        QTest::addColumn<int>("budgetPercent");
        QTest::newRow("offload-all") << "offload-all" << 0;
        QTest::newRow("offload-budget 40%") << "offload-budget" << 40;
    }
    void transformerPeaksAndGradients() {
        QFETCH(QString, strategy);
        QFETCH(int, budgetPercent);
        TransformerShape shape;
        shape.layers = 5;
        shape.hidden = 16;
        shape.heads = 2;
        shape.seq = 6;
        shape.batch = 3;
        const auto params =
            std::make_shared<const TransformerParameters>(TransformerParameters::generate(shape));
        const auto model = std::make_shared<const Model>(transformerModel(shape));
        const Machine machine = machineFor(*model, 0.05);
        const Schedule schedule = plan(*model, strategy.toStdString(), machine, budgetPercent);
        QVERIFY(hasTransfers(schedule));
        TransformerCpuBackend backend(params);
        const QString mismatch = compareWithReplay(backend, model, schedule, machine);
        QVERIFY2(mismatch.isEmpty(), qPrintable(mismatch));
    }

    // Without a machine the executor validates on an instant link: the same
    // memory, since memory is counted in schedule order.
    void memoryDoesNotDependOnTheLink() {
        const auto params = std::make_shared<const NetworkParameters>(NetworkParameters::generate({9, 8, 4}));
        const Model model = networkModel(params->shape);
        const Schedule s = plan(model, "offload-all", machineFor(model, 5.0), 0);
        CpuBackend backend(params);
        Executor slow(backend, model, s, machineFor(model, 5.0));
        Executor instant(backend, model, s);
        QCOMPARE(instant.predicted().peakBytes, slow.predicted().peakBytes);
        QCOMPARE(instant.predicted().peakHostBytes, slow.predicted().peakHostBytes);
        QVERIFY(slow.predicted().stallSeconds > 0);
        const StepRecord r = instant.runStep();
        QCOMPARE(r.memory.peakBytes, slow.predicted().peakBytes);
        QCOMPARE(r.memory.hostPeakBytes, slow.predicted().peakHostBytes);
    }

    // Schedules that break the offload rules are refused with the simulator's
    // typed error naming the op, before a single buffer exists.
    void malformedOffloadSchedulesAreRefused_data() {
        QTest::addColumn<int>("kind");
        QTest::addColumn<QString>("message");
        QTest::newRow("prefetch without offload") << 0 << "has no host copy";
        QTest::newRow("read while on host") << 1 << "which is on host";
        QTest::newRow("free while on host") << 2 << "is on host, not on the device";
        QTest::newRow("host copy never brought back") << 3 << "still has a host copy";
    }
    void malformedOffloadSchedulesAreRefused() {
        QFETCH(int, kind);
        QFETCH(QString, message);
        const auto params = std::make_shared<const NetworkParameters>(NetworkParameters::generate({3, 8, 2}));
        const Model model = networkModel(params->shape);
        const NodeId a1 = model.forwardNode(1), a2 = model.forwardNode(2), a3 = model.forwardNode(3);
        Schedule bad;
        bad.strategy = "hand-written";
        bad.ops = {Op::compute(a1)};
        if (kind == 0)
            bad.ops.push_back(Op::prefetch(a1));
        else
            bad.ops.insert(bad.ops.end(), {Op::offload(a1), Op::free(a1)});
        if (kind == 1)
            bad.ops.push_back(Op::compute(a2));
        if (kind == 2)
            bad.ops.push_back(Op::free(a1));
        if (kind == 3) { // every gradient computed, but a_1's host copy is never brought back
            bad.ops = {Op::compute(a1), Op::compute(a2), Op::offload(a1), Op::compute(a3)};
            for (int i = 3; i >= 0; --i)
                bad.ops.push_back(Op::compute(model.backwardNode(i)));
        }
        CpuBackend backend(params);
        try {
            Executor executor(backend, model, bad, machineFor(model, 1.0));
            QFAIL("expected InvalidSchedule");
        } catch (const InvalidSchedule &e) {
            QVERIFY2(QString(e.what()).contains(message), e.what());
        }
        QCOMPARE(backend.counters().allocations, std::int64_t{0});
        QCOMPARE(backend.counters().hostPeakBytes, std::int64_t{0});
    }
};

QTEST_APPLESS_MAIN(TestOffloadExecutor)
#include "test_offload_executor.moc"
