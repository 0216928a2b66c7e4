#pragma once
// What a replayed schedule looks like step by step. Stored compactly: the bytes
// and resident count of every step, plus a snapshot of the full state every
// `snapshotInterval()` ops; the state at any step is rebuilt from the nearest
// snapshot by replaying at most that many ops.
#include "core/model.h"
#include "core/schedule.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace remat {

// The full state after some op: which nodes are resident and how many times
// each node has been computed so far.
struct StepState {
    std::int64_t step = -1;                  // last op applied; -1 = before the first op
    std::vector<std::uint8_t> resident;      // by NodeId
    std::vector<std::uint32_t> computeCount; // by NodeId
    std::vector<std::uint8_t> saved;         // by forward index: s_i held; empty when no layer saves anything
    bool holdsSaved(int forwardIndex) const {
        return !saved.empty() && saved[static_cast<std::size_t>(forwardIndex)] != 0;
    }
    std::vector<NodeId> residentNodes() const;
};

struct TimelineRecorder; // fills a Timeline during Simulator::replay

class Timeline {
public:
    Timeline() = default;

    std::int64_t steps() const { return static_cast<std::int64_t>(bytes_.size()); }
    const Model &model() const { return *model_; }
    const Schedule &schedule() const { return *schedule_; }
    std::shared_ptr<const Model> modelPtr() const { return model_; }
    std::shared_ptr<const Schedule> schedulePtr() const { return schedule_; }

    Op op(std::int64_t step) const { return schedule_->ops[static_cast<std::size_t>(step)]; }
    // Bytes held while op `step` runs: resident nodes (its output included) + its workspace.
    std::int64_t bytesAt(std::int64_t step) const { return bytes_[static_cast<std::size_t>(step)]; }
    // Bytes of saved internals held while op `step` runs (part of bytesAt).
    std::int64_t savedBytesAt(std::int64_t step) const {
        return savedBytes_.empty() ? 0 : savedBytes_[static_cast<std::size_t>(step)];
    }
    // Nodes resident after op `step`.
    std::int32_t residentCountAt(std::int64_t step) const { return residentCount_[static_cast<std::size_t>(step)]; }
    // Sum of op costs up to and including op `step` (the time axis when panes sync by cost).
    double costUntil(std::int64_t step) const { return costUntil_[static_cast<std::size_t>(step)]; }
    double totalCost() const { return costUntil_.empty() ? 0.0 : costUntil_.back(); }
    // Last op that finished at or before time `cost` (-1 if none).
    std::int64_t stepAtCost(double cost) const;

    // Full state after op `step` (step = -1: the initial state, a_0 only).
    StepState stateAt(std::int64_t step) const;
    // Applies op state.step+1 to `state`: walking forward one op at a time is
    // O(1) per step (players, exports, CSV).
    void advance(StepState &state) const;
    std::int64_t snapshotInterval() const { return interval_; }

private:
    friend class Simulator;
    friend struct TimelineRecorder;
    std::shared_ptr<const Model> model_;
    std::shared_ptr<const Schedule> schedule_;
    std::vector<std::int64_t> bytes_;
    std::vector<std::int32_t> residentCount_;
    std::vector<double> costUntil_;
    std::vector<std::int64_t> savedBytes_; // empty when the model saves no internals
    std::int64_t interval_ = 1;
    std::vector<StepState> snapshots_; // snapshots_[k] = state after op k*interval_-1
};

} // namespace remat
