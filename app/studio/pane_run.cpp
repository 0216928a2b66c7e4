#include "app/studio/pane_run.h"

#include "app/export/export_pane.h"
#include "core/errors.h"
#include "core/strategy_registry.h"
#include "core/units.h"

#include <algorithm>

namespace remat::studio {

PaneRun simulatePane(std::shared_ptr<const Model> model, const PaneConfig &config) {
    // The export's planning and replay, so that a pane and its GIF show the same run.
    exporting::ExportPane pane = exporting::simulateExportPane(model, config.strategy, config.params);
    PaneRun run;
    run.config = config;
    run.strategy = pane.strategy;
    run.model = std::move(model);
    run.summary = pane.summary;
    run.timeline = std::move(pane.timeline);
    run.costOverhead = pane.costOverhead;
    return run;
}

double estimatedOps(const Model &model, const PaneConfig &config) {
    const Strategy *strategy = StrategyRegistry::builtin().find(config.strategy);
    if (!strategy)
        return 0;
    try {
        return strategy->estimate(model, config.params).ops;
    } catch (const remat::Error &) {
        return 0; // bad parameters: planning them fails at once and reports why
    }
}

PaneConfig withCheckpointToggled(const PaneRun &run, int index) {
    std::vector<int> checkpoints = run.timeline->schedule().checkpoints;
    std::sort(checkpoints.begin(), checkpoints.end()); // planners need not list them in order
    const auto it = std::lower_bound(checkpoints.begin(), checkpoints.end(), index);
    if (it != checkpoints.end() && *it == index)
        checkpoints.erase(it);
    else
        checkpoints.insert(it, index);
    PaneConfig config;
    config.strategy = "checkpoints";
    config.params.checkpoints = std::move(checkpoints);
    return config;
}

PaneConfig fittedTo(PaneConfig config, int layers) {
    StrategyParams &params = config.params;
    if (params.every && *params.every > layers)
        params.every.reset();
    if (params.checkpointSlots && *params.checkpointSlots > layers + 1)
        params.checkpointSlots.reset();
    if (params.checkpoints) {
        auto &c = *params.checkpoints;
        c.erase(std::remove_if(c.begin(), c.end(), [&](int v) { return v >= layers; }), c.end());
    }
    return config;
}

std::string describeParams(const PaneConfig &config) {
    const StrategyParams &p = config.params;
    if (p.every)
        return "k = " + std::to_string(*p.every);
    if (p.checkpointSlots)
        return std::to_string(*p.checkpointSlots) + " slots";
    if (p.budgetNodes)
        return "memory <= " + std::to_string(*p.budgetNodes) + " nodes";
    if (p.budgetBytes)
        return "memory <= " + formatBytes(*p.budgetBytes);
    if (p.checkpoints) {
        const auto &c = *p.checkpoints;
        if (c.empty())
            return "no checkpoints";
        constexpr std::size_t kShown = 8;
        std::string out;
        for (std::size_t i = 0; i < c.size() && i < kShown; ++i)
            out += (i ? ", a_" : "a_") + std::to_string(c[i]);
        if (c.size() > kShown)
            out += ", \u2026 (" + std::to_string(c.size()) + ")";
        return out;
    }
    return "";
}

bool plansSlowly(const PaneConfig &config) {
    return config.strategy == "budget" || config.strategy == "auto" || config.strategy == "offload-budget" ||
           config.strategy == "op-budget";
}

} // namespace remat::studio
