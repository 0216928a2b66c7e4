#pragma once
// Runs a Schedule on a Backend, op by op: compute a_i -> allocate + forward,
// compute b_i -> allocate + backward, free -> release, offload / prefetch ->
// a copy to / from the host arena. It decides nothing the schedule did not
// say; the schedule is validated by the simulator first, so a backend never
// sees an op that reads a node that is not resident. It waits for a copy
// exactly where the simulator's timing model does (docs/model.md).
#include "core/executor/backend.h"
#include "core/model.h"
#include "core/schedule.h"
#include "core/simulator.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace remat::exec {

// The backend's own count of activation bytes op by op, as the simulator's
// Timeline states it: `during[t]` is the most held while op t ran (its output
// and its workspace included; for a free, what is left after it), the
// measured counterpart of Timeline::bytesAt(t); `after[t]` is what stays
// live once op t is done; `host[t]` the host arena's live bytes after op t
// (Timeline::hostBytesAt(t)).
struct MemoryTrace {
    std::vector<std::int64_t> during;
    std::vector<std::int64_t> after;
    std::vector<std::int64_t> host;
    bool empty() const { return during.empty(); }
};

struct StepRecord {
    double seconds = 0;
    MemoryCounters memory; // peak over the step: nodes + workspace, a_0 included; the host arena's peak
    MemoryTrace trace;     // filled when the step was asked to record one
};

// Checked between ops: returning true stops the step with remat::Cancelled.
using CancelCheck = std::function<bool()>;

struct StepOptions {
    // The backend samples device-level memory after each op (slower: CUDA
    // synchronises); the figures go to deviceWatchPeakGrowth.
    bool sampleDevice = false;
    // Records the MemoryTrace. Resets the backend's peak before every op, so
    // the step's peak is then the trace's maximum (and a CUDA pool's
    // high-water mark covers the last op only).
    bool recordTrace = false;
    CancelCheck cancelled;
};

class Executor {
public:
    // Throws InvalidArgument when `model` is not the model of the backend's
    // network (networkModel(shape)), and InvalidSchedule from the simulator
    // (an offload schedule is validated on `machine`, or on an instant link
    // when none is given: its memory does not depend on the link). `model`
    // and `schedule` must outlive the executor.
    Executor(Backend &backend, const Model &model, const Schedule &schedule,
             const std::optional<Machine> &machine = std::nullopt);

    const Summary &predicted() const { return predicted_; }

    // One training step: release what the last step left, load a_0, run every
    // op, wait for the device. b_0 and the gradients stay readable afterwards.
    // Throws Cancelled between ops once `options.cancelled` says so (the
    // buffers still held are released by the next step or the backend).
    StepRecord runStep(const StepOptions &options = {});

private:
    Backend &backend_;
    const Model &model_;
    const Schedule &schedule_;
    Summary predicted_;
    int forwardCount_;
    // Where each forward node's copies are during a step, as the simulator
    // tracks them (core/timeline.h's HostCopy): a host copy made by an
    // offload (Held), or one being read back (Prefetched).
    std::vector<HostCopy> host_;
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
    std::int64_t measuredHostPeakBytes = 0; // the host arena's high-water mark (offloaded copies)
    std::optional<std::int64_t> allocatorPeakBytes; // CUDA: pool high-water mark
    std::optional<std::int64_t> devicePeakBytes;    // growth seen by the OS / the driver
    MemoryTrace trace;                              // op by op, recorded in the probe step
    std::vector<double> seconds;                    // each timed step
    double medianSeconds = 0;
};

// `warmups` untimed steps, a probe step (untimed, it samples device memory and
// records the trace), then `repeats` timed steps. `cancelled` is asked before
// every op of every step: once true, remat::Cancelled. Gradients of the last step stay in the backend.
// `machine` as for Executor.
Measurement measure(Backend &backend, const Model &model, const Schedule &schedule, const MeasureOptions &options = {},
                    const CancelCheck &cancelled = {}, const std::optional<Machine> &machine = std::nullopt);

// What an offload schedule is validated on when no machine is given: an
// instant link and 1 s per unit of cost (its times mean nothing).
Machine instantLinkMachine();

double median(std::vector<double> values);

} // namespace remat::exec
