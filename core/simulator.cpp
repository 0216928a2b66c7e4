#include "core/simulator.h"

#include "core/errors.h"

#include <algorithm>

namespace remat {

struct TimelineRecorder {
    Timeline &timeline;
    std::int64_t untilSnapshot = timeline.interval_; // a countdown: no division per op
    void reserve(std::size_t ops) {
        timeline.bytes_.reserve(ops);
        timeline.residentCount_.reserve(ops);
        timeline.costUntil_.reserve(ops);
        if (timeline.model_->hasSavedBytes())
            timeline.savedBytes_.reserve(ops);
    }
    void record(std::int64_t t, std::int64_t bytes, std::int32_t count, double cost, std::int64_t savedHeld,
                const std::vector<std::uint8_t> &resident, const std::vector<std::uint32_t> &computeCount,
                const std::vector<std::uint8_t> &saved) {
        timeline.bytes_.push_back(bytes);
        timeline.residentCount_.push_back(count);
        timeline.costUntil_.push_back(cost);
        if (timeline.model_->hasSavedBytes())
            timeline.savedBytes_.push_back(savedHeld);
        if (--untilSnapshot == 0) {
            timeline.snapshots_.push_back(StepState{t, resident, computeCount, saved});
            untilSnapshot = timeline.interval_;
        }
    }
};

namespace {

[[noreturn]] void reject(const Model &model, std::int64_t t, Op op, const std::string &why) {
    throw InvalidSchedule(t, "op " + std::to_string(t) + " (" + describe(model, op) + "): " + why);
}

struct NoRecorder {
    void reserve(std::size_t) {}
    void record(std::int64_t, std::int64_t, std::int32_t, double, std::int64_t, const std::vector<std::uint8_t> &,
                const std::vector<std::uint32_t> &, const std::vector<std::uint8_t> &) {}
};

std::string savedName(int layer) {
    return "s_" + std::to_string(layer) + " (the internals layer " + std::to_string(layer) + " saves for its backward)";
}

// The one replay loop. Validation and counting happen here and nowhere else.
template <class Recorder> Summary run(const Model &model, const Schedule &schedule, Recorder &recorder) {
    const auto nodes = static_cast<NodeId>(model.nodeCount());
    const NodeId input = model.inputNode();
    const NodeId result = model.inputGradient();
    std::vector<std::uint8_t> resident(nodes, 0);
    std::vector<std::uint32_t> computeCount(nodes, 0);
    // saved[i]: the internals s_i of layer F_i are held (by forward index).
    std::vector<std::uint8_t> saved(model.hasSavedBytes() ? static_cast<std::size_t>(model.forwardCount()) : 0, 0);
    std::int64_t savedHeld = 0;
    resident[input] = 1;
    std::int64_t residentBytes = model.bytes(input);
    std::int32_t residentCount = 1;

    Summary s;
    s.peakNodes = 1;
    s.peakBytes = residentBytes;
    s.ops = static_cast<std::int64_t>(schedule.ops.size());
    recorder.reserve(schedule.ops.size());
    std::int64_t distinctForward = 0;

    for (std::int64_t t = 0; t < s.ops; ++t) {
        const Op op = schedule.ops[static_cast<std::size_t>(t)];
        const NodeId x = op.node;
        if (x >= nodes)
            reject(model, t, op,
                   "no such node; this model has nodes a_0..a_" + std::to_string(model.layers()) + " and b_0..b_" +
                       std::to_string(model.layers()));
        std::int64_t bytesNow;
        std::int64_t workspaceNow = 0;
        if (op.kind == OpKind::Compute) {
            if (x == input)
                reject(model, t, op, "a_0 is the input batch; it is given, never computed");
            const bool backward = model.isBackward(x);
            const int layer = model.indexOf(x);
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
            for (NodeId r : model.reads(x))
                if (!resident[r])
                    reject(model, t, op, "needs " + model.name(r) + ", which is not resident");
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
        } else if (op.kind == OpKind::FreeSaved) {
            const int layer = model.indexOf(x);
            if (model.isBackward(x) || x == input)
                reject(model, t, op, "saved internals belong to layers a_1..a_" + std::to_string(model.layers()));
            if (saved.empty() || !saved[layer])
                reject(model, t, op, savedName(layer) + " are not held");
            saved[layer] = 0;
            savedHeld -= model.savedBytes(layer);
            bytesNow = residentBytes + savedHeld;
        } else {
            if (x == input)
                reject(model, t, op, "a_0 is the input batch; it stays resident for the whole step");
            if (x == result)
                reject(model, t, op, "b_0 is the result of the step (the gradient of the input); it is never freed");
            if (!resident[x])
                reject(model, t, op,
                       model.name(x) + (computeCount[x] ? " is not resident (freed twice)" : " was never computed"));
            resident[x] = 0;
            residentBytes -= model.bytes(x);
            --residentCount;
            bytesNow = residentBytes + savedHeld;
        }
        if (residentCount > s.peakNodes)
            s.peakNodes = residentCount;
        if (bytesNow > s.peakBytes) {
            s.peakBytes = bytesNow;
            s.peakStep = t;
            s.peakSavedBytes = savedHeld;
            s.peakWorkspaceBytes = workspaceNow;
        }
        recorder.record(t, bytesNow, residentCount, s.cost, savedHeld, resident, computeCount, saved);
    }
    for (int i = model.layers(); i >= 0; --i)
        if (!computeCount[model.backwardNode(i)])
            throw InvalidSchedule(-1, "incomplete schedule: " + model.name(model.backwardNode(i)) +
                                          " is never computed; a schedule must compute every gradient down to b_0");
    s.recomputations = s.forwardEvaluations - distinctForward;
    return s;
}

} // namespace

Summary Simulator::summarize(const Model &model, const Schedule &schedule) {
    NoRecorder none;
    return run(model, schedule, none);
}

Replay Simulator::replay(std::shared_ptr<const Model> model, std::shared_ptr<const Schedule> schedule) {
    Replay r;
    Timeline &tl = r.timeline;
    tl.model_ = std::move(model);
    tl.schedule_ = std::move(schedule);
    tl.interval_ = std::max<std::int64_t>(1024, 4 * static_cast<std::int64_t>(tl.model_->nodeCount()));
    TimelineRecorder recorder{tl};
    r.summary = run(*tl.model_, *tl.schedule_, recorder);
    return r;
}

} // namespace remat
