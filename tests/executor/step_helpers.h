#pragma once
// One executor step and its gradients, shared by the CPU and CUDA suites.
#include "core/executor/executor.h"

namespace remat::exec::testing {

inline Gradients runOnce(Backend &backend, const Model &model, const Schedule &schedule,
                         StepRecord *record = nullptr) {
    Executor executor(backend, model, schedule);
    const StepRecord r = executor.runStep();
    if (record)
        *record = r;
    Gradients g;
    backend.readGradients(g);
    return g;
}

} // namespace remat::exec::testing
