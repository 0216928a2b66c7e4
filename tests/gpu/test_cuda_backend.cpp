// The CUDA backend runs the schedules the CPU backend runs: same counted peak
// as the simulator, bitwise-equal gradients across strategies, and the CPU's
// gradients within the documented tolerance.
#include "cuda_skip.h"

#include "../executor/step_helpers.h"
#include "core/executor/cpu_backend.h"
#include "core/executor/executor.h"
#include "core/strategy_registry.h"

#include <cmath>
#include <memory>

using namespace remat;
using namespace remat::exec;
using testing::runOnce;

namespace {

double largest(const Gradients &g) {
    double m = 0;
    for (const auto *v : {&g.weights, &g.biases, &g.input})
        for (float x : *v)
            m = std::max(m, std::fabs(double{x}));
    return m;
}

} // namespace

class TestCudaBackend : public QObject {
    Q_OBJECT

private slots:
    void init() { REMAT_REQUIRE_CUDA(); }

    void agreesWithCpu_data() {
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("width");
        QTest::addColumn<int>("batch");
        QTest::newRow("n=1") << 1 << 8 << 2;
        QTest::newRow("n=6 w=33 b=7") << 6 << 33 << 7;
        QTest::newRow("n=16 w=256 b=64") << 16 << 256 << 64;
    }
    void agreesWithCpu() {
        QFETCH(int, n);
        QFETCH(int, width);
        QFETCH(int, batch);
        const auto params = std::make_shared<const NetworkParameters>(NetworkParameters::generate({n, width, batch}));
        const Model model = networkModel(params->shape);
        const Schedule s = StrategyRegistry::builtin().get("store-all").makeSchedule(model, {});
        CpuBackend cpu(params);
        const auto cuda = gpu::makeCudaBackend(params);
        const Gradients onCpu = runOnce(cpu, model, s), onCuda = runOnce(*cuda, model, s);
        const double diff = onCuda.maxAbsDiff(onCpu);
        const double allowed = gpu::kCpuAgreementTolerance * std::max(1.0, largest(onCpu));
        QVERIFY2(diff <= allowed, qPrintable(QString("max |diff| %1 > %2").arg(diff).arg(allowed)));
    }

    void strategiesBitwiseEqualAndPeaksExact() {
        const auto params = std::make_shared<const NetworkParameters>(NetworkParameters::generate({12, 64, 32}));
        const Model model = networkModel(params->shape);
        const auto cuda = gpu::makeCudaBackend(params);
        const Gradients reference =
            runOnce(*cuda, model, StrategyRegistry::builtin().get("store-all").makeSchedule(model, {}));
        for (const testing::Planned &p : testing::allSchedules(model)) {
            const Schedule &schedule = p.schedule;
            StepRecord r;
            const Gradients g = runOnce(*cuda, model, schedule, &r);
            const QString name = QString::fromStdString(p.strategy);
            QVERIFY2(g.bitwiseEqual(reference), qPrintable(name));
            const Summary predicted = Simulator::summarize(model, schedule);
            QVERIFY2(r.memory.peakBytes == predicted.peakBytes, qPrintable(name));
            // The pool rounds sizes up at most; it can never hold less than asked.
            QVERIFY(r.memory.allocatorPeakBytes.has_value());
            QVERIFY2(*r.memory.allocatorPeakBytes >= predicted.peakBytes, qPrintable(name));
        }
    }

    void measureProbesDeviceMemory() {
        const auto params = std::make_shared<const NetworkParameters>(NetworkParameters::generate({8, 512, 128}));
        const Model model = networkModel(params->shape);
        const auto cuda = gpu::makeCudaBackend(params);
        const Measurement m =
            measure(*cuda, model, StrategyRegistry::builtin().get("store-all").makeSchedule(model, {}), {3});
        QCOMPARE(m.measuredPeakBytes, m.predicted.peakBytes);
        QVERIFY(m.devicePeakBytes.has_value());
        // The driver maps whole pages for the pool: at least what was used.
        QVERIFY(*m.devicePeakBytes >= m.predicted.peakBytes);
        QCOMPARE(m.seconds.size(), std::size_t{3});
        QVERIFY(m.medianSeconds > 0);
    }

    void outOfMemoryIsAClearError() {
        const gpu::DeviceInfo info = gpu::queryDevice();
        // Weights alone larger than the whole device: refused before allocating.
        NetworkShape huge{1, 1 << 16, 1};
        while (huge.parameterBytes() <= info.totalBytes)
            huge.layers *= 2;
        const auto params = std::make_shared<NetworkParameters>();
        params->shape = huge; // the constructor checks sizes before touching the (empty) host data
        try {
            gpu::makeCudaBackend(params);
            QFAIL("a network larger than the device was accepted");
        } catch (const OutOfMemory &e) {
            QVERIFY2(QString(e.what()).contains("free"), e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestCudaBackend)
#include "test_cuda_backend.moc"
