// dtr: Dynamic Tensor Rematerialization (Kirisame et al., ICLR 2021). No
// plan: the step runs in store-all's order within a memory budget, evicting
// by a heuristic when an op does not fit and recomputing evicted nodes when
// an op needs them (core/planners/dtr_runtime.h). What it did is an ordinary
// Schedule, with the reason for every eviction in Schedule::events.
#include "core/errors.h"
#include "core/planners/dtr_runtime.h"
#include "core/schedule_builder.h"
#include "core/strategies/builtin.h"
#include "core/units.h"

namespace remat {

namespace {

std::string counted(std::int64_t n, const std::string &what) {
    return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

class DtrStrategy final : public Strategy {
public:
    std::string_view name() const override { return "dtr"; }
    std::string_view summary() const override {
        return "the runtime decides (Dynamic Tensor Rematerialization): within --budget, evict by h = c/(m*s) when "
               "full, recompute on demand; --heuristic dtr (default) or cost-per-byte";
    }
    std::string_view memoryClass() const override { return "<= budget"; }
    std::string_view computeClass() const override { return "decided online"; }
    bool runsWithDefaults() const override { return false; }
    bool worksOnGraphs() const override { return true; }

    OpEstimate countOps(const Model &model, const StrategyParams &) const override {
        // Unknown before it runs: store-all's count, and the run stops at kMaxOps.
        const double f = model.forwardCount() - 1, b = model.forwardCount();
        return {f, b, 2 * (f + b), "n or more: the runtime decides"};
    }

protected:
    void validate(const Model &, const StrategyParams &params) const override {
        rejectUnused(params, false, false, false, true, true);
        if (params.memorySteps)
            throw InvalidArgument("--memory-steps applies to budget, not to dtr (it plans nothing)");
        if (!params.budgetBytes && !params.budgetNodes)
            throw InvalidArgument("dtr needs a memory budget to run within: --budget 2GiB (bytes) or --budget 12 "
                                  "(nodes)");
        if (params.budgetBytes && params.budgetNodes)
            throw InvalidArgument("dtr takes one budget, in bytes or in nodes, not both");
        if (params.heuristic)
            planners::dtrHeuristicNamed(*params.heuristic);
    }

    Schedule plan(const Model &model, const StrategyParams &params) const override {
        const planners::DtrHeuristic heuristic =
            params.heuristic ? planners::dtrHeuristicNamed(*params.heuristic) : planners::DtrHeuristic::Dtr;
        const planners::DtrBudget budget{params.budgetNodes.has_value(),
                                         params.budgetNodes ? *params.budgetNodes : *params.budgetBytes};
        planners::DtrRun run = planners::runDtr(model, budget, heuristic, kMaxOps);
        Schedule s;
        s.description = "runtime eviction by " + std::string(planners::dtrHeuristicFormula(heuristic)) + " within " +
                        (budget.nodes ? std::to_string(budget.amount) + " nodes" : formatBytes(budget.amount)) + ": " +
                        counted(run.evictions, "eviction") + ", " + counted(run.rematerializations, "recomputation");
        s.ops = std::move(run.ops);
        s.events = std::move(run.events);
        s.checkpoints = keptIntoBackward(model, s.ops);
        return s;
    }
};

} // namespace

std::unique_ptr<Strategy> makeDtrStrategy() {
    return std::make_unique<DtrStrategy>();
}

} // namespace remat
