#pragma once
// What one pane shows: a strategy with its parameters, and the simulator's
// replay of the schedule it makes (timeline + summary). The studio draws from
// this and never works out a schedule or a resident set itself.
#include "core/simulator.h"
#include "core/strategy.h"

#include <memory>
#include <string>

namespace remat::studio {

struct PaneConfig {
    std::string strategy = "store-all";
    StrategyParams params;
};

struct PaneRun {
    PaneConfig config;
    const Strategy *strategy = nullptr;
    std::shared_ptr<const Model> model;
    std::shared_ptr<const Timeline> timeline;
    Summary summary;
    double costOverhead = 0; // against store-all, from core/comparison.h
};

// Plans and replays. Throws remat::Error (InvalidArgument, LimitExceeded, ...)
// with a message for the user.
PaneRun simulatePane(std::shared_ptr<const Model> model, const PaneConfig &config);

// Ops the schedule will have, known before planning: decides whether the
// simulation runs on the GUI thread or in the background. 0 for parameters
// that are out of range (makeSchedule then says what is wrong).
double estimatedOps(const Model &model, const PaneConfig &config);

// The config after the user clicks forward node `index`: the explicit
// checkpoints of the run's schedule with `index` toggled.
PaneConfig withCheckpointToggled(const PaneRun &run, int index);

// The config for a model of `layers` layers: parameters the pane's boxes
// cannot hold at that n (k > n, slots > n + 1, checkpoints >= n) fall back to
// the strategy's default, so the boxes and the schedule's title agree.
PaneConfig fittedTo(PaneConfig config, int layers);

// "k = 4", "a_4, a_8, a_12", "8 slots", "" — the parameters in words (export captions).
std::string describeParams(const PaneConfig &config);

// Planners whose planning time is not bounded by the op count (dynamic
// programs over a memory budget): always planned off the GUI thread, with
// progress and Cancel.
bool plansSlowly(const PaneConfig &config);

} // namespace remat::studio
