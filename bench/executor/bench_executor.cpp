// The CPU executor against the bare GEMMs it performs (same sizes, same
// process). First, per kernel variant this CPU runs (cpu_kernels.h), the
// store-all step's FLOP rate against the same GEMMs built for this machine's
// own instruction set (-march=native): the target is >= 80 %. Then every
// strategy on the selected variant (REMAT_CPU_ISA or the fastest): step time
// over that variant's bare GEMMs (the overhead: tanh, bias, allocation,
// bookkeeping, target <= 10 %), and time ratios beside the simulator's cost ratios.
//
//   bench_executor [n width batch repeats]     (default 16 1024 256 5)
#include "core/executor/cpu_backend.h"
#include "core/executor/cpu_kernels.h"
#include "core/executor/executor.h"
#include "core/strategy_registry.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#ifdef REMAT_BENCH_NATIVE
// cpu_kernels_isa.cpp once more, built with -march=native (bench/executor/CMakeLists.txt).
namespace remat::exec::cpu::isa_native {
const Kernels &kernelTable();
}
#endif

using namespace remat;
using namespace remat::exec;

namespace {

// The GEMMs of a step, minus everything that is not a GEMM: forwardGemms
// products W (w x w) by a w x b matrix, then per layer the two backward ones
// (w x b by (w x b)^T, and W^T by w x b).
class BareGemms {
public:
    // Buffers 64-byte aligned, as the backend's are.
    BareGemms(const NetworkParameters &p, const cpu::Kernels &k)
        : p_(p), k_(k), x_(memory_, p.shape.nodeBytes()), g_(memory_, p.shape.nodeBytes()),
          y_(memory_, p.shape.nodeBytes()),
          dW_(memory_, std::int64_t{p.shape.width} * p.shape.width * std::int64_t{sizeof(float)}) {
        k_.tanh(p.shape.elements(), p.input.data(), x_.data());
        std::copy(p.target.begin(), p.target.end(), g_.data());
    }

    double run(std::int64_t forwardGemms) {
        using cpu::Transpose;
        const int n = p_.shape.layers;
        const cpu::Index w = p_.shape.width, b = p_.shape.batch;
        const auto start = std::chrono::steady_clock::now();
        for (std::int64_t k = 0; k < forwardGemms; ++k) {
            const int layer = static_cast<int>(k % n) + 1;
            k_.gemm(Transpose::No, Transpose::No, w, b, w, 1.0f, p_.weight(layer), w, x_.data(), w, 0.0f, y_.data(), w);
        }
        for (int layer = n; layer >= 1; --layer) {
            k_.gemm(Transpose::No, Transpose::Yes, w, w, b, 1.0f, g_.data(), w, x_.data(), w, 0.0f, dW_.data(), w);
            k_.gemm(Transpose::Yes, Transpose::No, w, b, w, 1.0f, p_.weight(layer), w, g_.data(), w, 0.0f, y_.data(),
                    w);
        }
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (!std::isfinite(y_.data()[0]) ||
            !std::isfinite(dW_.data()[0])) // keeps the optimiser from dropping the loops
            std::puts("non-finite result");
        return s;
    }

private:
    const NetworkParameters &p_;
    const cpu::Kernels &k_;
    TrackingAllocator memory_;
    TrackedBuffer x_, g_, y_, dW_;
};

int argument(int argc, char **argv, int index, int fallback) {
    return argc > index ? std::atoi(argv[index]) : fallback;
}

Schedule storeAll(const Model &model) {
    return StrategyRegistry::builtin().get("store-all").makeSchedule(model, {});
}

// Store-all steps on every variant this CPU runs, beside the same step's GEMMs
// alone on that variant and on the native build. The three take turns, in an
// order that rotates, so that a busy machine slows them alike.
void compareVariants(const std::shared_ptr<const NetworkParameters> &params, const Model &model, int repeats) {
    const NetworkShape &shape = params->shape;
    const double flops = 6.0 * shape.layers * double(shape.width) * shape.width * shape.batch; // 3n GEMMs
#ifdef REMAT_BENCH_NATIVE
    BareGemms native(*params, cpu::isa_native::kernelTable());
    std::printf("store-all step against the same GEMMs built with -march=native, GEMM GFLOP per step %.2f\n",
                flops / 1e9);
#else
    std::puts("store-all step per kernel variant (no -march=native build here: no native reference)");
#endif
    std::printf("%-10s %10s %12s %13s %14s %10s %12s\n", "kernels", "step s", "step GFLOP/s", "GEMMs GFLOP/s",
                "native GFLOP/s", "of native", "vs baseline");
    const Schedule schedule = storeAll(model);
    const auto rate = [flops](const std::vector<double> &seconds) {
        return seconds.empty() ? 0.0 : flops / median(seconds) / 1e9;
    };
    double baselineRate = 0;
    for (cpu::Isa isa : cpu::supportedIsas()) {
        CpuBackend backend(params, isa);
        Executor executor(backend, model, schedule);
        BareGemms own(*params, cpu::kernels(isa));
        std::vector<double> steps, gemms, nativeGemms;
        for (int r = 0; r <= repeats; ++r) { // the first round is a warm-up
            for (int turn = 0; turn < 3; ++turn) {
                switch ((r + turn) % 3) {
                case 0:
                    steps.push_back(executor.runStep().seconds);
                    break;
                case 1:
                    gemms.push_back(own.run(shape.layers));
                    break;
                default:
#ifdef REMAT_BENCH_NATIVE
                    nativeGemms.push_back(native.run(shape.layers));
#endif
                    break;
                }
            }
            if (r == 0) {
                steps.clear();
                gemms.clear();
                nativeGemms.clear();
            }
        }
        const double stepRate = rate(steps), nativeRate = rate(nativeGemms);
        if (isa == cpu::Isa::Baseline)
            baselineRate = stepRate;
        std::printf("%-10s %10.4f %12.1f %13.1f %14.1f %9.1f%% %11.2fx\n", std::string(cpu::isaName(isa)).c_str(),
                    median(steps), stepRate, rate(gemms), nativeRate,
                    nativeRate > 0 ? 100 * stepRate / nativeRate : 0.0,
                    baselineRate > 0 ? stepRate / baselineRate : 0.0);
    }
    std::puts("GEMMs: the step's GEMMs alone on the same kernels; native: on kernels built with -march=native");
    std::puts("of native: the step's FLOP rate over the native GEMMs' (target >= 80 % for the fastest)\n");
}

void compareStrategies(const std::shared_ptr<const NetworkParameters> &params, const Model &model, int repeats) {
    const NetworkShape &shape = params->shape;
    CpuBackend backend(params);
    BareGemms bare(*params, cpu::kernels(backend.isa()));
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
    try {
        const auto params = std::make_shared<const NetworkParameters>(NetworkParameters::generate(shape));
        const Model model = networkModel(shape);
        std::printf("bench_executor: n = %d, width %d, batch %d, fp32, median of %d steps\n\n", shape.layers,
                    shape.width, shape.batch, repeats);
        compareVariants(params, model, repeats);
        compareStrategies(params, model, repeats);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "bench_executor: %s\n", e.what());
        return 2;
    }
    return 0;
}
