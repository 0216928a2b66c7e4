// recursive: Chen et al. 2016 ("Training Deep Nets with Sublinear Memory
// Cost"), the recursive variant: keep the middle node of a segment, handle the
// right half, then the left half, each the same way. About log2(n) nodes held
// and about (n/2) log2(n) forward evaluations.
#include "core/planners/chain_split.h"
#include "core/schedule_builder.h"
#include "core/strategies/builtin.h"

#include <cmath>

namespace remat {

namespace {

class RecursiveStrategy final : public Strategy {
public:
    std::string_view name() const override { return "recursive"; }
    std::string_view summary() const override {
        return "Chen et al.'s recursion: keep each segment's middle node, recurse into both halves";
    }
    std::string_view memoryClass() const override { return "O(log n)"; }
    // Named explicitly (or from the studio); "all" keeps the seed comparison.
    bool runsWithDefaults() const override { return false; }
    std::string_view computeClass() const override { return "O(n log n)"; }

    OpEstimate countOps(const Model &model, const StrategyParams &) const override {
        const double n = model.layers();
        // Each level of the halving re-runs at most the whole chain once.
        const double f = n * (std::ceil(std::log2(n + 1)) + 1);
        return {f, n + 1, 2 * (f + n + 1), "at most n (log2(n+1) + 1)"};
    }

protected:
    void validate(const Model &model, const StrategyParams &params) const override {
        requireChain(model);
        rejectUnused(params, false, false);
    }

    Schedule plan(const Model &model, const StrategyParams &) const override {
        // The split is the middle of the states s..t; the right half starts there.
        auto choose = [](int s, int t, int depth) { return std::pair<int, int>{s + (t - s + 1) / 2, depth + 1}; };
        std::vector<NodeId> order;
        Schedule s;
        planners::emitSplitOrder(model, 0, model.layers(), 0, choose, order, &s.checkpoints);
        s.description = "halve each segment";
        s.ops = insertFrees(model, order, lastCheckpoint(s.checkpoints));
        return s;
    }
};

} // namespace

std::unique_ptr<Strategy> makeRecursiveStrategy() {
    return std::make_unique<RecursiveStrategy>();
}

} // namespace remat
