#pragma once
// The budget planner at many budgets, one budget a task on every core: the
// trade-off curve's sweep. Each plan is the one `remat plan --budget` makes
// on its own (the planners' results do not depend on what runs beside them),
// so the sweep gives the same schedules on any number of cores, in the order
// asked. The planners' exact search already spreads one budget over the
// cores; planning two budgets at once fills the cores the MILP solver, which
// is single-threaded, leaves idle.
#include "core/model.h"
#include "core/schedule.h"
#include "core/strategy.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace remat {

struct SweepBudget {
    std::int64_t bytes = 0;
    bool offload = false; // offload-budget (with `base.machine`) instead of budget
};

struct SweepOptions {
    // What every plan is asked with besides its budget (memorySteps, effort,
    // searchWork, machine); its progress and cancelled are the sweep's below.
    StrategyParams base;
    std::function<void(double)> progress; // fraction of the budgets done, from any thread, may be empty
    std::function<bool()> cancelled;      // asked from any thread; true: stop with Cancelled
    int threads = 0;                      // budgets planned at once; 0: every core
};

// One schedule per budget, in the order given; empty where the planner finds
// no plan within it (InvalidArgument from the planner). Any other failure is
// rethrown once every running plan has stopped: the first budget's in the
// order given, Cancelled only where nothing else failed.
std::vector<std::optional<Schedule>> planBudgets(const Model &model, const std::vector<SweepBudget> &budgets,
                                                 const SweepOptions &options);

} // namespace remat
