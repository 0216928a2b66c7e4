#pragma once
// One executor step and its gradients, shared by the CPU and CUDA suites.
#include "core/errors.h"
#include "core/executor/executor.h"
#include "core/planners/dtr_runtime.h"
#include "core/simulator.h"
#include "core/strategy_registry.h"

#include <memory>
#include <string>
#include <vector>

namespace remat::exec::testing {

inline Gradients runOnce(Backend &backend, const Model &model, const Schedule &schedule, StepRecord *record = nullptr) {
    Executor executor(backend, model, schedule);
    const StepRecord r = executor.runStep();
    if (record)
        *record = r;
    Gradients g;
    backend.readGradients(g);
    return g;
}

struct Planned {
    std::string strategy;
    Schedule schedule;
};

// dtr within the tightest of eight budgets from its minimum to the one it
// always runs within: it evicts and recomputes.
inline StrategyParams tightDtrParams(const Model &model) {
    const std::int64_t low = planners::dtrMinimumBudget(model, false);
    const std::int64_t high = planners::dtrAssuredBudget(model, false);
    StrategyParams params;
    for (int k = 0; k < 8; ++k) {
        params.budgetBytes = low + (high - low) * k / 7;
        try {
            StrategyRegistry::builtin().get("dtr").makeSchedule(model, params);
            return params;
        } catch (const InvalidArgument &) {
            // Ran out with everything in use: a larger budget.
        }
    }
    return params;
}

// Every registered strategy the executor runs, each with parameters it
// accepts: explicit checkpoints, three slots for the slot-bounded ones, a
// tight budget for dtr, nothing for the rest. Strategies that offload to host need a machine and
// are left out here (test_offload_executor runs them).
inline std::vector<Planned> allSchedules(const Model &model) {
    std::vector<Planned> out;
    const int n = model.layers();
    for (const Strategy *s : StrategyRegistry::builtin().all()) {
        if (s->usesLink() || (s->needsOpLevel() && !model.isOpLevel()))
            continue;
        StrategyParams params;
        if (s->name() == "checkpoints") {
            params.checkpoints = std::vector<int>{};
            for (int k = 2; k < n; k += 3)
                params.checkpoints->push_back(k);
        } else if (s->name() == "revolve" || s->name() == "budget") {
            params.checkpointSlots = 3;
        } else if (s->name() == "dtr") {
            params = tightDtrParams(model);
        }
        out.push_back({std::string(s->name()), s->makeSchedule(model, params)});
    }
    return out;
}

// One step with the memory trace on, beside the simulator's replay of the
// same schedule. `mismatch` names the first op whose bytes during it differ
// from Timeline::bytesAt ("" when none): the prediction, op by op.
struct TracedStep {
    StepRecord record;
    Replay replay;
    std::string mismatch;
};
inline TracedStep traceStep(Backend &backend, const std::shared_ptr<const Model> &model, const Schedule &schedule) {
    TracedStep out;
    out.replay = Simulator::replay(model, std::make_shared<const Schedule>(schedule));
    const Timeline &tl = out.replay.timeline;
    Executor executor(backend, *model, schedule);
    StepOptions options;
    options.recordTrace = true;
    out.record = executor.runStep(options);
    const auto &during = out.record.trace.during;
    if (static_cast<std::int64_t>(during.size()) != tl.steps()) {
        out.mismatch =
            "trace has " + std::to_string(during.size()) + " ops, the schedule " + std::to_string(tl.steps());
        return out;
    }
    for (std::int64_t t = 0; t < tl.steps() && out.mismatch.empty(); ++t)
        if (during[static_cast<std::size_t>(t)] != tl.bytesAt(t))
            out.mismatch = schedule.strategy + " op " + std::to_string(t) + " (" + describe(*model, tl.op(t)) +
                           "): measured " + std::to_string(during[static_cast<std::size_t>(t)]) + ", predicted " +
                           std::to_string(tl.bytesAt(t));
    return out;
}

} // namespace remat::exec::testing
