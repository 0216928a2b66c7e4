// Simulator throughput: ops replayed per second on one core, and the memory the
// summary and the timeline need. Target: >= 50 million ops/s; summary memory
// O(n). Run from the release preset:
//   build/release/bench/simulator/bench_simulator
#include "core/simulator.h"
#include "core/strategy_registry.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

using namespace remat;
using Clock = std::chrono::steady_clock;

namespace {

long peakRssKiB() {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("VmHWM:", 0) == 0)
            return std::stol(line.substr(6));
    return -1;
}

template <class F> double medianSeconds(int repeats, F &&f) {
    std::vector<double> times;
    for (int i = 0; i < repeats; ++i) {
        const auto t0 = Clock::now();
        f();
        times.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

// `machine`: timed on two streams (offloading; docs/model.md).
void bench(const char *strategy, int n, const std::optional<Machine> &machine = std::nullopt) {
    auto model = std::make_shared<const Model>(Model::chain(n));
    StrategyParams params;
    params.machine = machine;
    const auto t0 = Clock::now();
    auto schedule =
        std::make_shared<const Schedule>(StrategyRegistry::builtin().get(strategy).makeSchedule(*model, params));
    const double planSeconds = std::chrono::duration<double>(Clock::now() - t0).count();
    const auto ops = static_cast<double>(schedule->ops.size());
    Summary summary;
    const double summarize = medianSeconds(7, [&] {
        summary = machine ? Simulator::summarize(*model, *schedule, *machine) : Simulator::summarize(*model, *schedule);
    });
    const double replay = medianSeconds(3, [&] {
        if (machine)
            Simulator::replay(model, schedule, *machine);
        else
            Simulator::replay(model, schedule);
    });
    std::printf("%-14s n=%-7d ops=%-9.0f plan %.3f s | summarize %.4f s = %6.1f Mops/s | replay+timeline %.4f s = "
                "%6.1f Mops/s | peak %lld nodes%s\n",
                strategy, n, ops, planSeconds, summarize, ops / summarize / 1e6, replay, ops / replay / 1e6,
                static_cast<long long>(summary.peakNodes), machine ? " (timed, two streams)" : "");
}

} // namespace

int main() {
    std::printf("remat simulator benchmark (one thread)\n");
    bench("periodic", 100000);
    bench("recompute-all", 2000);
    bench("store-all", 1000000);
    Machine link;
    link.link.bytesPerSecond = 0.7; // a 1-byte node takes 1.43 forward ops to move: stalls everywhere
    bench("offload-all", 1000000, link);
    // Summary memory is O(n): the resident flags and compute counts, 5 bytes a node.
    std::printf("process peak RSS: %ld KiB\n", peakRssKiB());
    return 0;
}
