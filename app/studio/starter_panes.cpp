#include "app/studio/starter_panes.h"

#include "core/simulator.h"
#include "core/strategy_registry.h"

namespace remat::studio {

namespace {

PaneConfig pane(const std::string &strategy, std::optional<std::int64_t> budgetBytes = {}) {
    PaneConfig config;
    config.strategy = strategy;
    config.params.budgetBytes = budgetBytes;
    return config;
}

std::int64_t peakOf(const Model &model, const std::string &strategy) {
    return Simulator::summarize(model, StrategyRegistry::builtin().get(strategy).makeSchedule(model, {})).peakBytes;
}

} // namespace

std::vector<PaneConfig> starterPanes(const Model &model) {
    if (model.isOpLevel()) {
        const std::int64_t high = peakOf(model, "store-all"), low = peakOf(model, "per-block");
        return {pane("store-all"), pane("per-block"), pane("save-matmuls"), pane("op-budget", low + (high - low) / 2)};
    }
    if (model.isChain())
        return {};
    const std::int64_t high = peakOf(model, "store-all"), low = peakOf(model, "recompute-all");
    const std::int64_t half = low + (high - low) / 2;
    return {pane("store-all"), pane("budget", half), pane("dtr", half)};
}

} // namespace remat::studio
