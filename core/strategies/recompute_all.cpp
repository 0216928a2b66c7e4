// recompute-all ("as late as possible"): keep only a_0; before each gradient
// b_j, recompute a_1..a_j from the input (on a graph: the ancestors of a_j).
// n(n+1)/2 forward evaluations on a chain, O(1) memory.
#include "core/planners/dag_plans.h"
#include "core/schedule_builder.h"
#include "core/strategies/builtin.h"

namespace remat {

namespace {

class RecomputeAllStrategy final : public Strategy {
public:
    std::string_view name() const override { return "recompute-all"; }
    std::string_view summary() const override {
        return "as late as possible: keep only the input, recompute every activation when it is needed";
    }
    std::string_view memoryClass() const override { return "O(1)"; }
    std::string_view computeClass() const override { return "O(n^2)"; }
    bool worksOnGraphs() const override { return true; }

    OpEstimate countOps(const Model &model, const StrategyParams &) const override {
        const double n = model.layers();
        const double f = n * (n + 1) / 2, b = n + 1;
        return {f, b, 2 * (f + b), "n(n+1)/2"};
    }

protected:
    void validate(const Model &, const StrategyParams &params) const override { rejectUnused(params, false, false); }

    Schedule plan(const Model &model, const StrategyParams &) const override {
        Schedule s;
        s.description = "keep only a_0";
        s.ops = insertFrees(model, planners::recomputeAllOrder(model), 0); // every run before a backward records
        return s;
    }
};

} // namespace

std::unique_ptr<Strategy> makeRecomputeAllStrategy() {
    return std::make_unique<RecomputeAllStrategy>();
}

} // namespace remat
