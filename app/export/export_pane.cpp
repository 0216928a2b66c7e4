#include "app/export/export_pane.h"

#include "core/strategy_registry.h"

#include <optional>

namespace remat::exporting {

ComparisonRow ExportPane::row() const {
    ComparisonRow r;
    r.strategy = strategy;
    const Schedule &schedule = timeline->schedule();
    r.schedule.strategy = schedule.strategy;
    r.schedule.description = schedule.description;
    r.schedule.checkpoints = schedule.checkpoints;
    r.summary = summary;
    r.costOverhead = costOverhead;
    return r;
}

ExportPane makeExportPane(const Strategy *strategy, const Summary &summary, double costOverhead,
                          std::shared_ptr<const Timeline> timeline) {
    ExportPane pane;
    const Schedule &schedule = timeline->schedule();
    pane.title = QString::fromStdString(schedule.strategy);
    if (!schedule.description.empty())
        pane.title += QStringLiteral(" (%1)").arg(QString::fromStdString(schedule.description));
    pane.strategy = strategy;
    pane.summary = summary;
    pane.costOverhead = costOverhead;
    pane.timeline = std::move(timeline);
    return pane;
}

ExportPane simulateExportPane(const std::shared_ptr<const Model> &model, const std::string &name,
                              const StrategyParams &params) {
    const Strategy &strategy = StrategyRegistry::builtin().get(name);
    std::vector<ComparisonRow> rows = compareStrategies(*model, {&strategy}, params);
    ComparisonRow &row = rows.front();
    auto schedule = std::make_shared<const Schedule>(std::move(row.schedule));
    std::optional<Machine> clock = params.machine;
    if (clock) {
        // The budgets are what the planners planned for, not limits on the replay (as in compareStrategies).
        clock->deviceBudgetBytes.reset();
        clock->hostBudgetBytes.reset();
    }
    Replay replay = clock ? Simulator::replay(model, schedule, *clock) : Simulator::replay(model, schedule);
    return makeExportPane(&strategy, replay.summary, row.costOverhead,
                          std::make_shared<const Timeline>(std::move(replay.timeline)));
}

std::vector<ExportPane> simulatePanes(const std::shared_ptr<const Model> &model,
                                      const std::vector<std::string> &strategies, const StrategyParams &params) {
    std::vector<ExportPane> panes;
    for (const std::string &name : strategies) {
        // Each option to the strategies that take it, the link to all (as `remat simulate` does).
        StrategyParams own = paramsForStrategy(StrategyRegistry::builtin().get(name), params, strategies.size() == 1);
        own.progress = params.progress;
        own.cancelled = params.cancelled;
        panes.push_back(simulateExportPane(model, name, own));
    }
    return panes;
}

} // namespace remat::exporting
