#pragma once
// One executor step and its gradients, shared by the CPU and CUDA suites.
#include "core/executor/executor.h"
#include "core/strategy_registry.h"

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

// Every registered strategy, each with parameters it accepts: explicit
// checkpoints, three slots for the slot-bounded ones, nothing for the rest.
inline std::vector<Planned> allSchedules(const Model &model) {
    std::vector<Planned> out;
    const int n = model.layers();
    for (const Strategy *s : StrategyRegistry::builtin().all()) {
        StrategyParams params;
        if (s->name() == "checkpoints") {
            params.checkpoints = std::vector<int>{};
            for (int k = 2; k < n; k += 3)
                params.checkpoints->push_back(k);
        } else if (s->name() == "revolve" || s->name() == "budget") {
            params.checkpointSlots = 3;
        }
        out.push_back({std::string(s->name()), s->makeSchedule(model, params)});
    }
    return out;
}

} // namespace remat::exec::testing
