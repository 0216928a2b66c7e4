// checkpoints: the forward nodes the user chose (by list, or by clicking in the
// studio) are kept between the passes; every other segment is recomputed once.
#include "core/errors.h"
#include "core/planners/dag_plans.h"
#include "core/schedule_builder.h"
#include "core/strategies/builtin.h"

namespace remat {

namespace {

class CheckpointsStrategy final : public Strategy {
public:
    std::string_view name() const override { return "checkpoints"; }
    std::string_view summary() const override {
        return "keep the forward nodes you list (--checkpoints 3,7,11); recompute the rest once";
    }
    std::string_view memoryClass() const override { return "O(|C| + longest segment)"; }
    std::string_view computeClass() const override { return "O(n)"; }
    bool runsWithDefaults() const override { return false; }
    bool worksOnGraphs() const override { return true; }

    OpEstimate countOps(const Model &model, const StrategyParams &params) const override {
        const int n = model.layers();
        const double f =
            planners::segmentOrderForwardEvaluations(model, params.checkpoints.value_or(std::vector<int>{}));
        return {f, n + 1.0, 2 * (f + n + 1), "2n - |C| - 1"};
    }

protected:
    void validate(const Model &model, const StrategyParams &params) const override {
        rejectUnused(params, false, true);
        if (!params.checkpoints)
            throw InvalidArgument("checkpoints needs a list of forward nodes, e.g. --checkpoints 3,7,11");
        const int n = model.layers();
        int previous = 0;
        for (int c : *params.checkpoints) {
            if (c < 1 || c > n - 1)
                throw InvalidArgument("checkpoint " + std::to_string(c) +
                                      " is out of range; checkpoints are forward nodes 1 to n-1 = " +
                                      std::to_string(n - 1) + " (a_0 is always kept, a_n goes straight to the loss)");
            if (c == previous)
                throw InvalidArgument("checkpoint " + std::to_string(c) + " is listed twice");
            if (c < previous)
                throw InvalidArgument("checkpoints must be in increasing order, got " + std::to_string(c) + " after " +
                                      std::to_string(previous));
            previous = c;
        }
    }

    Schedule plan(const Model &model, const StrategyParams &params) const override {
        Schedule s;
        s.checkpoints = *params.checkpoints;
        s.description = std::to_string(s.checkpoints.size()) + " chosen checkpoints";
        s.ops = insertFrees(model, planners::segmentOrder(model, s.checkpoints), lastCheckpoint(s.checkpoints));
        return s;
    }
};

} // namespace

std::unique_ptr<Strategy> makeCheckpointsStrategy() {
    return std::make_unique<CheckpointsStrategy>();
}

} // namespace remat
