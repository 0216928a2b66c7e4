// offload-all (PyTorch's torch.autograd.graph.save_on_cpu): every activation
// the backward pass needs is copied to host right after it is computed,
// freed on the device after its last forward read, and prefetched just in
// time, one op before the gradient that reads it (core/offload_schedule.h).
// The input a_0, the output a_n (read by the loss at once) and a_{n-1}
// (F_n reads it right before b_n, the op its prefetch would overlap) stay on
// the device; saved internals s_i stay on the device too. Store-all's compute,
// a device peak of a few nodes, and stalls whenever the link is slower than
// the op a copy overlaps.
#include "core/offload_schedule.h"
#include "core/schedule_builder.h"
#include "core/strategies/builtin.h"

namespace remat {

namespace {

class OffloadAllStrategy final : public Strategy {
public:
    std::string_view name() const override { return "offload-all"; }
    std::string_view summary() const override {
        return "save_on_cpu: every activation goes to host after its forward use and comes back one op before its "
               "gradient (needs --link)";
    }
    std::string_view memoryClass() const override { return "O(1) + host O(n)"; }
    std::string_view computeClass() const override { return "O(n) + stalls"; }
    bool runsWithDefaults() const override { return false; }
    bool worksOnGraphs() const override { return true; }
    bool usesLink() const override { return true; }

    OpEstimate countOps(const Model &model, const StrategyParams &) const override {
        const double f = model.forwardCount() - 1, b = model.forwardCount();
        return {f, b, 2 * (f + b) + 3 * f, "n"};
    }

protected:
    void validate(const Model &, const StrategyParams &params) const override {
        rejectUnused(params, false, false);
        requireLink(params, true);
    }

    Schedule plan(const Model &model, const StrategyParams &) const override {
        std::vector<std::uint8_t> offloaded(static_cast<std::size_t>(model.forwardCount()), 1);
        offloaded[model.inputNode()] = 0;
        offloaded[model.outputNode()] = 0;
        Schedule s;
        s.description = "every activation to host after its forward use, back one op before its gradient";
        s.ops = withOffloads(model, computeOps(model, storeAllOrder(model), 0), offloaded);
        s.checkpoints = keptIntoBackward(model, s.ops);
        return s;
    }
};

} // namespace

std::unique_ptr<Strategy> makeOffloadAllStrategy() {
    return std::make_unique<OffloadAllStrategy>();
}

} // namespace remat
