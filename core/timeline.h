#pragma once
// What a replayed schedule looks like step by step. Stored compactly: the bytes
// and resident count of every step, plus a snapshot of the full state every
// `snapshotInterval()` ops; the state at any step is rebuilt from the nearest
// snapshot by replaying at most that many ops.
//
// A timeline replayed with a Machine (Simulator::replay(model, schedule,
// machine)) is *timed*: it also holds the two streams of docs/model.md
// ("Offloading to host") as the simulator timed them, so that a player can
// animate them without deriving anything: when every op starts and ends on
// the compute stream, every transfer on the copy stream (issued, started,
// ended), every stall, the host bytes of every step, and where each node is.
#include "core/machine.h"
#include "core/model.h"
#include "core/schedule.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace remat {

// Where a node is, in schedule order (after some op).
enum class Place : std::uint8_t {
    Nowhere,  // not held
    Device,   // on the device only
    ToHost,   // on the device, and copied to host by an offload (the copy may still be on the link,
              // Timeline::transferProgress says how far); the device copy goes at its `free`
    Host,     // on the host only
    ToDevice, // prefetched: a device buffer being filled (or filled) from the host copy, not yet
              // read; the host copy goes when the first op that reads or frees the node has waited for it
};
// "nowhere", "device", "to host", "host", "to device".
const char *placeName(Place place);

// Host copies of forward nodes, as StepState::host holds them.
enum class HostCopy : std::uint8_t {
    None,
    Held,       // made by an offload (the device copy may still exist)
    Prefetched, // being copied back; released by the first op that reads or frees the node
};

// The full state after some op: which nodes are resident and how many times
// each node has been computed so far.
struct StepState {
    std::int64_t step = -1;                  // last op applied; -1 = before the first op
    std::vector<std::uint8_t> resident;      // by NodeId: on the device
    std::vector<std::uint32_t> computeCount; // by NodeId
    std::vector<std::uint8_t> saved;         // by forward index: s_i held; empty when no layer saves anything
    // Timed timelines only (empty otherwise), by forward index: the node's
    // host copy, and its latest transfer (index into Timeline::transfers(), -1 none).
    std::vector<HostCopy> host;
    std::vector<std::int32_t> lastTransfer;
    std::int32_t transfersIssued = 0; // transfers issued by ops up to `step`

    bool holdsSaved(int forwardIndex) const {
        return !saved.empty() && saved[static_cast<std::size_t>(forwardIndex)] != 0;
    }
    std::vector<NodeId> residentNodes() const;
    // Where `node` is (Device or Nowhere on untimed timelines).
    Place placeOf(NodeId node) const;
    // The latest transfer of `node` (-1 none; always -1 on untimed timelines).
    std::int32_t transferOf(NodeId node) const;
};

enum class Direction : std::uint8_t { ToHost, ToDevice };

// One copy on the copy stream: an offload (ToHost) or a prefetch (ToDevice).
struct Transfer {
    std::int64_t step = 0; // the offload or prefetch op
    NodeId node = 0;
    Direction direction = Direction::ToHost;
    std::int64_t bytes = 0;
    double issued = 0; // when the compute stream reached the op
    double start = 0;  // when the link took it: FIFO, after the transfer before it
    double end = 0;    // when its last byte arrived
    // The op that waited for this transfer to end (a free after an offload,
    // the first op reading or freeing the node after a prefetch), whether it
    // stalled or not; -1 when no op did.
    std::int64_t waitedAt = -1;
};

// Time the compute stream stood still waiting for a transfer.
struct Stall {
    std::int64_t step = 0;     // the op that waited
    double from = 0, to = 0;   // seconds
    std::int32_t transfer = 0; // the transfer it waited for (the one that ended last)
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
    // Bytes held on the device while op `step` runs: resident nodes (its output included) + its workspace.
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

    // --- The two streams. On a timed timeline in seconds; on an untimed one
    // the same questions are answered on the cost clock (costUntil), with no
    // transfers and no stalls, so a player can use one code path.
    bool timed() const { return machine_.has_value(); }
    // The machine it was timed on (timed timelines only).
    const Machine &machine() const { return *machine_; }
    // When op `step` starts and ends on the compute stream. A compute op runs
    // from its start to its end; frees and the issue of a transfer take no
    // time (start == end). An op that waited for a transfer starts after the
    // wait: the stall is [endTime(step - 1), startTime(step)].
    double startTime(std::int64_t step) const;
    double endTime(std::int64_t step) const;
    // The step is over when both streams are idle.
    double makespan() const;
    // Bytes of host copies held while op `step` runs (0 on untimed timelines).
    std::int64_t hostBytesAt(std::int64_t step) const {
        return hostBytes_.empty() ? 0 : hostBytes_[static_cast<std::size_t>(step)];
    }
    // Every transfer in the order the link ran them (= issue order, FIFO):
    // their intervals [start, end] are disjoint and increasing.
    const std::vector<Transfer> &transfers() const { return transfers_; }
    // Every wait of the compute stream, in order.
    const std::vector<Stall> &stalls() const { return stalls_; }
    // Last op that finished at or before `time` (-1 if none): the state a
    // player shows at `time` is stateAt(stepAtTime(time)).
    std::int64_t stepAtTime(double time) const;
    // The compute op running at `time` (start <= time < end), -1 when the
    // compute stream is idle or stalled.
    std::int64_t computeAt(double time) const;
    // The transfer on the link at `time` (start <= time < end), -1 when idle.
    std::int32_t transferAt(double time) const;
    // How much of transfer k is done at `time`: 0 before its start, 1 from its end.
    double transferProgress(std::int32_t k, double time) const;

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
    // Timed timelines only.
    std::optional<Machine> machine_;
    std::vector<double> start_, end_;
    std::vector<std::int64_t> hostBytes_;
    std::vector<Transfer> transfers_;
    std::vector<Stall> stalls_;
    double makespan_ = 0;
};

} // namespace remat
