// The exact stage search on graph models (docs/planners.md, "Graphs: an
// exact stage search"): at budgets evenly from the least peak found to
// store-all's, the graph planner with the MILP alone (--search-work 0) beside
// the planner with the search, the time each took and what each proved.
// --threads N expands the search's stages on N cores (default: every core;
// the plans and the work are the same on any number, the time is not).
//   build/release/bench/planners/bench_graph_search MODEL.json [--budgets 10] [--work N] [--threads N]
#include "bench/planners/bench_clock.h"
#include "core/errors.h"
#include "core/model_io.h"
#include "core/planners/chain_budget.h"
#include "core/planners/graph_exact.h"
#include "core/schedule_builder.h"
#include "core/simulator.h"
#include "core/strategy.h"
#include "core/units.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>

using namespace remat;
using bench::Clock;
using bench::seconds;

int main(int argc, char **argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s MODEL.json [--budgets N] [--work N] [--threads N]\n", argv[0]);
        return 2;
    }
    int budgets = 10;
    planners::GraphExactOptions searched;
    // A count as a whole number or in exponent form (1e8); anything else is refused.
    auto count = [&](const char *flag, const char *text, double least) -> std::optional<double> {
        char *end = nullptr;
        const double v = std::strtod(text, &end);
        if (end == text || *end != '\0' || !(v >= least) || v > 1e12 || v != std::floor(v)) {
            std::fprintf(stderr, "%s %s: expected a whole number from %.0f to 1e12\n", flag, text, least);
            return std::nullopt;
        }
        return v;
    };
    for (int a = 2; a < argc; ++a) {
        const bool hasValue = a + 1 < argc;
        if (!std::strcmp(argv[a], "--budgets") && hasValue) {
            const auto v = count("--budgets", argv[++a], 2);
            if (!v)
                return 2;
            budgets = static_cast<int>(std::min(*v, 10000.0));
        } else if (!std::strcmp(argv[a], "--work") && hasValue) {
            const auto v = count("--work", argv[++a], 0);
            if (!v)
                return 2;
            searched.searchWork = static_cast<std::int64_t>(*v);
        } else if (!std::strcmp(argv[a], "--threads") && hasValue) {
            const auto v = count("--threads", argv[++a], 1);
            if (!v || *v > 256) {
                if (v)
                    std::fprintf(stderr, "--threads %s: expected a whole number from 1 to 256\n", argv[a]);
                return 2;
            }
            searched.searchThreads = static_cast<int>(*v);
        } else {
            std::fprintf(stderr, "%s: unknown option or missing value (--budgets N, --work N, --threads N)\n",
                         argv[a]);
            return 2;
        }
    }
    try {
        const ModelFile file = loadModelFile(argv[1]);
        const Model &model = file.model;
        const auto bytes = planners::BudgetUnit::Bytes;
        const planners::GraphMinimum least = planners::minimumGraphPeak(model, bytes);
        Schedule storeAll;
        storeAll.ops = insertFrees(model, computeOps(model, storeAllOrder(model)));
        const std::int64_t most = Simulator::summarize(model, storeAll).peakBytes;
        std::printf("%s: %d layers, least peak %s, store-all %s\n", argv[1], model.layers(),
                    formatBytes(least.peak).c_str(), formatBytes(most).c_str());
        planners::GraphExactOptions milpOnly;
        milpOnly.searchWork = 0;
        int provenMilp = 0, provenBoth = 0;
        double timeMilp = 0, timeBoth = 0;
        for (int k = 0; k < budgets; ++k) {
            const std::int64_t budget = least.peak + (most - least.peak) * k / (budgets - 1);
            auto started = Clock::now();
            const planners::GraphExactPlan milp = planners::planGraphExact(model, bytes, budget, milpOnly);
            const double a = seconds(started);
            started = Clock::now();
            const planners::GraphExactPlan plan = planners::planGraphExact(model, bytes, budget, searched);
            const double b = seconds(started);
            timeMilp += a;
            timeBoth += b;
            provenMilp += milp.optimal;
            provenBoth += plan.optimal;
            std::printf("  %12s (%lld B): MILP alone %.6f %s, %s, %.2f s; with the search %.6f %s, %s%s, %lld "
                        "stage layouts, %.2f s\n",
                        formatBytes(budget).c_str(), static_cast<long long>(budget), milp.cost,
                        model.costUnit().c_str(), milp.proof().c_str(), a, plan.cost, model.costUnit().c_str(),
                        plan.proof().c_str(), plan.provenBySearch ? " (by the search)" : "",
                        static_cast<long long>(plan.searchWork), b);
            std::fflush(stdout);
        }
        std::printf("proven optimal: MILP alone %d of %d in %.1f s; with the search %d of %d in %.1f s\n", provenMilp,
                    budgets, timeMilp, provenBoth, budgets, timeBoth);
    } catch (const Error &e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 2;
    }
    return 0;
}
