#pragma once
// Several strategies run on one model and counted by the simulator, with the
// overhead of each against store-all: the seed notes' three-strategy table,
// shared by `remat simulate`, `remat sweep` and the studio's summary table.
#include "core/model.h"
#include "core/simulator.h"
#include "core/strategy.h"

#include <string>
#include <vector>

namespace remat {

struct ComparisonRow {
    const Strategy *strategy = nullptr;
    Schedule schedule;
    Summary summary;
    // cost / cost(store-all) - 1: the extra compute paid for the memory saved.
    double costOverhead = 0;
    // Timed rows (params.machine given): makespan / store-all's makespan - 1,
    // the time paid, recomputation and stalls together.
    double makespanOverhead = 0;
};

// Plans and simulates each strategy on `model`. Store-all is always counted as
// the reference, listed or not. With params.machine, every row is also timed
// on its two streams (Summary::timed); the machine's budgets are what the
// planners plan for, not limits the other rows are refused by. Throws what
// the strategies and simulator throw.
std::vector<ComparisonRow> compareStrategies(const Model &model, const std::vector<const Strategy *> &strategies,
                                             const StrategyParams &params);

// The strategies named in a comma-separated list, or every strategy that runs
// with defaults (plus `checkpoints` when a checkpoint list is given, `budget`
// when a budget is, `offload-all` when a link is, `offload-budget` when both
// a link and a byte budget are) for "all"; given a graph with skip
// connections, "all" keeps only the strategies that plan graphs.
std::vector<const Strategy *> selectStrategies(const std::string &names, const StrategyParams &params,
                                               const Model *model = nullptr);

// The parameters one of several selected strategies gets: each option goes to
// the strategies that take it; a lone strategy (`lone`) is told everything and
// rejects what it cannot use.
StrategyParams paramsForStrategy(const Strategy &strategy, const StrategyParams &given, bool lone);

} // namespace remat
