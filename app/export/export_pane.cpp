#include "app/export/export_pane.h"

#include "core/strategy_registry.h"

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
    Replay replay = Simulator::replay(model, std::make_shared<const Schedule>(std::move(row.schedule)));
    return makeExportPane(&strategy, replay.summary, row.costOverhead,
                          std::make_shared<const Timeline>(std::move(replay.timeline)));
}

std::vector<ExportPane> simulatePanes(const std::shared_ptr<const Model> &model,
                                      const std::vector<std::string> &strategies, const StrategyParams &params) {
    std::vector<ExportPane> panes;
    for (const std::string &name : strategies) {
        StrategyParams own = params;
        if (strategies.size() > 1) {
            own = StrategyParams{};
            own.progress = params.progress;
            own.cancelled = params.cancelled;
            if (name == "periodic")
                own.every = params.every;
            if (name == "checkpoints")
                own.checkpoints = params.checkpoints;
        }
        panes.push_back(simulateExportPane(model, name, own));
    }
    return panes;
}

} // namespace remat::exporting
