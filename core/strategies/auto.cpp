// auto: about sqrt(n) of the graph's articulation points (nodes every path
// from input to loss passes through), evenly spaced, as the "memory" mode of
// OpenAI's gradient-checkpointing package picks them; then the segment plan.
// On graphs with long skips (U-Net) there are few such points and it does
// badly: docs/planners.md shows the case and a better hand-picked set.
#include "core/planners/dag_budget.h"
#include "core/planners/dag_plans.h"
#include "core/schedule_builder.h"
#include "core/strategies/builtin.h"

namespace remat {

namespace {

class AutoStrategy final : public Strategy {
public:
    std::string_view name() const override { return "auto"; }
    std::string_view summary() const override {
        return "checkpoint about sqrt(n) of the graph's articulation points (bottlenecks), evenly spaced";
    }
    std::string_view memoryClass() const override { return "O(sqrt n) on chains"; }
    // Named explicitly (or from the studio); "all" keeps the seed comparison.
    bool runsWithDefaults() const override { return false; }
    std::string_view computeClass() const override { return "O(n)"; }
    bool worksOnGraphs() const override { return true; }

    OpEstimate countOps(const Model &model, const StrategyParams &) const override {
        const double f = planners::segmentOrderForwardEvaluations(model, planners::autoCheckpoints(model));
        const double b = model.forwardCount();
        return {f, b, 2 * (f + b), "n plus one recomputation of each segment"};
    }

protected:
    void validate(const Model &, const StrategyParams &params) const override { rejectUnused(params, false, false); }

    Schedule plan(const Model &model, const StrategyParams &) const override {
        Schedule s;
        s.checkpoints = planners::autoCheckpoints(model);
        s.description = std::to_string(s.checkpoints.size()) + " of " +
                        std::to_string(planners::articulationPoints(model).size()) + " articulation points";
        s.ops = insertFrees(model, planners::segmentOrder(model, s.checkpoints), lastCheckpoint(s.checkpoints));
        return s;
    }
};

} // namespace

std::unique_ptr<Strategy> makeAutoStrategy() {
    return std::make_unique<AutoStrategy>();
}

} // namespace remat
