#pragma once
// What an export shows of one pane: a strategy's replayed schedule. The studio
// fills these from its panes; the headless export asks the core for them.
#include "core/comparison.h"
#include "core/timeline.h"

#include <QString>

#include <memory>
#include <string>
#include <vector>

namespace remat::exporting {

struct ExportPane {
    QString title; // "periodic (k = 4)"
    const Strategy *strategy = nullptr;
    Summary summary;
    double costOverhead = 0; // against store-all
    std::shared_ptr<const Timeline> timeline;
    int pane = -1; // whose colour (Palette::paneColour): the studio pane's index; -1: the export's order

    // The pane as a comparison row (without the ops, which live in the
    // timeline) for core/report.h's JSON and CSV schemas.
    ComparisonRow row() const;
};

// A pane titled "<strategy> (<schedule description>)".
ExportPane makeExportPane(const Strategy *strategy, const Summary &summary, double costOverhead,
                          std::shared_ptr<const Timeline> timeline);

// Plans, simulates and replays `strategy` with `params` on `model`, timed
// on params.machine when it is given (its budgets are for the planners).
// Throws what the strategy and the simulator throw.
ExportPane simulateExportPane(const std::shared_ptr<const Model> &model, const std::string &strategy,
                              const StrategyParams &params);

// Plans, simulates and replays each named strategy on `model`, as
// `remat simulate` does: a lone strategy gets every parameter in `params`;
// with several, each option goes to the strategies that take it
// (core/comparison.h's paramsForStrategy) and the machine to all.
// Throws what the strategies and the simulator throw (InvalidArgument for an
// unknown name, listing the known ones).
std::vector<ExportPane> simulatePanes(const std::shared_ptr<const Model> &model,
                                      const std::vector<std::string> &strategies, const StrategyParams &params);

} // namespace remat::exporting
