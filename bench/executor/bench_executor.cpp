// The CPU executor against the bare Eigen GEMMs it performs (same sizes, same
// process): the executor's overhead (tanh, bias, allocation, bookkeeping)
// should stay within 10% of the GEMM time. Then every strategy's step time
// against store-all's, next to the simulator's predicted cost ratio.
//
//   bench_executor [n width batch repeats]     (default 16 512 128 5)
#include "core/executor/cpu_backend.h"
#include "core/executor/executor.h"
#include "core/strategy_registry.h"

#include <Eigen/Core>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

using namespace remat;
using namespace remat::exec;

namespace {

using Matrix = Eigen::MatrixXf;

// forwardGemms GEMMs of W (w x w) by a w x b matrix, then per layer the two
// backward GEMMs (w x b by b x w, and W^T by w x b): what the executor does,
// minus everything that is not a GEMM.
class BareGemms {
public:
    explicit BareGemms(const NetworkParameters &p)
        : p_(p), x_(Eigen::Map<const Matrix>(p.input.data(), p.shape.width, p.shape.batch).array().tanh().matrix()),
          y_(p.shape.width, p.shape.batch), dW_(p.shape.width, p.shape.width), g_(x_) {}

    double run(std::int64_t forwardGemms) {
        const int n = p_.shape.layers, w = p_.shape.width;
        const auto start = std::chrono::steady_clock::now();
        for (std::int64_t k = 0; k < forwardGemms; ++k) {
            const int layer = static_cast<int>(k % n) + 1;
            y_.noalias() = Eigen::Map<const Matrix>(p_.weight(layer), w, w) * x_;
        }
        for (int layer = n; layer >= 1; --layer) {
            dW_.noalias() = g_ * x_.transpose();
            y_.noalias() = Eigen::Map<const Matrix>(p_.weight(layer), w, w).transpose() * g_;
        }
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (!y_.allFinite() || !dW_.allFinite()) // keeps the optimiser from dropping the loops
            std::puts("non-finite result");
        return s;
    }

private:
    const NetworkParameters &p_;
    Matrix x_, y_, dW_, g_;
};

int argument(int argc, char **argv, int index, int fallback) {
    return argc > index ? std::atoi(argv[index]) : fallback;
}

} // namespace

int main(int argc, char **argv) {
    const NetworkShape shape{argument(argc, argv, 1, 16), argument(argc, argv, 2, 512), argument(argc, argv, 3, 128)};
    const int repeats = argument(argc, argv, 4, 5);
    try {
        const auto params = std::make_shared<const NetworkParameters>(NetworkParameters::generate(shape));
        const Model model = networkModel(shape);
        CpuBackend backend(params);
        BareGemms bare(*params);
        std::printf("bench_executor: n = %d, width %d, batch %d, fp32, %s, median of %d steps\n\n", shape.layers,
                    shape.width, shape.batch, backend.deviceName().c_str(), repeats);
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
            // Executor steps and bare GEMM passes alternate, so that a busy
            // machine slows both alike; the first of each is a warm-up.
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
            std::printf("%-14s %12.4f %12.4f %9.1f%% %10.3f %10.3f %12lld%s\n", std::string(s->name()).c_str(),
                        m.medianSeconds, gemms, 100 * (m.medianSeconds / gemms - 1),
                        storeAllSeconds > 0 ? m.medianSeconds / storeAllSeconds : 0.0,
                        storeAllCost > 0 ? m.predicted.cost / storeAllCost : 0.0,
                        static_cast<long long>(m.measuredPeakBytes),
                        m.measuredPeakBytes == m.predicted.peakBytes ? "" : "  (differs from prediction!)");
        }
        std::puts("\noverhead: executor step time over the bare GEMMs it performs (target <= 10%)");
        std::puts("time ratio: step time / store-all's; cost ratio: the simulator's predicted cost / store-all's");
    } catch (const std::exception &e) {
        std::fprintf(stderr, "bench_executor: %s\n", e.what());
        return 2;
    }
    return 0;
}
