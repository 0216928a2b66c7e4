// store-all ("as soon as possible"): every activation computed once and kept
// until its gradient is done. n forward evaluations, O(n) memory.
#include "core/schedule_builder.h"
#include "core/strategies/builtin.h"

namespace remat {

namespace {

class StoreAllStrategy final : public Strategy {
public:
    std::string_view name() const override { return "store-all"; }
    std::string_view summary() const override { return "as soon as possible: keep every activation, no recomputation"; }
    std::string_view memoryClass() const override { return "O(n)"; }
    std::string_view computeClass() const override { return "O(n)"; }
    bool worksOnGraphs() const override { return true; }

    OpEstimate countOps(const Model &model, const StrategyParams &) const override {
        const double f = model.forwardCount() - 1, b = model.forwardCount();
        return {f, b, 2 * (f + b), "n"};
    }

protected:
    void validate(const Model &, const StrategyParams &params) const override { rejectUnused(params, false, false); }

    Schedule plan(const Model &model, const StrategyParams &) const override {
        Schedule s;
        s.description = "keep every activation";
        s.ops = insertFrees(model, storeAllOrder(model), 0); // every layer records: nothing is checkpointed
        for (int i = 1; i < model.forwardCount() - 1; ++i)
            s.checkpoints.push_back(i);
        return s;
    }
};

} // namespace

std::unique_ptr<Strategy> makeStoreAllStrategy() {
    return std::make_unique<StoreAllStrategy>();
}

} // namespace remat
