// The CPU backends on several threads: the pool runs every task once within
// its lanes; for every kernel variant and thread count the gradients are the
// one-thread gradients bit for bit (CpuOps cuts ops by their sizes alone),
// every strategy is store-all bit for bit, and the bytes held op by op are
// the simulator's timeline. Across variants gradients agree within a stated
// tolerance of the baseline kernels.
#include "core/errors.h"
#include "core/executor/cpu_backend.h"
#include "core/executor/thread_pool.h"
#include "core/executor/transformer_backend.h"
#include "step_helpers.h"

#include <QtTest>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <memory>
#include <stdexcept>

using namespace remat;
using namespace remat::exec;
using cpu::Isa;

Q_DECLARE_METATYPE(remat::exec::cpu::Isa)

namespace {

// The largest transformer gradient difference allowed between a variant and
// the baseline kernels, relative to max(1, the largest gradient): FMA, vector
// width and four-lane sums move fp32 rounding; the tanh and exp
// approximations are the same formula on every variant.
constexpr double kTransformerIsaTolerance = 1e-5;

double largestMagnitude(const Gradients &g) {
    double largest = 0;
    for (const auto *v : {&g.weights, &g.biases, &g.input})
        for (float x : *v)
            largest = std::max(largest, double{std::fabs(x)});
    return largest;
}

// Every strategy (and per-layer checkpointing) on `backend`: each op's bytes
// as the simulator's timeline, gradients bitwise store-all's. Returns store-all's.
Gradients checkStrategies(Backend &backend, const std::shared_ptr<const Model> &model) {
    const Gradients reference = testing::runOnce(
        backend, *model, StrategyRegistry::builtin().get("store-all").makeSchedule(*model, {}));
    auto schedules = testing::allSchedules(*model);
    StrategyParams everyLayer;
    everyLayer.every = 1;
    schedules.push_back(
        {"periodic --every 1", StrategyRegistry::builtin().get("periodic").makeSchedule(*model, everyLayer)});
    for (const testing::Planned &p : schedules) {
        const testing::TracedStep step = testing::traceStep(backend, model, p.schedule);
        if (!step.mismatch.empty())
            throw std::runtime_error(step.mismatch);
        if (step.record.memory.peakBytes != step.replay.summary.peakBytes)
            throw std::runtime_error(p.strategy + ": measured peak differs from the prediction");
        Gradients g;
        backend.readGradients(g);
        if (!g.bitwiseEqual(reference))
            throw std::runtime_error(p.strategy + ": gradients differ from store-all's by up to " +
                                     std::to_string(g.maxAbsDiff(reference)));
    }
    return reference;
}

// `many` (N threads) against `one` (one thread, same kernels): every
// strategy on `many` as checkStrategies demands, and its store-all gradients
// the very bits of one thread's. "" when all holds, else what did not.
std::string compareThreads(Backend &one, Backend &many, const std::shared_ptr<const Model> &model) {
    const Schedule storeAll = StrategyRegistry::builtin().get("store-all").makeSchedule(*model, {});
    const Gradients a = testing::runOnce(one, *model, storeAll);
    if (largestMagnitude(a) <= 1e-3)
        return "the gradients are all but zero: the comparison would compare nothing";
    try {
        const Gradients b = checkStrategies(many, model);
        if (!b.bitwiseEqual(a))
            return "N threads differ from one by up to " + std::to_string(b.maxAbsDiff(a));
    } catch (const std::exception &e) {
        return e.what();
    }
    return {};
}

void addIsaAndThreads() {
    QTest::addColumn<Isa>("isa");
    QTest::addColumn<int>("threads");
    for (Isa isa : cpu::supportedIsas())
        for (int threads : {2, 3, 7})
            QTest::newRow((std::string(cpu::isaName(isa)) + " " + std::to_string(threads) + " threads").c_str())
                << isa << threads;
}

} // namespace

class TestCpuThreads : public QObject {
    Q_OBJECT

private slots:
    void poolRunsEveryTaskOnceWithinItsLanes_data() {
        QTest::addColumn<int>("threads");
        QTest::addColumn<int>("tasks");
        QTest::addColumn<int>("maxLanes");
        for (int threads : {1, 2, 3, 7})
            for (int tasks : {0, 1, 5, 1000})
                for (int lanes : {1, 2, kMaxThreads})
                    QTest::newRow(qPrintable(QString("%1 threads, %2 tasks, %3 lanes").arg(threads).arg(tasks).arg(lanes)))
                        << threads << tasks << lanes;
    }
    void poolRunsEveryTaskOnceWithinItsLanes() {
        QFETCH(int, threads);
        QFETCH(int, tasks);
        QFETCH(int, maxLanes);
        ThreadPool pool(threads);
        for (int round = 0; round < 3; ++round) { // the pool is reused region after region
            std::vector<std::atomic<int>> runs(static_cast<std::size_t>(tasks));
            std::vector<std::atomic<int>> inLane(kMaxThreads);
            std::atomic<int> widest{0}, badLane{0};
            pool.run(
                tasks,
                [&](std::int64_t task, int lane) {
                    if (lane < 0 || lane >= std::min(threads, maxLanes))
                        ++badLane;
                    else if (++inLane[static_cast<std::size_t>(lane)] != 1)
                        ++badLane; // two tasks in one lane at once: their scratch would clash
                    runs[static_cast<std::size_t>(task)]++;
                    int w = widest.load();
                    while (lane + 1 > w && !widest.compare_exchange_weak(w, lane + 1)) {
                    }
                    if (lane >= 0 && lane < kMaxThreads)
                        --inLane[static_cast<std::size_t>(lane)];
                },
                maxLanes);
            QCOMPARE(badLane.load(), 0);
            for (const auto &r : runs)
                QCOMPARE(r.load(), 1);
            QVERIFY(widest.load() <= std::min(threads, maxLanes));
        }
    }

    void poolRethrowsAndGoesOn() {
        ThreadPool pool(3);
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, pool.run(100, [](std::int64_t task, int) {
            if (task == 37)
                throw std::runtime_error("task 37");
        }));
        std::atomic<int> done{0};
        pool.run(50, [&](std::int64_t, int) { ++done; });
        QCOMPARE(done.load(), 50);
    }

    void badThreadCountsAreRefused_data() {
        QTest::addColumn<int>("threads");
        QTest::newRow("zero") << 0;
        QTest::newRow("negative") << -1;
        QTest::newRow("beyond the limit") << kMaxThreads + 1;
    }
    void badThreadCountsAreRefused() {
        QFETCH(int, threads);
        const auto params = std::make_shared<const NetworkParameters>(NetworkParameters::generate({2, 4, 2}));
        try {
            CpuBackend backend(params, cpu::selectedIsa(), threads);
            QFAIL("accepted a bad thread count");
        } catch (const InvalidArgument &e) {
            QVERIFY2(QString(e.what()).contains(QString("from 1 to %1, got %2").arg(kMaxThreads).arg(threads)),
                     e.what());
        }
    }

    // The tanh network: N threads give one thread's bits on every variant,
    // and every strategy measures as predicted there.
    void mlpThreadsGiveOneThreadsBits_data() { addIsaAndThreads(); }
    void mlpThreadsGiveOneThreadsBits() {
        QFETCH(Isa, isa);
        QFETCH(int, threads);
        // w and b leave partial tiles and vectors; w is two GEMM tiles high, and
        // the w x w weight gradient two tiles wide too.
        const auto params = std::make_shared<const NetworkParameters>(NetworkParameters::generate({5, 403, 37}));
        const auto model = std::make_shared<const Model>(networkModel(params->shape));
        CpuBackend one(params, isa, 1), many(params, isa, threads);
        QVERIFY2(many.deviceName().find(std::to_string(threads) + " threads") != std::string::npos,
                 many.deviceName().c_str());
        const std::string problem = compareThreads(one, many, model);
        QVERIFY2(problem.empty(), problem.c_str());
    }

    // The transformer, on shapes whose attention runs one chunk of queries
    // per head and several (seq 200), with scratch for one task at a time
    // and for several.
    void transformerThreadsGiveOneThreadsBits_data() {
        QTest::addColumn<Isa>("isa");
        QTest::addColumn<int>("threads");
        QTest::addColumn<int>("layers");
        QTest::addColumn<int>("hidden");
        QTest::addColumn<int>("heads");
        QTest::addColumn<int>("seq");
        QTest::addColumn<int>("batch");
        for (Isa isa : cpu::supportedIsas())
            for (int threads : {2, 3, 7}) {
                const std::string name = std::string(cpu::isaName(isa)) + " " + std::to_string(threads) + " threads";
                QTest::newRow((name + " L3 h24 a3 s9 b3").c_str()) << isa << threads << 3 << 24 << 3 << 9 << 3;
                QTest::newRow((name + " L2 h8 a2 s40 b1 (one task's scratch)").c_str())
                    << isa << threads << 2 << 8 << 2 << 40 << 1;
                QTest::newRow((name + " L2 h64 a4 s200 b4 (query chunks)").c_str())
                    << isa << threads << 2 << 64 << 4 << 200 << 2;
            }
    }
    void transformerThreadsGiveOneThreadsBits() {
        QFETCH(Isa, isa);
        QFETCH(int, threads);
        QFETCH(int, layers);
        QFETCH(int, hidden);
        QFETCH(int, heads);
        QFETCH(int, seq);
        QFETCH(int, batch);
        const auto params = std::make_shared<const TransformerParameters>(
            TransformerParameters::generate(TransformerShape{layers, hidden, heads, seq, batch}));
        const auto model = std::make_shared<const Model>(transformerModel(params->shape));
        TransformerCpuBackend one(params, isa, 1), many(params, isa, threads);
        const std::string problem = compareThreads(one, many, model);
        QVERIFY2(problem.empty(), problem.c_str());
    }

    // Across variants: the baseline kernels' gradients within the tolerance.
    void transformerIsasAgreeWithBaseline_data() {
        QTest::addColumn<Isa>("isa");
        for (Isa isa : cpu::supportedIsas())
            if (isa != Isa::Baseline)
                QTest::newRow(std::string(cpu::isaName(isa)).c_str()) << isa;
    }
    void transformerIsasAgreeWithBaseline() {
        QFETCH(Isa, isa);
        const auto params = std::make_shared<const TransformerParameters>(
            TransformerParameters::generate(TransformerShape{3, 64, 4, 33, 3}));
        const Model model = transformerModel(params->shape);
        const Schedule s = StrategyRegistry::builtin().get("store-all").makeSchedule(model, {});
        TransformerCpuBackend baseline(params, Isa::Baseline, 1), other(params, isa, 2);
        const Gradients a = testing::runOnce(baseline, model, s), b = testing::runOnce(other, model, s);
        const double largest = largestMagnitude(a), diff = a.maxAbsDiff(b);
        QVERIFY(largest > 1e-2);
        QCOMPARE(other.isa(), isa);
        QVERIFY2(diff <= kTransformerIsaTolerance * std::max(1.0, largest),
                 qPrintable(QString("max |diff| %1, largest %2").arg(diff).arg(largest)));
    }
};

QTEST_GUILESS_MAIN(TestCpuThreads)
#include "test_cpu_threads.moc"
