#include "core/timeline.h"

#include "core/errors.h"

#include <algorithm>

namespace remat {

std::vector<NodeId> StepState::residentNodes() const {
    std::vector<NodeId> out;
    for (std::size_t i = 0; i < resident.size(); ++i)
        if (resident[i])
            out.push_back(static_cast<NodeId>(i));
    return out;
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
    switch (op.kind) {
    case OpKind::Compute:
        state.resident[op.node] = 1;
        ++state.computeCount[op.node];
        if (op.records)
            state.saved[op.node] = 1; // a forward NodeId is its forward index
        break;
    case OpKind::Free:
        state.resident[op.node] = 0;
        break;
    case OpKind::FreeSaved:
        state.saved[op.node] = 0;
        break;
    }
}

} // namespace remat
