// periodic: a checkpoint every k-th forward node (default k = round(sqrt n)),
// each segment recomputed once in the backward pass. At most 2n forward
// evaluations; peak about n/k + k nodes, so about 2 sqrt(n) at the default.
#include "core/errors.h"
#include "core/planners/dag_plans.h"
#include "core/schedule_builder.h"
#include "core/strategies/builtin.h"

#include <cmath>

namespace remat {

namespace {

class PeriodicStrategy final : public Strategy {
public:
    std::string_view name() const override { return "periodic"; }
    std::string_view summary() const override {
        return "a checkpoint every k-th node (default k = round(sqrt n)); each segment recomputed once";
    }
    std::string_view memoryClass() const override { return "O(sqrt n)"; }
    std::string_view computeClass() const override { return "O(n)"; }

    static int defaultEvery(int n) { return std::max(1, static_cast<int>(std::lround(std::sqrt(double(n))))); }

    OpEstimate countOps(const Model &model, const StrategyParams &params) const override {
        const int n = model.layers();
        const double f = planners::segmentOrderForwardEvaluations(model, checkpointsFor(n, params));
        return {f, n + 1.0, 2 * (f + n + 1), "2n - n/k - 1"};
    }

protected:
    void validate(const Model &model, const StrategyParams &params) const override {
        requireChain(model);
        rejectUnused(params, true, false);
        const int n = model.layers();
        if (params.every && (*params.every < 1 || *params.every > n))
            throw InvalidArgument("--every must be from 1 to n = " + std::to_string(n) + ", got " +
                                  std::to_string(*params.every));
    }

    Schedule plan(const Model &model, const StrategyParams &params) const override {
        const int n = model.layers();
        Schedule s;
        s.checkpoints = checkpointsFor(n, params);
        const int k = params.every.value_or(defaultEvery(n));
        s.description = k == 1 ? std::string("every node") : "every " + std::to_string(k) + " nodes";
        s.ops = insertFrees(model, planners::segmentOrder(model, s.checkpoints), lastCheckpoint(s.checkpoints));
        return s;
    }

private:
    static std::vector<int> checkpointsFor(int n, const StrategyParams &params) {
        const int k = params.every.value_or(defaultEvery(n));
        std::vector<int> out;
        for (int i = k; i < n; i += k)
            out.push_back(i);
        return out;
    }
};

} // namespace

std::unique_ptr<Strategy> makePeriodicStrategy() {
    return std::make_unique<PeriodicStrategy>();
}

} // namespace remat
