#include "app/studio/pane_run.h"

#include "core/comparison.h"
#include "core/errors.h"
#include "core/strategy_registry.h"
#include "core/units.h"

#include <algorithm>

namespace remat::studio {

PaneRun simulatePane(std::shared_ptr<const Model> model, const PaneConfig &config) {
    const Strategy &strategy = StrategyRegistry::builtin().get(config.strategy);
    std::vector<ComparisonRow> rows = compareStrategies(*model, {&strategy}, config.params);
    ComparisonRow &row = rows.front();
    auto schedule = std::make_shared<const Schedule>(std::move(row.schedule));
    Replay replay = Simulator::replay(model, schedule);
    PaneRun run;
    run.config = config;
    run.strategy = &strategy;
    run.model = std::move(model);
    run.summary = replay.summary;
    run.timeline = std::make_shared<const Timeline>(std::move(replay.timeline));
    run.costOverhead = row.costOverhead;
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
    return config.strategy == "budget" || config.strategy == "auto";
}

} // namespace remat::studio
