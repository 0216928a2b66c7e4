#include "app/render/narration.h"

#include "app/render/runtime_narration.h"

#include "core/units.h"

#include <algorithm>

namespace remat::render {

namespace {

// Explanations look ahead in the schedule; this bounds the look on huge schedules.
constexpr std::int64_t kLookAhead = 4'000'000;

bool reads(const Model &model, NodeId reader, NodeId node) {
    const auto r = model.reads(reader);
    return std::find(r.begin(), r.end(), node) != r.end();
}

// "b_6 and a_5", "a_2, a_3 and a_4".
std::string joinNames(const Model &model, std::span<const NodeId> ids) {
    std::string out;
    for (std::size_t i = 0; i < ids.size(); ++i) {
        if (i > 0)
            out += i + 1 == ids.size() ? " and " : ", ";
        out += model.name(ids[i]);
    }
    return out;
}

// "b_5 from b_6 and a_5"
std::string withInputs(const Model &model, NodeId id) {
    const auto r = model.reads(id);
    return r.empty() ? model.name(id) : model.name(id) + " from " + joinNames(model, r);
}

// "from checkpoint a_4", "from the input a_0", "from a_3".
std::string source(const Model &model, const std::vector<std::uint8_t> &checkpoints, NodeId id) {
    const auto r = model.reads(id);
    if (r.size() != 1)
        return "from " + joinNames(model, r);
    const NodeId from = r[0];
    if (from == model.inputNode())
        return "from the input a_0";
    if (checkpoints[from])
        return "from checkpoint " + model.name(from);
    return "from " + model.name(from);
}

struct NextUse {
    std::int64_t step = -1; // -1: none within the look-ahead
    bool recompute = false; // the next event is computing it again, not reading it
};

NextUse nextUse(const Timeline &timeline, std::int64_t after, NodeId node) {
    const Model &model = timeline.model();
    const std::int64_t end = std::min(timeline.steps(), after + 1 + kLookAhead);
    for (std::int64_t s = after + 1; s < end; ++s) {
        const Op op = timeline.op(s);
        if (op.kind != OpKind::Compute)
            continue;
        if (op.node == node)
            return {s, true};
        if (reads(model, op.node, node))
            return {s, false};
    }
    return {};
}

std::int64_t nextBackward(const Timeline &timeline, std::int64_t after) {
    const Model &model = timeline.model();
    const std::int64_t end = std::min(timeline.steps(), after + 1 + kLookAhead);
    for (std::int64_t s = after + 1; s < end; ++s) {
        const Op op = timeline.op(s);
        if (op.kind == OpKind::Compute && model.isBackward(op.node))
            return s;
    }
    return -1;
}

std::string times(std::uint32_t n) {
    return n == 2 ? "twice" : std::to_string(n) + " times";
}

std::string layerName(const Model &model, int i) {
    const std::string &label = model.label(i);
    return label.empty() ? "layer " + std::to_string(i) : label + " (layer " + std::to_string(i) + ")";
}

// A recording run keeps the layer's internals s_i for its backward.
std::string narrateRecord(const Timeline &timeline, const std::vector<std::uint8_t> &checkpoints,
                          const StepState &state, NodeId id) {
    const Model &model = timeline.model();
    const int i = model.indexOf(id);
    const std::string internals =
        "its internals s_" + std::to_string(i) + " (" + formatBytes(model.savedBytes(i)) + ")";
    if (state.computeCount[id] <= 1)
        return "Forward pass: computing " + model.name(id) + " " + source(model, checkpoints, id) + ", recording " +
               internals + ": its backward needs them.";
    const std::int64_t b = nextBackward(timeline, state.step);
    const std::string forWhom =
        b < 0 ? "its backward needs them" : withInputs(model, timeline.op(b).node) + " needs them";
    return "Re-running " + layerName(model, i) + " " + source(model, checkpoints, id) + " recording " + internals +
           ": " + forWhom + ", and the forward pass kept only the layer's output.";
}

std::string narrateFreeSaved(const Timeline &timeline, NodeId id) {
    const Model &model = timeline.model();
    const int i = model.indexOf(id);
    return "Freeing s_" + std::to_string(i) + ", the internals " + layerName(model, i) + " saved (" +
           formatBytes(model.savedBytes(i)) + "): its backward is done.";
}

std::string narrateCompute(const Timeline &timeline, const std::vector<std::uint8_t> &checkpoints,
                           const StepState &state, NodeId id) {
    const Model &model = timeline.model();
    const std::string name = model.name(id);
    if (model.isBackward(id)) {
        if (id == model.backwardNode(model.layers()))
            return "Backward pass starts at the loss: computing " + withInputs(model, id) + ".";
        if (id == model.inputGradient())
            return "Computing " + withInputs(model, id) + ", the gradient at the input: the backward pass is complete.";
        return "Backward pass: computing " + withInputs(model, id) + ".";
    }
    const std::uint32_t count = state.computeCount[id];
    if (count <= 1) {
        std::string out = "Forward pass: computing " + name + " " + source(model, checkpoints, id) + ".";
        if (id == model.outputNode())
            out += " " + name + " is the output; the backward pass starts from it.";
        else if (checkpoints[id])
            out += " " + name + " is a checkpoint: it stays in memory for the backward pass.";
        return out;
    }
    std::string out = "Recomputing " + name + " " + source(model, checkpoints, id);
    if (count > 2)
        out += " (computed " + times(count) + " so far)";
    const std::int64_t b = nextBackward(timeline, state.step);
    if (b < 0)
        return out + ".";
    const NodeId backward = timeline.op(b).node;
    const std::string step = "the next backward step, " + withInputs(model, backward) + ",";
    if (reads(model, backward, id))
        return out + ": " + step + " needs " + name + ", which was dropped after the forward pass.";
    // The node needed is further along this segment: name it.
    NodeId needed = id;
    for (const NodeId r : model.reads(backward))
        if (!model.isBackward(r))
            needed = r;
    return out + " on the way to " + model.name(needed) + ": " + step + " needs " + model.name(needed) +
           ", which was dropped after the forward pass.";
}

std::string narrateFree(const Timeline &timeline, const StepState &state, NodeId id) {
    const Model &model = timeline.model();
    const std::string name = model.name(id);
    const NextUse use = nextUse(timeline, state.step, id);
    if (use.step < 0)
        return "Freeing " + name + ": no later op reads it.";
    // Frees are placed as soon as nothing reads a node until it is computed again.
    const std::int64_t b = nextBackward(timeline, use.step - 1);
    std::string out = "Freeing " + name + " to save memory: nothing reads it until it is recomputed";
    if (b >= 0)
        out += " for " + model.name(timeline.op(b).node);
    return out + " in the backward pass.";
}

// Offloads and prefetches in words (the copy stream runs beside the compute stream).
std::string narrateTransfer(const Timeline &timeline, Op op) {
    const Model &model = timeline.model();
    const std::string name = model.name(op.node) + " (" + formatBytes(model.bytes(op.node)) + ")";
    if (op.kind == OpKind::Offload)
        return "Offloading " + name +
               " to host memory: the copy runs beside the compute stream, and the device copy is freed once it is "
               "done.";
    return "Prefetching " + name + " back from host memory, ahead of the gradient that reads it.";
}

} // namespace

std::string narrate(const Timeline &timeline, const std::vector<std::uint8_t> &checkpoints, const StepState &state) {
    if (state.step < 0)
        return "Before the first op: only the input a_0 is in memory. The forward pass computes a_1 next.";
    const Op op = timeline.op(state.step);
    std::string out = op.isTransfer()                ? narrateTransfer(timeline, op)
                      : op.kind == OpKind::FreeSaved ? narrateFreeSaved(timeline, op.node)
                      : op.records                   ? narrateRecord(timeline, checkpoints, state, op.node)
                      : op.kind == OpKind::Compute   ? narrateCompute(timeline, checkpoints, state, op.node)
                                                     : narrateFree(timeline, state, op.node);
    if (std::optional<std::string> decided = narrateRuntimeEvent(timeline, state, out))
        out = std::move(*decided);
    if (state.step + 1 == timeline.steps())
        out += " Done: every gradient has been computed.";
    return out;
}

std::string whyResident(const Timeline &timeline, const std::vector<std::uint8_t> &checkpoints, const StepState &state,
                        NodeId node) {
    const Model &model = timeline.model();
    if (!state.resident[node])
        return "";
    if (node == model.inputNode())
        return "the input: always kept";
    if (node == model.inputGradient())
        return "the gradient at the input: the result of the backward pass";
    std::string out;
    if (state.step >= 0 && timeline.op(state.step).kind == OpKind::Compute && timeline.op(state.step).node == node)
        out = "just computed by the current op; ";
    else if (!model.isBackward(node) && checkpoints[node] && state.computeCount[node] == 1)
        out = "checkpoint kept from the forward pass; ";
    const NextUse use = nextUse(timeline, state.step, node);
    if (use.step < 0 || use.recompute)
        return out + "no later op reads it; it is freed next";
    return out + "read next by op " + std::to_string(use.step) + " (compute " +
           withInputs(model, timeline.op(use.step).node) + ")";
}

} // namespace remat::render
