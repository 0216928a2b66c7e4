// The transformer's CPU step against OpenBLAS's sgemm, same process, same
// thread count: which GEMM serves best at the layer's shapes (remat's Eigen
// kernels, cut into tiles on remat's threads, or OpenBLAS on its own
// threads), and the step's FLOP rate over OpenBLAS's rate on the step's very
// GEMMs (the target is >= 80 %), for store-all and per-layer checkpointing.
//
//   bench_transformer [layers hidden heads seq batch repeats threads]
//   (default 4 256 4 128 4 5, every core)
#include "core/executor/cpu_ops.h"
#include "core/executor/executor.h"
#include "core/executor/transformer_backend.h"
#include "core/simulator.h"
#include "core/strategy_registry.h"
#include "openblas_probe.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

using namespace remat;
using namespace remat::exec;

namespace {

using cpu::Index;
using cpu::Transpose;
using GemmCall = CpuOps::GemmCall;
using Gemm = std::function<void(const GemmCall &, const float *A, const float *B, float *C)>;

double seconds(const std::function<void()> &f) {
    const auto start = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void settle() { // OpenBLAS's threads spin a while after a call
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
}

double flops(const std::vector<GemmCall> &calls) {
    double f = 0;
    for (const GemmCall &c : calls)
        f += 2.0 * double(c.m) * double(c.n) * double(c.k);
    return f;
}

// Operands large enough for every call, with the natural leading dimensions.
struct Operands {
    std::vector<float> a, b, c;
    explicit Operands(const std::vector<GemmCall> &calls) {
        Index sa = 1, sb = 1, sc = 1;
        for (const GemmCall &g : calls) {
            sa = std::max(sa, g.m * g.k);
            sb = std::max(sb, g.k * g.n);
            sc = std::max(sc, g.m * g.n);
        }
        a.assign(static_cast<std::size_t>(sa), 0.01f);
        b.assign(static_cast<std::size_t>(sb), 0.02f);
        c.assign(static_cast<std::size_t>(sc), 0.0f);
    }
};

void replay(const std::vector<GemmCall> &calls, Operands &o, const Gemm &gemm) {
    for (const GemmCall &g : calls)
        gemm(g, o.a.data(), o.b.data(), o.c.data());
}

Index lda(const GemmCall &g) { return g.transA == Transpose::Yes ? g.k : g.m; }
Index ldb(const GemmCall &g) { return g.transB == Transpose::Yes ? g.n : g.k; }

Gemm onOps(CpuOps &ops) {
    return [&ops](const GemmCall &g, const float *A, const float *B, float *C) {
        ops.gemm(g.transA, g.transB, g.m, g.n, g.k, 1.0f, A, lda(g), B, ldb(g), 0.0f, C, g.m);
    };
}

Gemm onOpenBlas(const bench::OpenBlas &blas) {
    return [&blas](const GemmCall &g, const float *A, const float *B, float *C) {
        blas.sgemm(g.transA, g.transB, g.m, g.n, g.k, 1.0f, A, lda(g), B, ldb(g), 0.0f, C, g.m);
    };
}

std::string describe(const GemmCall &g) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "%s%s %5lld x %5lld x %5lld", g.transA == Transpose::Yes ? "T" : "N",
                  g.transB == Transpose::Yes ? "T" : "N", static_cast<long long>(g.m), static_cast<long long>(g.n),
                  static_cast<long long>(g.k));
    return buf;
}

// Per distinct GEMM of a layer: remat's and OpenBLAS's rate, each shape run
// until about 50 ms have passed, the two in turns.
void compareShapes(const std::vector<GemmCall> &step, CpuOps &ops, const bench::OpenBlas &blas) {
    std::map<std::tuple<int, int, Index, Index, Index>, std::pair<GemmCall, int>> shapes;
    for (const GemmCall &g : step) {
        auto &entry = shapes[{int(g.transA), int(g.transB), g.m, g.n, g.k}];
        entry.first = g;
        ++entry.second;
    }
    std::printf("%-22s %6s %14s %17s %8s\n", "GEMM (op m x n x k)", "calls", "remat GFLOP/s", "OpenBLAS GFLOP/s",
                "ratio");
    for (const auto &[key, entry] : shapes) {
        const std::vector<GemmCall> one{entry.first};
        Operands o(one);
        const double f = flops(one);
        const int reps = std::max(3, static_cast<int>(0.05 / (f / 50e9)));
        const auto rate = [&](const Gemm &gemm) {
            replay(one, o, gemm); // warm
            std::vector<double> t;
            for (int round = 0; round < 5; ++round)
                t.push_back(seconds([&] {
                                for (int r = 0; r < reps; ++r)
                                    replay(one, o, gemm);
                            }) /
                            reps);
            return f / median(t) / 1e9;
        };
        const double mine = rate(onOps(ops));
        const double theirs = blas.loaded() ? rate(onOpenBlas(blas)) : 0;
        if (blas.loaded())
            settle();
        std::printf("%-22s %6d %14.1f %17.1f %8.2f\n", describe(entry.first).c_str(), entry.second, mine, theirs,
                    theirs > 0 ? mine / theirs : 0.0);
    }
    std::puts("");
}

struct StepRun {
    std::string label;
    Schedule schedule;
    std::vector<GemmCall> gemms; // one step's, as CpuOps ran them
    double flops = 0;            // the simulator's cost of the schedule
    std::vector<double> step, own, openblas;
};

} // namespace

int main(int argc, char **argv) {
    const auto arg = [&](int i, int fallback) { return argc > i ? std::atoi(argv[i]) : fallback; };
    TransformerShape shape;
    shape.layers = arg(1, 4);
    shape.hidden = arg(2, 256);
    shape.heads = arg(3, 4);
    shape.seq = arg(4, 128);
    shape.batch = arg(5, 4);
    const int repeats = arg(6, 5), threads = arg(7, availableCores());
    try {
        requireThreadCount("threads", threads);
        const auto params =
            std::make_shared<const TransformerParameters>(TransformerParameters::generate(shape));
        const Model model = transformerModel(shape);
        bench::OpenBlas blas;
        blas.setThreads(threads);
        TransformerCpuBackend backend(params, cpu::selectedIsa(), threads);
        CpuOps ops(backend.isa(), threads);
        std::printf("bench_transformer: %s, fp32, median of %d, %d thread(s) of %d cores\nremat: %s\nOpenBLAS: %s\n\n",
                    shape.describe().c_str(), repeats, threads, availableCores(), backend.deviceName().c_str(),
                    blas.describe().c_str());

        StrategyParams everyLayer;
        everyLayer.every = 1;
        std::vector<StepRun> runs;
        runs.push_back({"store-all", StrategyRegistry::builtin().get("store-all").makeSchedule(model, {}), {}, 0, {},
                        {}, {}});
        runs.push_back({"per-layer checkpointing",
                        StrategyRegistry::builtin().get("periodic").makeSchedule(model, everyLayer), {}, 0, {}, {}, {}});
        for (StepRun &run : runs)
            run.flops = Simulator::summarize(model, run.schedule).cost * 1e9;
        // One layer's GEMMs, forward and backward, as the executor's ops run them.
        std::vector<GemmCall> layerGemms;
        {
            std::vector<float> x(params->input), y(x.size()), dy(x.size()), dx(x.size());
            std::vector<float> saved(static_cast<std::size_t>(savedFloats(shape)));
            std::vector<float> work(static_cast<std::size_t>(
                std::max(forwardWorkspaceFloats(shape), backwardWorkspaceFloats(shape))));
            std::vector<float> dm(params->matrices.size()), dv(params->vectors.size());
            ops.recordGemms(&layerGemms);
            transformerLayerForward(shape, ops, params->layer(1), x.data(), y.data(), saved.data(), work.data());
            const std::size_t forwardCount = layerGemms.size();
            transformerLayerBackward(shape, ops, params->layer(1), x.data(), y.data(), saved.data(), dx.data(),
                                     layerTensors(dm.data(), dv.data(), shape.hidden, 1), work.data());
            ops.recordGemms(nullptr);
            // A step's GEMMs: each forward the schedule runs, each backward once.
            for (StepRun &run : runs) {
                const Summary summary = Simulator::summarize(model, run.schedule);
                for (std::int64_t f = 0; f < summary.forwardEvaluations; ++f)
                    run.gemms.insert(run.gemms.end(), layerGemms.begin(), layerGemms.begin() + forwardCount);
                for (int l = 0; l < shape.layers; ++l)
                    run.gemms.insert(run.gemms.end(), layerGemms.begin() + forwardCount, layerGemms.end());
            }
        }
        std::puts("one layer's GEMMs, each alone, remat's kernels vs OpenBLAS (same threads):");
        compareShapes(layerGemms, ops, blas);

        for (StepRun &run : runs) {
            Executor executor(backend, model, run.schedule);
            Operands o(run.gemms);
            for (int r = 0; r <= repeats; ++r) // the first round warms up
                for (int turn = 0; turn < 3; ++turn) {
                    // On several threads every turn starts from the same pause:
                    // OpenBLAS's threads spin a while after a call, and a core
                    // that idled starts slower (the vCPU descheduled, caches
                    // cold), so a turn right after OpenBLAS's would be the one
                    // paying for it. One thread has nothing to settle.
                    if (blas.loaded() && blas.threads() > 1)
                        settle();
                    std::vector<double> *into = nullptr;
                    double t = 0;
                    switch ((r + turn) % 3) {
                    case 0:
                        t = executor.runStep().seconds;
                        into = &run.step;
                        break;
                    case 1:
                        t = seconds([&] { replay(run.gemms, o, onOps(ops)); });
                        into = &run.own;
                        break;
                    default:
                        if (!blas.loaded())
                            continue;
                        t = seconds([&] { replay(run.gemms, o, onOpenBlas(blas)); });
                        into = &run.openblas;
                        break;
                    }
                    if (r > 0)
                        into->push_back(t);
                }
        }
        std::printf("%-24s %9s %12s %14s %17s %11s\n", "step", "step s", "step GFLOP/s", "its GEMMs remat",
                    "its GEMMs OpenBLAS", "of OpenBLAS");
        for (const StepRun &run : runs) {
            const double stepRate = run.flops / median(run.step) / 1e9, gemmFlops = flops(run.gemms);
            const double own = gemmFlops / median(run.own) / 1e9;
            const double theirs = run.openblas.empty() ? 0 : gemmFlops / median(run.openblas) / 1e9;
            // Per round: the step's FLOPs over its time, OpenBLAS's GEMM FLOPs over theirs.
            const double share = run.flops / gemmFlops * bench::medianRatio(run.openblas, run.step);
            std::printf("%-24s %9.4f %12.1f %14.1f %17.1f %10.1f%%\n", run.label.c_str(), median(run.step), stepRate,
                        own, theirs, 100 * share);
        }
        std::puts("step GFLOP/s: the schedule's FLOPs (recomputation included) over the step's time; its GEMMs:");
        std::puts("the step's GEMMs alone (GFLOP/s) on remat's kernels and on OpenBLAS; of OpenBLAS: the step's rate");
        std::puts("over OpenBLAS's on those GEMMs, the median of the rounds' ratios (target >= 80 %)");
    } catch (const std::exception &e) {
        std::fprintf(stderr, "bench_transformer: %s\n", e.what());
        return 2;
    }
    return 0;
}
