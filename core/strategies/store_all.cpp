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

    // Forward in topological order, then every gradient in reverse: valid for
    // any DAG, since a gradient's consumers all come later in that order.
    Schedule plan(const Model &model, const StrategyParams &) const override {
        std::vector<NodeId> order;
        order.reserve(2 * model.forwardCount());
        for (int i = 1; i < model.forwardCount(); ++i)
            order.push_back(model.forwardNode(i));
        for (int i = model.forwardCount() - 1; i >= 0; --i)
            order.push_back(model.backwardNode(i));
        Schedule s;
        s.description = "keep every activation";
        s.ops = insertFrees(model, order, 0); // every layer records: nothing is checkpointed
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
