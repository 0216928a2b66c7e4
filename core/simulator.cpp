#include "core/simulator.h"

#include "core/errors.h"
#include "core/units.h"

#include <algorithm>

namespace remat {

namespace {

// What the replay knows after each op; StepState is its snapshot.
struct ReplayState {
    std::vector<std::uint8_t> resident;      // by NodeId: the device copy exists
    std::vector<std::uint32_t> computeCount; // by NodeId
    std::vector<std::uint8_t> saved;         // by forward index: s_i held
    // Timed replays only, by forward index.
    std::vector<HostCopy> host;
    std::vector<std::int32_t> lastTransfer;
    std::int32_t transfersIssued = 0;
};

} // namespace

struct TimelineRecorder {
    Timeline &timeline;
    std::int64_t untilSnapshot = timeline.interval_; // a countdown: no division per op
    void reserve(std::size_t ops, bool timed) {
        timeline.bytes_.reserve(ops);
        timeline.residentCount_.reserve(ops);
        timeline.costUntil_.reserve(ops);
        if (timeline.model_->hasSavedBytes())
            timeline.savedBytes_.reserve(ops);
        if (timed) {
            timeline.start_.reserve(ops);
            timeline.end_.reserve(ops);
            timeline.hostBytes_.reserve(ops);
        }
    }
    void record(std::int64_t t, std::int64_t bytes, std::int32_t count, double cost, std::int64_t savedHeld,
                const ReplayState &state) {
        timeline.bytes_.push_back(bytes);
        timeline.residentCount_.push_back(count);
        timeline.costUntil_.push_back(cost);
        if (timeline.model_->hasSavedBytes())
            timeline.savedBytes_.push_back(savedHeld);
        if (--untilSnapshot == 0) {
            timeline.snapshots_.push_back(StepState{t, state.resident, state.computeCount, state.saved, state.host,
                                                    state.lastTransfer, state.transfersIssued});
            untilSnapshot = timeline.interval_;
        }
    }
    void times(double start, double end, std::int64_t hostBytes) {
        timeline.start_.push_back(start);
        timeline.end_.push_back(end);
        timeline.hostBytes_.push_back(hostBytes);
    }
    void transfer(const Transfer &x) { timeline.transfers_.push_back(x); }
    void waited(std::int32_t transfer, std::int64_t step) {
        timeline.transfers_[static_cast<std::size_t>(transfer)].waitedAt = step;
    }
    void stall(const Stall &s) { timeline.stalls_.push_back(s); }
};

namespace {

[[noreturn]] void reject(const Model &model, std::int64_t t, Op op, const std::string &why) {
    throw InvalidSchedule(t, "op " + std::to_string(t) + " (" + describe(model, op) + "): " + why);
}

struct NoRecorder {
    void reserve(std::size_t, bool) {}
    void record(std::int64_t, std::int64_t, std::int32_t, double, std::int64_t, const ReplayState &) {}
    void times(double, double, std::int64_t) {}
    void transfer(const Transfer &) {}
    void waited(std::int32_t, std::int64_t) {}
    void stall(const Stall &) {}
};

std::string savedName(int layer) {
    return "s_" + std::to_string(layer) + " (the internals layer " + std::to_string(layer) + " saves for its backward)";
}

// The two streams of docs/model.md: the compute stream's clock, the link's,
// and the end of each node's latest transfer. Ops run in schedule order on
// the compute stream; a transfer starts when it is issued and the link is
// free, and ends latency + bytes / bandwidth later.
struct Streams {
    const Machine &machine;
    double compute = 0;              // the compute stream is free from here
    double link = 0;                 // the link is free from here
    std::vector<double> transferEnd; // by forward index, the node's latest transfer
    double waitUntil = 0;            // the latest end the current op waits for
    std::int32_t waitFor = -1;       // and its transfer

    explicit Streams(const Machine &m, int forwardCount)
        : machine(m), transferEnd(static_cast<std::size_t>(forwardCount), 0) {}
    void beginOp() {
        waitUntil = compute;
        waitFor = -1;
    }
    void waitOn(NodeId x, std::int32_t transfer) {
        if (transferEnd[x] > waitUntil) {
            waitUntil = transferEnd[x];
            waitFor = transfer;
        }
    }
    // Issues a transfer of `bytes` for node x at the compute stream's clock.
    Transfer issue(std::int64_t step, NodeId x, Direction d, std::int64_t bytes) {
        Transfer tr{step, x, d, bytes, compute, std::max(compute, link), 0, -1};
        tr.end = tr.start + machine.link.seconds(bytes);
        link = tr.end;
        transferEnd[x] = tr.end;
        return tr;
    }
};

// The one replay loop. Validation and counting happen here and nowhere else.
// `Timed`: also the copy ops, the two streams and the budgets of `machine`.
template <bool Timed, class Recorder>
Summary run(const Model &model, const Schedule &schedule, const Machine *machine, Recorder &recorder) {
    const auto nodes = static_cast<NodeId>(model.nodeCount());
    const NodeId input = model.inputNode();
    const NodeId result = model.inputGradient();
    const auto forwardCount = static_cast<std::size_t>(model.forwardCount());
    ReplayState st;
    st.resident.assign(nodes, 0);
    st.computeCount.assign(nodes, 0);
    // saved[i]: the internals s_i of layer F_i are held (by forward index).
    st.saved.assign(model.hasSavedBytes() ? forwardCount : 0, 0);
    auto &resident = st.resident;
    auto &computeCount = st.computeCount;
    auto &saved = st.saved;
    std::int64_t savedHeld = 0;
    resident[input] = 1;
    std::int64_t residentBytes = model.bytes(input);
    std::int32_t residentCount = 1;

    Summary s;
    s.peakNodes = 1;
    s.peakBytes = residentBytes;
    s.ops = static_cast<std::int64_t>(schedule.ops.size());
    recorder.reserve(schedule.ops.size(), Timed);
    std::int64_t distinctForward = 0;

    // Timed only: host copies, the op that made each, the two streams.
    std::optional<Streams> streams;
    std::vector<std::int64_t> offloadedAt;
    std::int64_t hostBytes = 0;
    if constexpr (Timed) {
        st.host.assign(forwardCount, HostCopy::None);
        st.lastTransfer.assign(forwardCount, -1);
        offloadedAt.assign(forwardCount, -1);
        streams.emplace(*machine, model.forwardCount());
        s.timed = true;
    }
    // The op about to run waits for x's transfer when it must: a prefetch
    // before x is read or freed (then x's host copy goes), an offload before
    // x's device copy is freed.
    auto waitForPrefetch = [&](NodeId x, std::int64_t t) {
        if constexpr (Timed) {
            if (x < forwardCount && st.host[x] == HostCopy::Prefetched) {
                streams->waitOn(x, st.lastTransfer[x]);
                recorder.waited(st.lastTransfer[x], t);
                st.host[x] = HostCopy::None;
                hostBytes -= model.bytes(x);
            }
        }
    };

    for (std::int64_t t = 0; t < s.ops; ++t) {
        const Op op = schedule.ops[static_cast<std::size_t>(t)];
        const NodeId x = op.node;
        if (x >= nodes)
            reject(model, t, op,
                   "no such node; this model has nodes a_0..a_" + std::to_string(model.layers()) + " and b_0..b_" +
                       std::to_string(model.layers()));
        if constexpr (Timed)
            streams->beginOp();
        double busy = 0; // seconds this op occupies the compute stream
        std::int64_t bytesNow;
        std::int64_t workspaceNow = 0;
        if (op.kind == OpKind::Compute) {
            if (x == input)
                reject(model, t, op, "a_0 is the input batch; it is given, never computed");
            const bool backward = model.isBackward(x);
            const int layer = model.indexOf(x);
            if constexpr (Timed) {
                // A node with a host copy is written by no compute: its copies must stay equal.
                if (!backward && !resident[x] && st.host[x] == HostCopy::Held)
                    reject(model, t, op,
                           model.name(x) + " is on host (offloaded at op " + std::to_string(offloadedAt[x]) +
                               "): prefetch it back rather than computing it again");
                if (!backward && op.records && st.host[x] != HostCopy::None)
                    reject(model, t, op,
                           model.name(x) + " has a host copy (offloaded at op " + std::to_string(offloadedAt[x]) +
                               "); re-running the layer while it is copied would let the copies differ");
            }
            if (op.records) {
                if (backward)
                    reject(model, t, op, "only a forward node can be computed recording");
                if (model.savedBytes(layer) == 0)
                    reject(model, t, op,
                           "layer " + std::to_string(layer) + " saves nothing besides its output; compute it plainly");
                if (saved[layer])
                    reject(model, t, op, savedName(layer) + " are already held");
            } else if (resident[x]) {
                reject(model, t, op, model.name(x) + " is already resident");
            }
            if (backward && computeCount[x] != 0)
                reject(model, t, op,
                       model.name(x) + " was already computed; a gradient is computed exactly once "
                                       "(it accumulates the weight gradients)");
            for (NodeId r : model.reads(x)) {
                if (!resident[r]) {
                    if constexpr (Timed) {
                        if (r < forwardCount && st.host[r] == HostCopy::Held)
                            reject(model, t, op,
                                   "needs " + model.name(r) + ", which is on host (offloaded at op " +
                                       std::to_string(offloadedAt[r]) + "): prefetch it first");
                    }
                    reject(model, t, op, "needs " + model.name(r) + ", which is not resident");
                }
                waitForPrefetch(r, t);
            }
            if (backward && !saved.empty())
                for (int c : model.savedReads(x))
                    if (!saved[c])
                        reject(model, t, op,
                               "needs " + savedName(c) + ", which are not held: run a_" + std::to_string(c) +
                                   " recording before");
            if (!resident[x]) {
                resident[x] = 1;
                residentBytes += model.bytes(x);
                ++residentCount;
            }
            if (op.records) {
                saved[layer] = 1;
                savedHeld += model.savedBytes(layer);
            }
            workspaceNow = model.workspace(x);
            bytesNow = residentBytes + savedHeld + workspaceNow;
            if (backward) {
                ++s.backwardOps;
            } else {
                ++s.forwardEvaluations;
                if (computeCount[x] == 0)
                    ++distinctForward;
            }
            ++computeCount[x];
            s.cost += model.cost(x);
            if constexpr (Timed)
                busy = model.cost(x) * machine->secondsPerCost;
        } else if (op.kind == OpKind::FreeSaved) {
            const int layer = model.indexOf(x);
            if (model.isBackward(x) || x == input)
                reject(model, t, op, "saved internals belong to layers a_1..a_" + std::to_string(model.layers()));
            if (saved.empty() || !saved[layer])
                reject(model, t, op, savedName(layer) + " are not held");
            saved[layer] = 0;
            savedHeld -= model.savedBytes(layer);
            bytesNow = residentBytes + savedHeld;
        } else if (op.kind == OpKind::Free) {
            if (x == input)
                reject(model, t, op, "a_0 is the input batch; it stays resident for the whole step");
            if (x == result)
                reject(model, t, op, "b_0 is the result of the step (the gradient of the input); it is never freed");
            if (!resident[x]) {
                if constexpr (Timed) {
                    if (x < forwardCount && st.host[x] == HostCopy::Held)
                        reject(model, t, op,
                               model.name(x) + " is on host, not on the device (offloaded at op " +
                                   std::to_string(offloadedAt[x]) + ", its device copy already freed)");
                }
                reject(model, t, op,
                       model.name(x) + (computeCount[x] ? " is not resident (freed twice)" : " was never computed"));
            }
            if constexpr (Timed) {
                waitForPrefetch(x, t);
                // The device copy is released once the link has finished reading it.
                if (x < forwardCount && st.host[x] == HostCopy::Held) {
                    streams->waitOn(x, st.lastTransfer[x]);
                    recorder.waited(st.lastTransfer[x], t);
                }
            }
            resident[x] = 0;
            residentBytes -= model.bytes(x);
            --residentCount;
            bytesNow = residentBytes + savedHeld;
        } else {
            if constexpr (!Timed) {
                reject(model, t, op,
                       "a transfer needs a link between device and host, and none is given (give one, e.g. "
                       "--link 16GB/s)");
            } else {
                if (!machine->link.carries())
                    reject(model, t, op, "the link carries 0 B/s: nothing can be offloaded or prefetched");
                if (model.isBackward(x) || x == input)
                    reject(model, t, op,
                           "only activations a_1..a_" + std::to_string(model.layers()) +
                               " move between device and host (a_0, the input, and the gradients stay on the device)");
                const Direction direction = op.kind == OpKind::Offload ? Direction::ToHost : Direction::ToDevice;
                if (direction == Direction::ToHost) {
                    if (!resident[x])
                        reject(model, t, op,
                               st.host[x] == HostCopy::Held ? model.name(x) + " is already on host (offloaded at op " +
                                                                  std::to_string(offloadedAt[x]) + ")"
                                                            : model.name(x) + " is not on the device");
                    if (st.host[x] == HostCopy::Held)
                        reject(model, t, op,
                               model.name(x) + " already has a host copy (offloaded at op " +
                                   std::to_string(offloadedAt[x]) + ")");
                    waitForPrefetch(x, t); // re-offloading what was just prefetched: the old copy goes first
                } else {
                    if (st.host[x] == HostCopy::None)
                        reject(model, t, op,
                               model.name(x) + " has no host copy: a prefetch needs an earlier offload of " +
                                   model.name(x));
                    if (st.host[x] == HostCopy::Prefetched)
                        reject(model, t, op, model.name(x) + " is already being prefetched");
                    if (resident[x])
                        reject(model, t, op,
                               model.name(x) + " is still on the device: free its device copy after the offload, "
                                               "then prefetch it");
                }
                // The issue waits for nothing but what this op touches (above).
                if (streams->waitUntil > streams->compute) {
                    recorder.stall({t, streams->compute, streams->waitUntil, streams->waitFor});
                    s.stallSeconds += streams->waitUntil - streams->compute;
                    streams->compute = streams->waitUntil;
                }
                const Transfer tr = streams->issue(t, x, direction, model.bytes(x));
                st.lastTransfer[x] = st.transfersIssued++;
                recorder.transfer(tr);
                s.transferBytes += model.bytes(x);
                if (direction == Direction::ToHost) {
                    ++s.offloads;
                    st.host[x] = HostCopy::Held;
                    offloadedAt[x] = t;
                    hostBytes += model.bytes(x);
                    if (hostBytes > s.peakHostBytes)
                        s.peakHostBytes = hostBytes;
                    if (machine->hostBudgetBytes && hostBytes > *machine->hostBudgetBytes)
                        reject(model, t, op,
                               "the host holds " + formatBytes(hostBytes) + " (" + std::to_string(hostBytes) +
                                   " bytes), over the host budget " + formatBytes(*machine->hostBudgetBytes));
                } else {
                    ++s.prefetches;
                    st.host[x] = HostCopy::Prefetched;
                    // The device buffer it fills is held from the issue on.
                    resident[x] = 1;
                    residentBytes += model.bytes(x);
                    ++residentCount;
                }
            }
            bytesNow = residentBytes + savedHeld;
        }
        if constexpr (Timed) {
            // Stalls of transfers were settled above; compute ops and frees wait here.
            if (!op.isTransfer() && streams->waitUntil > streams->compute) {
                recorder.stall({t, streams->compute, streams->waitUntil, streams->waitFor});
                s.stallSeconds += streams->waitUntil - streams->compute;
                streams->compute = streams->waitUntil;
            }
            const double start = streams->compute;
            streams->compute += busy;
            s.computeSeconds += busy;
            recorder.times(start, streams->compute, hostBytes);
            if (machine->deviceBudgetBytes && bytesNow > *machine->deviceBudgetBytes)
                reject(model, t, op,
                       "the device holds " + formatBytes(bytesNow) + " (" + std::to_string(bytesNow) +
                           " bytes), over the device budget " + formatBytes(*machine->deviceBudgetBytes));
        }
        if (residentCount > s.peakNodes)
            s.peakNodes = residentCount;
        if (bytesNow > s.peakBytes) {
            s.peakBytes = bytesNow;
            s.peakStep = t;
            s.peakSavedBytes = savedHeld;
            s.peakWorkspaceBytes = workspaceNow;
        }
        recorder.record(t, bytesNow, residentCount, s.cost, savedHeld, st);
    }
    for (int i = model.layers(); i >= 0; --i)
        if (!computeCount[model.backwardNode(i)])
            throw InvalidSchedule(-1, "incomplete schedule: " + model.name(model.backwardNode(i)) +
                                          " is never computed; a schedule must compute every gradient down to b_0");
    if constexpr (Timed) {
        for (std::size_t i = 0; i < forwardCount; ++i)
            if (st.host[i] == HostCopy::Held)
                throw InvalidSchedule(-1, "incomplete schedule: " + model.name(static_cast<NodeId>(i)) +
                                              " still has a host copy at the end of the step (offloaded at op " +
                                              std::to_string(offloadedAt[i]) +
                                              "); every offload needs a prefetch that brings it back");
        s.makespanSeconds = std::max(streams->compute, streams->link);
    }
    s.recomputations = s.forwardEvaluations - distinctForward;
    return s;
}

void requireTimeScale(const Machine &machine) {
    if (!(machine.secondsPerCost > 0))
        throw InvalidArgument("a timed simulation needs the time of a unit of cost (seconds per cost > 0)");
}

} // namespace

Summary Simulator::summarize(const Model &model, const Schedule &schedule) {
    NoRecorder none;
    return run<false>(model, schedule, nullptr, none);
}

Summary Simulator::summarize(const Model &model, const Schedule &schedule, const Machine &machine) {
    requireTimeScale(machine);
    NoRecorder none;
    return run<true>(model, schedule, &machine, none);
}

Replay Simulator::replayOn(std::shared_ptr<const Model> model, std::shared_ptr<const Schedule> schedule,
                           const Machine *machine) {
    Replay r;
    Timeline &tl = r.timeline;
    tl.model_ = std::move(model);
    tl.schedule_ = std::move(schedule);
    tl.interval_ = std::max<std::int64_t>(1024, 4 * static_cast<std::int64_t>(tl.model_->nodeCount()));
    TimelineRecorder recorder{tl};
    if (machine) {
        tl.machine_ = *machine;
        r.summary = run<true>(*tl.model_, *tl.schedule_, machine, recorder);
        tl.makespan_ = r.summary.makespanSeconds;
    } else {
        r.summary = run<false>(*tl.model_, *tl.schedule_, nullptr, recorder);
    }
    return r;
}

Replay Simulator::replay(std::shared_ptr<const Model> model, std::shared_ptr<const Schedule> schedule) {
    return replayOn(std::move(model), std::move(schedule), nullptr);
}

Replay Simulator::replay(std::shared_ptr<const Model> model, std::shared_ptr<const Schedule> schedule,
                         const Machine &machine) {
    requireTimeScale(machine);
    return replayOn(std::move(model), std::move(schedule), &machine);
}

} // namespace remat
