#include "core/timeline.h"

#include "core/errors.h"

#include <algorithm>

namespace remat {

const char *placeName(Place place) {
    switch (place) {
    case Place::Nowhere:
        return "nowhere";
    case Place::Device:
        return "device";
    case Place::ToHost:
        return "to host";
    case Place::Host:
        return "host";
    case Place::ToDevice:
        return "to device";
    }
    return "?";
}

std::vector<NodeId> StepState::residentNodes() const {
    std::vector<NodeId> out;
    for (std::size_t i = 0; i < resident.size(); ++i)
        if (resident[i])
            out.push_back(static_cast<NodeId>(i));
    return out;
}

Place StepState::placeOf(NodeId node) const {
    const bool onDevice = resident[node] != 0;
    const HostCopy copy = node < host.size() ? host[node] : HostCopy::None;
    switch (copy) {
    case HostCopy::None:
        return onDevice ? Place::Device : Place::Nowhere;
    case HostCopy::Held:
        return onDevice ? Place::ToHost : Place::Host;
    case HostCopy::Prefetched:
        return Place::ToDevice;
    }
    return Place::Nowhere;
}

std::int32_t StepState::transferOf(NodeId node) const {
    return node < lastTransfer.size() ? lastTransfer[node] : -1;
}

std::int64_t Timeline::stepAtCost(double cost) const {
    // costUntil_ is non-decreasing: the last step whose cumulative cost <= cost.
    auto it = std::upper_bound(costUntil_.begin(), costUntil_.end(), cost);
    return static_cast<std::int64_t>(it - costUntil_.begin()) - 1;
}

StepState Timeline::stateAt(std::int64_t step) const {
    if (step < -1 || step >= steps())
        throw InvalidArgument("step must be from -1 to " + std::to_string(steps() - 1) + ", got " +
                              std::to_string(step));
    StepState state;
    const std::int64_t k = (step + 1) / interval_; // snapshots before this one cover ops < k*interval
    if (k > 0) {
        state = snapshots_[static_cast<std::size_t>(k - 1)];
    } else {
        state.step = -1;
        state.resident.assign(model_->nodeCount(), 0);
        state.computeCount.assign(model_->nodeCount(), 0);
        state.resident[model_->inputNode()] = 1;
        if (model_->hasSavedBytes())
            state.saved.assign(static_cast<std::size_t>(model_->forwardCount()), 0);
        if (timed()) {
            state.host.assign(static_cast<std::size_t>(model_->forwardCount()), HostCopy::None);
            state.lastTransfer.assign(static_cast<std::size_t>(model_->forwardCount()), -1);
        }
    }
    while (state.step < step)
        advance(state);
    return state;
}

void Timeline::advance(StepState &state) const {
    if (state.step + 1 >= steps())
        throw InvalidArgument("cannot advance past the last op " + std::to_string(steps() - 1));
    // The schedule was validated when this timeline was made: apply blindly.
    const Op op = schedule_->ops[static_cast<std::size_t>(++state.step)];
    // The first op that reads or frees a prefetched node released its host copy.
    auto touch = [&state](NodeId x) {
        if (x < state.host.size() && state.host[x] == HostCopy::Prefetched)
            state.host[x] = HostCopy::None;
    };
    switch (op.kind) {
    case OpKind::Compute:
        if (!state.host.empty())
            for (NodeId r : model_->reads(op.node))
                touch(r);
        state.resident[op.node] = 1;
        ++state.computeCount[op.node];
        if (op.records)
            state.saved[op.node] = 1; // a forward NodeId is its forward index
        break;
    case OpKind::Free:
        touch(op.node);
        state.resident[op.node] = 0;
        break;
    case OpKind::FreeSaved:
        state.saved[op.node] = 0;
        break;
    case OpKind::Offload:
        state.host[op.node] = HostCopy::Held; // a prefetched copy it replaces was released first
        state.lastTransfer[op.node] = state.transfersIssued++;
        break;
    case OpKind::Prefetch:
        state.host[op.node] = HostCopy::Prefetched;
        state.resident[op.node] = 1;
        state.lastTransfer[op.node] = state.transfersIssued++;
        break;
    }
}

double Timeline::startTime(std::int64_t step) const {
    if (timed())
        return start_[static_cast<std::size_t>(step)];
    const Op o = op(step);
    return costUntil(step) - (o.kind == OpKind::Compute ? model_->cost(o.node) : 0.0);
}

double Timeline::endTime(std::int64_t step) const {
    return timed() ? end_[static_cast<std::size_t>(step)] : costUntil(step);
}

double Timeline::makespan() const {
    return timed() ? makespan_ : totalCost();
}

std::int64_t Timeline::stepAtTime(double time) const {
    if (!timed())
        return stepAtCost(time);
    auto it = std::upper_bound(end_.begin(), end_.end(), time);
    return static_cast<std::int64_t>(it - end_.begin()) - 1;
}

std::int64_t Timeline::computeAt(double time) const {
    // The first op that ends after `time`; it runs then if it is a compute op that has started.
    const std::vector<double> *ends = timed() ? &end_ : &costUntil_;
    const auto it = std::upper_bound(ends->begin(), ends->end(), time);
    if (it == ends->end())
        return -1;
    const std::int64_t step = static_cast<std::int64_t>(it - ends->begin());
    return op(step).kind == OpKind::Compute && startTime(step) <= time ? step : -1;
}

std::int32_t Timeline::transferAt(double time) const {
    const auto it = std::upper_bound(transfers_.begin(), transfers_.end(), time,
                                     [](double t, const Transfer &x) { return t < x.end; });
    if (it == transfers_.end() || it->start > time)
        return -1;
    return static_cast<std::int32_t>(it - transfers_.begin());
}

double Timeline::transferProgress(std::int32_t k, double time) const {
    const Transfer &x = transfers_[static_cast<std::size_t>(k)];
    if (time >= x.end)
        return 1;
    if (time <= x.start)
        return 0;
    return (time - x.start) / (x.end - x.start);
}

} // namespace remat
