#include "core/executor/executor.h"

#include "core/errors.h"

#include <algorithm>
#include <string>

namespace remat::exec {

namespace {

// The executor runs only schedules planned on this network's own model, so that
// the simulator's prediction is a prediction about these very buffers.
void requireNetworkModel(const Model &model, const Backend &backend) {
    const Model expected = backend.model();
    bool same = model.forwardCount() == expected.forwardCount() && model.isChain();
    for (NodeId id = 0; same && id < static_cast<NodeId>(model.nodeCount()); ++id)
        same = model.bytes(id) == expected.bytes(id) && model.workspace(id) == expected.workspace(id) &&
               (model.isBackward(id) || model.savedBytes(static_cast<int>(id)) == expected.savedBytes(static_cast<int>(id)));
    if (!same)
        throw InvalidArgument("the model is not the model of the backend's network (" +
                              std::to_string(expected.layers()) + " layers, " + std::to_string(expected.bytes(0)) +
                              " bytes per node); build it with networkModel() or transformerModel()");
}

} // namespace

Executor::Executor(Backend &backend, const Model &model, const Schedule &schedule)
    : backend_(backend), schedule_(schedule), forwardCount_(model.forwardCount()) {
    requireNetworkModel(model, backend);
    // Offloading needs a host arena and a copy stream the backends do not have yet.
    for (std::size_t t = 0; t < schedule.ops.size(); ++t)
        if (schedule.ops[t].isTransfer())
            throw NotSupported("the executor does not run offloads and prefetches yet (" + schedule.strategy + ", op " +
                               std::to_string(t) + ": " + describe(model, schedule.ops[t]) +
                               "); simulate the schedule instead (remat simulate --link ...)");
    predicted_ = Simulator::summarize(model, schedule);
}

StepRecord Executor::runStep(const StepOptions &options) {
    backend_.releaseAll();
    backend_.synchronize();
    if (options.sampleDevice)
        backend_.deviceWatchBegin();
    backend_.resetPeak();
    backend_.startTimer();
    backend_.allocate(0);
    backend_.loadInput();
    StepRecord r;
    std::int64_t tracePeak = 0;
    // A recording run of a resident a_i re-runs the layer into its own buffer.
    std::vector<std::uint8_t> allocated(static_cast<std::size_t>(2 * forwardCount_), 0);
    allocated[0] = 1;
    if (options.recordTrace) {
        r.trace.during.reserve(schedule_.ops.size());
        r.trace.after.reserve(schedule_.ops.size());
        tracePeak = backend_.counters().liveBytes; // a_0
    }
    for (const Op op : schedule_.ops) {
        if (options.cancelled && options.cancelled())
            throw Cancelled();
        if (options.recordTrace)
            backend_.resetPeak(); // the peak from here on is this op's
        const int index = static_cast<int>(op.node);
        if (op.kind == OpKind::Free) {
            backend_.release(op.node);
            allocated[op.node] = 0;
        } else if (op.kind == OpKind::FreeSaved) {
            backend_.releaseSaved(index);
        } else {
            if (!allocated[op.node])
                backend_.allocate(op.node);
            allocated[op.node] = 1;
            if (index >= forwardCount_)
                backend_.backward(index - forwardCount_);
            else if (op.records)
                backend_.forwardRecording(index);
            else
                backend_.forward(index);
        }
        if (options.sampleDevice)
            backend_.deviceWatchSample();
        if (options.recordTrace) {
            const MemoryCounters c = backend_.counters();
            // A free holds nothing extra while it runs: what it leaves is its figure.
            const std::int64_t during = op.kind == OpKind::Compute ? c.peakBytes : c.liveBytes;
            r.trace.during.push_back(during);
            r.trace.after.push_back(c.liveBytes);
            tracePeak = std::max(tracePeak, during);
        }
    }
    r.seconds = backend_.stopTimerSeconds(); // synchronises the device
    r.memory = backend_.counters();
    if (options.recordTrace) {
        // The backend's peak was reset before each op; over the step it is the trace's highest.
        r.memory.peakBytes = tracePeak;
        r.memory.allocatorPeakBytes.reset();
    }
    return r;
}

double median(std::vector<double> values) {
    if (values.empty())
        return 0;
    std::sort(values.begin(), values.end());
    const std::size_t mid = values.size() / 2;
    return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

Measurement measure(Backend &backend, const Model &model, const Schedule &schedule, const MeasureOptions &options,
                    const CancelCheck &cancelled) {
    if (options.repeats < 1 || options.repeats > 1000)
        throw InvalidArgument("repeats must be an integer from 1 to 1000, got " + std::to_string(options.repeats));
    if (options.warmups < 0 || options.warmups > 1000)
        throw InvalidArgument("warm-up steps must be an integer from 0 to 1000, got " +
                              std::to_string(options.warmups));
    Executor executor(backend, model, schedule);
    Measurement m;
    m.predicted = executor.predicted();

    StepOptions plain;
    plain.cancelled = cancelled;
    for (int k = 0; k < options.warmups; ++k)
        executor.runStep(plain);
    StepOptions probeOptions = plain;
    probeOptions.sampleDevice = true;
    probeOptions.recordTrace = true;
    StepRecord probe = executor.runStep(probeOptions);
    m.devicePeakBytes = backend.deviceWatchPeakGrowth();
    m.measuredPeakBytes = probe.memory.peakBytes;
    m.trace = std::move(probe.trace);
    for (int k = 0; k < options.repeats; ++k) {
        const StepRecord r = executor.runStep(plain);
        if (r.memory.peakBytes != m.measuredPeakBytes)
            throw DeviceError("the executor's peak changed between steps of the same schedule (" +
                              std::to_string(m.measuredPeakBytes) + " then " + std::to_string(r.memory.peakBytes) +
                              " bytes); this is a bug in the backend");
        // The probe reset the pool's high-water mark op by op; the timed steps did not.
        if (r.memory.allocatorPeakBytes)
            m.allocatorPeakBytes = std::max(m.allocatorPeakBytes.value_or(0), *r.memory.allocatorPeakBytes);
        m.seconds.push_back(r.seconds);
    }
    m.medianSeconds = median(m.seconds);
    return m;
}

} // namespace remat::exec
