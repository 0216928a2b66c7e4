// No heap churn per op: once a backend has run a step, the next step makes a
// few heap allocations (operator new, counted here on every thread) for the
// whole step, the executor's bookkeeping, however many layers and ops it has,
// on one thread or several. The buffers themselves come from the tracking
// allocator's cache and each thread's GEMM packing buffer.
#include "core/executor/cpu_backend.h"
#include "core/executor/transformer_backend.h"
#include "step_helpers.h"

#include <QtTest>
#include <atomic>
#include <cstdlib>
#include <new>

namespace {
std::atomic<bool> counting{false};
std::atomic<long> allocations{0};
} // namespace

void *operator new(std::size_t bytes) {
    if (counting.load(std::memory_order_relaxed))
        allocations.fetch_add(1, std::memory_order_relaxed);
    if (void *p = std::malloc(bytes ? bytes : 1))
        return p;
    throw std::bad_alloc();
}
void operator delete(void *p) noexcept {
    std::free(p);
}
void operator delete(void *p, std::size_t) noexcept {
    std::free(p);
}

using namespace remat;
using namespace remat::exec;

namespace {

// At most this many a step: the executor's per-step bookkeeping and the
// allocator cache's lists growing; one allocation per op would already be
// more than 20 at 6 layers.
constexpr long kPerStep = 3;

// Heap allocations during one warm store-all step.
long allocationsOfAStep(Backend &backend, const Model &model) {
    const Schedule schedule = StrategyRegistry::builtin().get("store-all").makeSchedule(model, {});
    Executor executor(backend, model, schedule);
    executor.runStep(); // warm: caches filled, packing buffers grown
    allocations = 0;
    counting = true;
    executor.runStep();
    counting = false;
    return allocations.load();
}

} // namespace

class TestStepAllocations : public QObject {
    Q_OBJECT

private slots:
    void aFewAllocationsAStepNoneAnOp_data() {
        QTest::addColumn<int>("threads");
        QTest::newRow("1 thread") << 1;
        QTest::newRow("3 threads") << 3;
    }
    void aFewAllocationsAStepNoneAnOp() {
        QFETCH(int, threads);
        long perDepth[2] = {};
        for (int k = 0; k < 2; ++k) {
            const auto params = std::make_shared<const TransformerParameters>(
                TransformerParameters::generate(TransformerShape{k == 0 ? 2 : 6, 32, 4, 24, 3}));
            TransformerCpuBackend backend(params, cpu::selectedIsa(), threads);
            perDepth[k] = allocationsOfAStep(backend, transformerModel(params->shape));
        }
        QVERIFY2(perDepth[0] <= kPerStep && perDepth[1] <= kPerStep,
                 qPrintable(QString("transformer: %1 allocations a step with 2 layers, %2 with 6")
                                .arg(perDepth[0])
                                .arg(perDepth[1])));
        for (int k = 0; k < 2; ++k) {
            const auto params =
                std::make_shared<const NetworkParameters>(NetworkParameters::generate({k == 0 ? 3 : 9, 40, 7}));
            CpuBackend backend(params, cpu::selectedIsa(), threads);
            perDepth[k] = allocationsOfAStep(backend, networkModel(params->shape));
        }
        QVERIFY2(perDepth[0] <= kPerStep && perDepth[1] <= kPerStep,
                 qPrintable(QString("MLP: %1 allocations a step with 3 layers, %2 with 9").arg(perDepth[0]).arg(perDepth[1])));
    }
};

QTEST_GUILESS_MAIN(TestStepAllocations)
#include "test_step_allocations.moc"
