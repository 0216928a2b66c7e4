// The op-level MILP on traced models (docs/planners.md, "Op level: beyond
// enumeration"): its size, and at budgets evenly from the least peak to
// store-all's, the time of each solve and what it proved. With --check, the
// enumeration's exact plan beside it where the enumeration is exact (the
// two must agree).
//   build/release/bench/planners/bench_op_milp MODEL.json [--budgets 10] [--effort 2000] [--check]
#include "bench/planners/bench_clock.h"
#include "core/errors.h"
#include "core/model_io.h"
#include "core/op_plan.h"
#include "core/planners/op_exact.h"
#include "core/planners/op_milp.h"
#include "core/units.h"

#include <cstdio>
#include <cstring>
#include <string>

using namespace remat;
using bench::Clock;
using bench::seconds;

int main(int argc, char **argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s MODEL.json [--budgets N] [--effort N] [--check]\n", argv[0]);
        return 2;
    }
    int budgets = 10;
    std::int64_t effort = kDefaultOpSolverEffort;
    bool check = false;
    for (int a = 2; a < argc; ++a) {
        if (!std::strcmp(argv[a], "--budgets") && a + 1 < argc)
            budgets = std::max(2, std::atoi(argv[++a]));
        else if (!std::strcmp(argv[a], "--effort") && a + 1 < argc)
            effort = std::atoll(argv[++a]);
        else if (!std::strcmp(argv[a], "--check"))
            check = true;
    }
    try {
        const ModelFile file = loadModelFile(argv[1]);
        const Model &model = file.model;
        const OpGraph graph = opGraph(file);
        std::size_t largest = 0;
        for (const OpGroup &g : graph.groups)
            largest = std::max(largest, g.nodes.size());
        OpPlannerOptions enumerated;
        enumerated.solverEffort = 0;
        auto started = Clock::now();
        const OpPlanner dp(model, graph, enumerated);
        std::printf("%s: %d op nodes, %zu groups, largest %zu nodes; enumeration %s in %.1f s\n", argv[1],
                    model.forwardCount() - 1, graph.groups.size() - 1, largest,
                    dp.exact() ? "exact" : ("not exact: " + dp.inexactReason()).c_str(), seconds(started));
        const planners::OpMilp sized(model, graph, dp.storeAllPeakBytes());
        std::printf("MILP: %d columns (%d integer), %d rows, %lld nonzeros\n", sized.problem().columns(),
                    sized.problem().integerColumns(), sized.problem().rows(),
                    static_cast<long long>(sized.problem().nonzeros()));
        started = Clock::now();
        const planners::OpMilpMinimum least = planners::minimumOpMilpPeak(model, graph, {effort, {}, {}});
        const std::int64_t most = dp.storeAllPeakBytes();
        std::printf("least peak %s (%s, bound %s, %lld nodes) in %.1f s; enumeration's least %s; store-all %s\n",
                    formatBytes(least.peakBytes).c_str(), least.optimal ? "proven" : "not proven",
                    formatBytes(least.lowerBound).c_str(), static_cast<long long>(least.nodes), seconds(started),
                    formatBytes(dp.minimumPeakBytes()).c_str(), formatBytes(most).c_str());
        int proven = 0;
        double worst = 0, slowest = 0;
        for (int k = 0; k < budgets; ++k) {
            const std::int64_t budget = least.peakBytes + (most - least.peakBytes) * k / (budgets - 1);
            const auto start = dp.plan(budget);
            started = Clock::now();
            planners::OpMilpOptions options{effort, {}, {}};
            if (start)
                options.starts.push_back(start->keep);
            const auto plan = planners::planOpMilp(model, graph, budget, options);
            const double took = seconds(started);
            slowest = std::max(slowest, took);
            if (!plan) {
                std::printf("  budget %12s: no plan (%.1f s)\n", formatBytes(budget).c_str(), took);
                continue;
            }
            const double gap =
                plan->recomputeCost > 0 ? (plan->recomputeCost - plan->lowerBound) / plan->recomputeCost : 0;
            worst = std::max(worst, gap);
            proven += plan->optimal;
            std::printf("  budget %12s: peak %12s, re-run %10.4f %s, %s, %lld nodes, %.2f s; enumeration %s\n",
                        formatBytes(budget).c_str(), formatBytes(plan->peakBytes).c_str(), plan->recomputeCost,
                        model.costUnit().c_str(),
                        plan->optimal ? "optimal" : ("gap " + std::to_string(100 * gap) + " %").c_str(),
                        static_cast<long long>(plan->nodes), took,
                        start ? std::to_string(start->recomputeCost).c_str() : "none");
            if (check && dp.exact() && start && std::abs(start->recomputeCost - plan->recomputeCost) > 1e-9) {
                std::fprintf(stderr, "MISMATCH at budget %lld\n", static_cast<long long>(budget));
                return 1;
            }
        }
        std::printf("%d of %d budgets optimal, largest gap %.3f %%, slowest solve %.1f s\n", proven, budgets,
                    100 * worst, slowest);
    } catch (const Error &e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 2;
    }
    return 0;
}
