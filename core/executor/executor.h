#pragma once
// Runs a Schedule on a Backend, op by op: compute a_i -> allocate + forward,
// compute b_i -> allocate + backward, free -> release. It decides nothing the
// schedule did not say; the schedule is validated by the simulator first, so
// a backend never sees an op that reads a node that is not resident.
#include "core/executor/backend.h"
#include "core/model.h"
#include "core/schedule.h"
#include "core/simulator.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace remat::exec {

struct StepRecord {
    double seconds = 0;
    MemoryCounters memory; // peak over the step: nodes + workspace, a_0 included
};

class Executor {
public:
    // Throws InvalidArgument when `model` is not the model of the backend's
    // network (networkModel(shape)), and InvalidSchedule from the simulator.
    Executor(Backend &backend, const Model &model, const Schedule &schedule);

    const Summary &predicted() const { return predicted_; }

    // One training step: release what the last step left, load a_0, run every
    // op, wait for the device. b_0 and the gradients stay readable afterwards.
    // With `sampleDevice`, the backend samples device-level memory after each
    // op (slower: CUDA synchronises); the figures go to deviceWatchPeakGrowth.
    StepRecord runStep(bool sampleDevice = false);

private:
    Backend &backend_;
    const Schedule &schedule_;
    Summary predicted_;
    int forwardCount_;
};

struct MeasureOptions {
    int repeats = 5; // timed steps (the median is reported)
    int warmups = 1; // untimed steps first: page faults, lazy kernel loading, cuBLAS setup
};

struct Measurement {
    Summary predicted;
    // Peak activation bytes over all steps as counted by the backend; the
    // executor checks every step reached the same peak.
    std::int64_t measuredPeakBytes = 0;
    std::optional<std::int64_t> allocatorPeakBytes; // CUDA: pool high-water mark
    std::optional<std::int64_t> devicePeakBytes;    // growth seen by the OS / the driver
    std::vector<double> seconds;                    // each timed step
    double medianSeconds = 0;
};

// `warmups` untimed steps, a probe step (untimed, it samples device memory),
// then `repeats` timed steps. Gradients of the last step stay in the backend.
Measurement measure(Backend &backend, const Model &model, const Schedule &schedule, const MeasureOptions &options = {});

double median(std::vector<double> values);

} // namespace remat::exec
