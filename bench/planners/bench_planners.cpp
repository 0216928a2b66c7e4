// Planner speed, one core. Targets (issue 3):
//   revolve n = 100000, c = 100: plan + simulate < 1 s
//   budget 128 nodes x 512 memory steps < 1 s
//   budget 512 nodes x 512 memory steps < 60 s, with progress and cancellation
// and, for reference, the exact planner at 40 nodes (its O(n^4 S) limit).
// Run from the release preset:
//   build/release/bench/planners/bench_planners [--skip-512]
#include "core/errors.h"
#include "core/simulator.h"
#include "core/strategy_registry.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>

using namespace remat;
using Clock = std::chrono::steady_clock;

namespace {

double seconds(Clock::time_point since) {
    return std::chrono::duration<double>(Clock::now() - since).count();
}

// Uneven layers, as a real network has: sizes and costs vary tenfold.
Model unevenChain(int n) {
    std::mt19937 rng(7);
    std::uniform_int_distribution<int> size(1, 10), cost(1, 10);
    std::vector<ForwardSpec> specs(n + 1);
    for (int i = 0; i <= n; ++i) {
        specs[i].bytes = std::int64_t(size(rng)) << 20;
        specs[i].forwardCost = cost(rng);
        specs[i].backwardCost = 2 * specs[i].forwardCost;
        if (i > 0)
            specs[i].inputs = {i - 1};
    }
    return Model::fromForward(std::move(specs));
}

void benchRevolve() {
    const Model model = Model::chain(100000);
    StrategyParams p;
    p.checkpointSlots = 100;
    const auto t0 = Clock::now();
    const Schedule s = StrategyRegistry::builtin().get("revolve").makeSchedule(model, p);
    const double plan = seconds(t0);
    const Summary summary = Simulator::summarize(model, s);
    std::printf("revolve n=100000 c=100: plan %.3f s + simulate %.3f s = %.3f s (target < 1 s); %lld forward "
                "evaluations, %zu ops, peak %lld nodes\n",
                plan, seconds(t0) - plan, seconds(t0), static_cast<long long>(summary.forwardEvaluations), s.ops.size(),
                static_cast<long long>(summary.peakNodes));
}

void benchBudget(int n, double target) {
    const Model model = unevenChain(n);
    const Summary storeAll =
        Simulator::summarize(model, StrategyRegistry::builtin().get("store-all").makeSchedule(model, {}));
    StrategyParams p;
    p.budgetBytes = storeAll.peakBytes / 4;
    p.memorySteps = 512;
    int reports = 0;
    p.progress = [&reports](double) { ++reports; };
    const auto t0 = Clock::now();
    const Schedule s = StrategyRegistry::builtin().get("budget").makeSchedule(model, p);
    const double plan = seconds(t0);
    const Summary summary = Simulator::summarize(model, s);
    std::printf("budget n=%d x 512 steps: %.2f s (target < %.0f s), %d progress reports; peak %.1f of %.1f MiB "
                "budget, cost %.0f vs store-all %.0f; %s\n",
                n, plan, target, reports, summary.peakBytes / 1048576.0, *p.budgetBytes / 1048576.0, summary.cost,
                storeAll.cost, s.description.c_str());
}

void benchCancel(int n) {
    const Model model = unevenChain(n);
    StrategyParams p;
    p.budgetBytes = std::int64_t(n) << 20;
    const auto t0 = Clock::now();
    p.cancelled = [&t0] { return seconds(t0) > 0.2; };
    try {
        StrategyRegistry::builtin().get("budget").makeSchedule(model, p);
        std::printf("cancel n=%d: finished before the request\n", n);
    } catch (const Cancelled &) {
        std::printf("cancel n=%d: stopped %.3f s after start (asked at 0.2 s)\n", n, seconds(t0));
    }
}

} // namespace

int main(int argc, char **argv) {
    const bool skip512 = argc > 1 && std::strcmp(argv[1], "--skip-512") == 0;
    benchRevolve();
    benchBudget(40, 1); // the exact recurrence (releasing checkpoints) still runs here
    benchBudget(128, 1);
    benchCancel(512);
    if (!skip512)
        benchBudget(512, 60);
    return 0;
}
