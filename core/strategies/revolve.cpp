// revolve: Griewank & Walther's binomial checkpointing (ACM TOMS 2000,
// Algorithm 799). With c slots (a_0 included) it reverses the chain with the
// proven minimum of T(n+1, c) forward evaluations (core/planners/binomial.h).
#include "core/errors.h"
#include "core/planners/binomial.h"
#include "core/planners/chain_split.h"
#include "core/schedule_builder.h"
#include "core/strategies/builtin.h"

#include <cmath>

namespace remat {

namespace {

class RevolveStrategy final : public Strategy {
public:
    std::string_view name() const override { return "revolve"; }
    std::string_view summary() const override {
        return "binomial checkpointing with C slots (--slots, default round(sqrt n)): the fewest recomputations "
               "for that many slots";
    }
    std::string_view memoryClass() const override { return "O(c)"; }
    // Named explicitly (or from the studio); "all" keeps the seed comparison.
    bool runsWithDefaults() const override { return false; }
    std::string_view computeClass() const override { return "O(r n), r = repetition number"; }

    static int slotsFor(const Model &model, const StrategyParams &params) {
        const int n = model.layers();
        return params.checkpointSlots.value_or(std::max(1, static_cast<int>(std::lround(std::sqrt(double(n))))));
    }

    OpEstimate countOps(const Model &model, const StrategyParams &params) const override {
        const int n = model.layers();
        const double f = static_cast<double>(planners::revolveForwardSteps(n + 1, slotsFor(model, params)));
        return {f, n + 1.0, 2 * (f + n + 1), "T(n+1, c) = r(n+1) - C(c+r, r-1)"};
    }

protected:
    void validate(const Model &model, const StrategyParams &params) const override {
        requireChain(model);
        rejectUnused(params, false, false, true, false);
        if (params.checkpointSlots && *params.checkpointSlots < 1)
            throw InvalidArgument("--slots must be at least 1 (a_0 always takes one slot), got " +
                                  std::to_string(*params.checkpointSlots));
    }

    Schedule plan(const Model &model, const StrategyParams &params) const override {
        const int n = model.layers();
        const int c = slotsFor(model, params);
        // More slots than states buy nothing: every node gets one (store-all).
        const int usable = std::min(c, n + 1);
        auto choose = [](int s, int t, int slots) {
            const int d = static_cast<int>(planners::revolveAdvance(t - s + 1, slots));
            return std::pair<int, int>{s + d, slots - 1};
        };
        std::vector<NodeId> order;
        Schedule s;
        planners::emitSplitOrder(model, 0, n, usable, choose, order, &s.checkpoints);
        s.description = std::to_string(c) + " slots" + (c > n ? " (every node: store-all)" : "");
        s.ops = insertFrees(model, order, lastCheckpoint(s.checkpoints));
        return s;
    }
};

} // namespace

std::unique_ptr<Strategy> makeRevolveStrategy() {
    return std::make_unique<RevolveStrategy>();
}

} // namespace remat
