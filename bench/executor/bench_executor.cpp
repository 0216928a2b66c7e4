// The CPU executor (the tanh network) against OpenBLAS's sgemm, in the same
// process on the same thread count. First, per kernel variant this CPU runs
// (cpu_kernels.h), the store-all step's FLOP rate beside the same GEMMs alone
// on remat's kernels and on OpenBLAS: the target is a step at >= 80 % of
// OpenBLAS's rate. Then every strategy on the selected variant (REMAT_CPU_ISA
// or the fastest): step time over its bare GEMMs (the overhead: tanh, bias,
// allocation, bookkeeping, target <= 10 %), and time ratios beside the
// simulator's cost ratios.
//
//   bench_executor [n width batch repeats threads [selected]]   (default 16 1024 256 5, every core)
//   `selected`: only the selected variant against OpenBLAS, no strategies (bench/cpu_race.py).
#include "core/executor/cpu_backend.h"
#include "core/executor/cpu_kernels.h"
#include "core/executor/executor.h"
#include "core/strategy_registry.h"
#include "openblas_probe.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

using namespace remat;
using namespace remat::exec;

namespace {

using cpu::Transpose;
using Gemm = std::function<void(Transpose, Transpose, cpu::Index, cpu::Index, cpu::Index, const float *, cpu::Index,
                                const float *, cpu::Index, float *, cpu::Index)>;

// The GEMMs of a step, minus everything that is not a GEMM: forwardGemms
// products W (w x w) by a w x b matrix, then per layer the two backward ones
// (w x b by (w x b)^T, and W^T by w x b), on any GEMM.
class BareGemms {
public:
    BareGemms(const NetworkParameters &p, Gemm gemm)
        : p_(p), gemm_(std::move(gemm)), x_(memory_, p.shape.nodeBytes()), g_(memory_, p.shape.nodeBytes()),
          y_(memory_, p.shape.nodeBytes()),
          dW_(memory_, std::int64_t{p.shape.width} * p.shape.width * std::int64_t{sizeof(float)}) {
        for (std::int64_t k = 0; k < p.shape.elements(); ++k) {
            x_.data()[k] = std::tanh(p.input[static_cast<std::size_t>(k)]);
            g_.data()[k] = p.target[static_cast<std::size_t>(k)];
        }
    }

    double run(std::int64_t forwardGemms) {
        const int n = p_.shape.layers;
        const cpu::Index w = p_.shape.width, b = p_.shape.batch;
        const auto start = std::chrono::steady_clock::now();
        for (std::int64_t k = 0; k < forwardGemms; ++k)
            gemm_(Transpose::No, Transpose::No, w, b, w, p_.weight(static_cast<int>(k % n) + 1), w, x_.data(), w,
                  y_.data(), w);
        for (int layer = n; layer >= 1; --layer) {
            gemm_(Transpose::No, Transpose::Yes, w, w, b, g_.data(), w, x_.data(), w, dW_.data(), w);
            gemm_(Transpose::Yes, Transpose::No, w, b, w, p_.weight(layer), w, g_.data(), w, y_.data(), w);
        }
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (!std::isfinite(y_.data()[0]) || !std::isfinite(dW_.data()[0])) // keeps the loops
            std::puts("non-finite result");
        return s;
    }

private:
    const NetworkParameters &p_;
    Gemm gemm_;
    TrackingAllocator memory_;
    TrackedBuffer x_, g_, y_, dW_;
};

Gemm onOps(CpuOps &ops) {
    return [&ops](Transpose ta, Transpose tb, cpu::Index m, cpu::Index n, cpu::Index k, const float *A, cpu::Index lda,
                  const float *B, cpu::Index ldb, float *C, cpu::Index ldc) {
        ops.gemm(ta, tb, m, n, k, 1.0f, A, lda, B, ldb, 0.0f, C, ldc);
    };
}

Gemm onOpenBlas(const bench::OpenBlas &blas) {
    return [&blas](Transpose ta, Transpose tb, cpu::Index m, cpu::Index n, cpu::Index k, const float *A,
                   cpu::Index lda, const float *B, cpu::Index ldb, float *C, cpu::Index ldc) {
        blas.sgemm(ta, tb, m, n, k, 1.0f, A, lda, B, ldb, 0.0f, C, ldc);
    };
}

int argument(int argc, char **argv, int index, int fallback) {
    return argc > index ? std::atoi(argv[index]) : fallback;
}

// OpenBLAS's threads spin a while after each call: let them settle before
// the next turn, whoever's it is.
void settle() {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
}

Schedule storeAll(const Model &model) {
    return StrategyRegistry::builtin().get("store-all").makeSchedule(model, {});
}

// Store-all steps on every variant this CPU runs, beside the same step's GEMMs
// alone on that variant and on OpenBLAS. The three take turns, in an order
// that rotates, so that a busy machine slows them alike.
void compareVariants(const std::shared_ptr<const NetworkParameters> &params, const Model &model, int repeats,
                     int threads, const bench::OpenBlas &blas, const std::vector<cpu::Isa> &variants) {
    const NetworkShape &shape = params->shape;
    const double flops = 6.0 * shape.layers * double(shape.width) * shape.width * shape.batch; // 3n GEMMs
    std::printf("store-all step against its GEMMs alone, on remat's kernels and on OpenBLAS; GEMM GFLOP per step "
                "%.2f\n",
                flops / 1e9);
    std::printf("%-10s %10s %12s %13s %16s %11s %12s\n", "kernels", "step s", "step GFLOP/s", "GEMMs GFLOP/s",
                "OpenBLAS GFLOP/s", "of OpenBLAS", "vs baseline");
    const Schedule schedule = storeAll(model);
    const auto rate = [flops](const std::vector<double> &seconds) {
        return seconds.empty() ? 0.0 : flops / median(seconds) / 1e9;
    };
    std::unique_ptr<BareGemms> reference;
    if (blas.loaded())
        reference = std::make_unique<BareGemms>(*params, onOpenBlas(blas));
    double baselineRate = 0;
    for (cpu::Isa isa : variants) {
        CpuBackend backend(params, isa, threads);
        Executor executor(backend, model, schedule);
        CpuOps ops(isa, threads);
        BareGemms own(*params, onOps(ops));
        std::vector<double> steps, gemms, blasGemms;
        for (int r = 0; r <= repeats; ++r) { // the first round is a warm-up
            for (int turn = 0; turn < 3; ++turn) {
                if (reference && blas.threads() > 1) // every turn from the same pause (bench_transformer.cpp says why)
                    settle();
                switch ((r + turn) % 3) {
                case 0:
                    steps.push_back(executor.runStep().seconds);
                    break;
                case 1:
                    gemms.push_back(own.run(shape.layers));
                    break;
                default:
                    if (reference)
                        blasGemms.push_back(reference->run(shape.layers));
                    break;
                }
            }
            if (r == 0) {
                steps.clear();
                gemms.clear();
                blasGemms.clear();
            }
        }
        const double stepRate = rate(steps), blasRate = rate(blasGemms);
        if (isa == cpu::Isa::Baseline)
            baselineRate = stepRate;
        char versusBaseline[32] = "-"; // the baseline ran only when all variants do
        if (baselineRate > 0)
            std::snprintf(versusBaseline, sizeof versusBaseline, "%.2fx", stepRate / baselineRate);
        std::printf("%-10s %10.4f %12.1f %13.1f %16.1f %10.1f%% %12s\n", std::string(cpu::isaName(isa)).c_str(),
                    median(steps), stepRate, rate(gemms), blasRate, 100 * bench::medianRatio(blasGemms, steps),
                    versusBaseline);
    }
    std::puts("GEMMs: the step's GEMMs alone on the same kernels and threads; OpenBLAS: the same GEMMs on OpenBLAS");
    std::puts("of OpenBLAS: the step's FLOP rate over OpenBLAS's on its GEMMs, the median of the rounds' ratios "
              "(target >= 80 % for the fastest)\n");
}

void compareStrategies(const std::shared_ptr<const NetworkParameters> &params, const Model &model, int repeats,
                       int threads) {
    const NetworkShape &shape = params->shape;
    CpuBackend backend(params, cpu::selectedIsa(), threads);
    CpuOps ops(backend.isa(), threads);
    BareGemms bare(*params, onOps(ops));
    std::printf("every strategy on %s\n", backend.deviceName().c_str());
    std::printf("%-14s %12s %12s %10s %10s %10s %12s\n", "strategy", "step s", "GEMMs s", "overhead", "time ratio",
                "cost ratio", "peak bytes");
    double storeAllSeconds = 0, storeAllCost = 0;
    for (const Strategy *s : StrategyRegistry::builtin().all()) {
        // Strategies that need a parameter get the square-root choice.
        const int root = std::max(2, static_cast<int>(std::lround(std::sqrt(shape.layers))));
        StrategyParams strategyParams;
        if (s->name() == "checkpoints") {
            strategyParams.checkpoints = std::vector<int>{};
            for (int k = root; k < shape.layers; k += root)
                strategyParams.checkpoints->push_back(k);
        } else if (s->name() == "revolve" || s->name() == "budget") {
            strategyParams.checkpointSlots = root;
        }
        const Schedule schedule = s->makeSchedule(model, strategyParams);
        // Executor steps and bare GEMM passes alternate; the first of each is a warm-up.
        Executor executor(backend, model, schedule);
        Measurement m;
        m.predicted = executor.predicted();
        std::vector<double> gemmTimes;
        for (int r = 0; r <= repeats; ++r) {
            const StepRecord step = executor.runStep();
            const double g = bare.run(m.predicted.forwardEvaluations);
            m.measuredPeakBytes = step.memory.peakBytes;
            if (r > 0) {
                m.seconds.push_back(step.seconds);
                gemmTimes.push_back(g);
            }
        }
        m.medianSeconds = median(m.seconds);
        const double gemms = median(gemmTimes);
        if (s->name() == "store-all") {
            storeAllSeconds = m.medianSeconds;
            storeAllCost = m.predicted.cost;
        }
        std::printf(
            "%-14s %12.4f %12.4f %9.1f%% %10.3f %10.3f %12lld%s\n", std::string(s->name()).c_str(), m.medianSeconds,
            gemms, 100 * (m.medianSeconds / gemms - 1), storeAllSeconds > 0 ? m.medianSeconds / storeAllSeconds : 0.0,
            storeAllCost > 0 ? m.predicted.cost / storeAllCost : 0.0, static_cast<long long>(m.measuredPeakBytes),
            m.measuredPeakBytes == m.predicted.peakBytes ? "" : "  (differs from prediction!)");
    }
    std::puts("\noverhead: executor step time over the bare GEMMs it performs, same kernels (target <= 10%)");
    std::puts("time ratio: step time / store-all's; cost ratio: the simulator's predicted cost / store-all's");
}

} // namespace

int main(int argc, char **argv) {
    const NetworkShape shape{argument(argc, argv, 1, 16), argument(argc, argv, 2, 1024), argument(argc, argv, 3, 256)};
    const int repeats = argument(argc, argv, 4, 5);
    const int threads = argument(argc, argv, 5, availableCores());
    try {
        requireThreadCount("threads", threads);
        const auto params = std::make_shared<const NetworkParameters>(NetworkParameters::generate(shape));
        const Model model = networkModel(shape);
        bench::OpenBlas blas;
        blas.setThreads(threads);
        std::printf("bench_executor: n = %d, width %d, batch %d, fp32, median of %d steps, %d thread(s) of %d cores\n",
                    shape.layers, shape.width, shape.batch, repeats, threads, availableCores());
        std::printf("OpenBLAS: %s\n\n", blas.describe().c_str());
        const bool selectedOnly = argc > 6 && std::string(argv[6]) == "selected";
        compareVariants(params, model, repeats, threads, blas,
                        selectedOnly ? std::vector<cpu::Isa>{cpu::selectedIsa()} : cpu::supportedIsas());
        if (!selectedOnly)
            compareStrategies(params, model, repeats, threads);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "bench_executor: %s\n", e.what());
        return 2;
    }
    return 0;
}
