#include "core/executor/executor.h"

#include "core/errors.h"

#include <algorithm>
#include <limits>
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

Machine instantLinkMachine() {
    Machine m;
    m.link.bytesPerSecond = std::numeric_limits<double>::infinity();
    return m;
}

Executor::Executor(Backend &backend, const Model &model, const Schedule &schedule, const std::optional<Machine> &machine)
    : backend_(backend), model_(model), schedule_(schedule), forwardCount_(model.forwardCount()),
      host_(static_cast<std::size_t>(forwardCount_), HostCopy::None) {
    requireNetworkModel(model, backend);
    if (machine)
        predicted_ = Simulator::summarize(model, schedule, *machine);
    else if (hasTransfers(schedule))
        predicted_ = Simulator::summarize(model, schedule, instantLinkMachine());
    else
        predicted_ = Simulator::summarize(model, schedule);
}

StepRecord Executor::runStep(const StepOptions &options) {
    backend_.releaseAll();
    backend_.synchronize();
    if (options.sampleDevice)
        backend_.deviceWatchBegin();
    backend_.resetPeak();
    backend_.resetHostPeak();
    backend_.startTimer();
    backend_.allocate(0);
    backend_.loadInput();
    StepRecord r;
    std::int64_t tracePeak = 0;
    // A recording run of a resident a_i re-runs the layer into its own buffer.
    std::vector<std::uint8_t> allocated(static_cast<std::size_t>(2 * forwardCount_), 0);
    allocated[0] = 1;
    std::vector<HostCopy> &host = host_;
    std::fill(host.begin(), host.end(), HostCopy::None);
    // The simulator's waitForPrefetch: the op about to read, free or offload
    // x waits for its prefetch, and x's host copy goes.
    const auto settlePrefetch = [&](NodeId x) {
        if (x < static_cast<NodeId>(forwardCount_) && host[x] == HostCopy::Prefetched) {
            backend_.waitTransfer(x);
            backend_.releaseHost(x);
            host[x] = HostCopy::None;
        }
    };
    if (options.recordTrace) {
        r.trace.during.reserve(schedule_.ops.size());
        r.trace.after.reserve(schedule_.ops.size());
        r.trace.host.reserve(schedule_.ops.size());
        tracePeak = backend_.counters().liveBytes; // a_0
    }
    for (const Op op : schedule_.ops) {
        if (options.cancelled && options.cancelled())
            throw Cancelled();
        if (options.recordTrace)
            backend_.resetPeak(); // the peak from here on is this op's
        const int index = static_cast<int>(op.node);
        switch (op.kind) {
        case OpKind::Free:
            settlePrefetch(op.node);
            if (op.node < static_cast<NodeId>(forwardCount_) && host[op.node] == HostCopy::Held)
                backend_.waitTransfer(op.node); // the link still reads the device copy
            backend_.release(op.node);
            allocated[op.node] = 0;
            break;
        case OpKind::FreeSaved:
            backend_.releaseSaved(index);
            break;
        case OpKind::Offload:
            settlePrefetch(op.node);
            backend_.offload(op.node);
            host[op.node] = HostCopy::Held;
            break;
        case OpKind::Prefetch:
            backend_.prefetch(op.node);
            allocated[op.node] = 1;
            host[op.node] = HostCopy::Prefetched;
            break;
        case OpKind::Compute:
            for (const NodeId read : model_.reads(op.node))
                settlePrefetch(read);
            if (!allocated[op.node])
                backend_.allocate(op.node);
            allocated[op.node] = 1;
            if (index >= forwardCount_)
                backend_.backward(index - forwardCount_);
            else if (op.records)
                backend_.forwardRecording(index);
            else
                backend_.forward(index);
            break;
        }
        if (options.sampleDevice)
            backend_.deviceWatchSample();
        if (options.recordTrace) {
            const MemoryCounters c = backend_.counters();
            // A free holds nothing extra while it runs: what it leaves is its figure.
            const std::int64_t during = op.kind == OpKind::Compute ? c.peakBytes : c.liveBytes;
            r.trace.during.push_back(during);
            r.trace.after.push_back(c.liveBytes);
            r.trace.host.push_back(c.hostLiveBytes);
            tracePeak = std::max(tracePeak, during);
        }
    }
    // A prefetch no op read: the step ends when its copy does.
    for (NodeId x = 0; x < static_cast<NodeId>(forwardCount_); ++x)
        if (host[x] == HostCopy::Prefetched)
            backend_.waitTransfer(x);
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
                    const CancelCheck &cancelled, const std::optional<Machine> &machine) {
    if (options.repeats < 1 || options.repeats > 1000)
        throw InvalidArgument("repeats must be an integer from 1 to 1000, got " + std::to_string(options.repeats));
    if (options.warmups < 0 || options.warmups > 1000)
        throw InvalidArgument("warm-up steps must be an integer from 0 to 1000, got " +
                              std::to_string(options.warmups));
    Executor executor(backend, model, schedule, machine);
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
    m.measuredHostPeakBytes = probe.memory.hostPeakBytes;
    m.trace = std::move(probe.trace);
    for (int k = 0; k < options.repeats; ++k) {
        const StepRecord r = executor.runStep(plain);
        if (r.memory.peakBytes != m.measuredPeakBytes || r.memory.hostPeakBytes != m.measuredHostPeakBytes)
            throw DeviceError("the executor's peak changed between steps of the same schedule (" +
                              std::to_string(m.measuredPeakBytes) + " then " + std::to_string(r.memory.peakBytes) +
                              " bytes on the device, " + std::to_string(m.measuredHostPeakBytes) + " then " +
                              std::to_string(r.memory.hostPeakBytes) + " on the host); this is a bug in the backend");
        // The probe reset the pool's high-water mark op by op; the timed steps did not.
        if (r.memory.allocatorPeakBytes)
            m.allocatorPeakBytes = std::max(m.allocatorPeakBytes.value_or(0), *r.memory.allocatorPeakBytes);
        m.seconds.push_back(r.seconds);
    }
    m.medianSeconds = median(m.seconds);
    return m;
}

} // namespace remat::exec
