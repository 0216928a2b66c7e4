#include "core/torch_plan.h"

#include "core/errors.h"
#include "core/schedule_builder.h"
#include "core/simulator.h"

#include <algorithm>

namespace remat {

namespace {

std::vector<int> evaluationsOf(const Model &model, const std::vector<Op> &ops) {
    std::vector<int> evaluations(model.forwardCount(), 0);
    for (const Op &op : ops)
        if (op.kind == OpKind::Compute && !model.isBackward(op.node))
            ++evaluations[op.node];
    return evaluations;
}

std::string nodeText(const Model &model, int i) {
    const std::string &label = model.label(i);
    return label.empty() ? "a_" + std::to_string(i) : label;
}

Op forwardRun(const Model &model, int i, bool recording) {
    return recording && model.savedBytes(i) > 0 ? Op::record(model.forwardNode(i)) : Op::compute(model.forwardNode(i));
}

// The compute order PyTorch follows for these segments: every layer once in
// the forward pass (stored ones recording); the output gradient; then the
// backward ops from b_(n-1) down to b_0, a segment re-run whole, recording,
// right before the first backward op that consumes one of its layers'
// internals (the backward of its last layer, where autograd unpacks first).
std::vector<Op> torchComputes(const Model &model, const std::vector<TorchSegment> &segments) {
    std::vector<int> segmentOf(model.forwardCount(), -1);
    for (std::size_t s = 0; s < segments.size(); ++s)
        for (int i = segments[s].first; i <= segments[s].last; ++i)
            segmentOf[i] = static_cast<int>(s);
    std::vector<Op> ops;
    for (int i = 1; i < model.forwardCount(); ++i)
        ops.push_back(forwardRun(model, i, segmentOf[i] < 0));
    std::vector<std::uint8_t> rerun(segments.size(), 0);
    const int n = model.layers();
    ops.push_back(Op::compute(model.backwardNode(n)));
    for (int p = n - 1; p >= 0; --p) {
        for (int c : model.consumers(p)) {
            const int s = segmentOf[c];
            if (s < 0 || rerun[s])
                continue;
            rerun[s] = 1;
            for (int i = segments[s].first; i <= segments[s].last; ++i)
                ops.push_back(forwardRun(model, i, true));
        }
        ops.push_back(Op::compute(model.backwardNode(p)));
    }
    return ops;
}

std::vector<Op> computesOf(const std::vector<Op> &ops) {
    std::vector<Op> computes;
    for (const Op &op : ops)
        if (op.kind == OpKind::Compute)
            computes.push_back(op);
    return computes;
}

} // namespace

TorchPlan torchPlan(const Model &model, const Schedule &plan, const std::vector<std::vector<std::string>> &modules,
                    const std::vector<bool> &chained) {
    TorchPlan out;
    const int n = model.layers();
    if (modules.size() != static_cast<std::size_t>(model.forwardCount())) {
        out.reason = "the model file names no PyTorch modules; trace the model with python3 -m remat_torch trace "
                     "(docs/pytorch.md)";
        return out;
    }
    // torch.utils.checkpoint recomputes; it does not move tensors to host.
    for (const Op &op : plan.ops)
        if (op.isTransfer()) {
            out.reason = "the plan offloads " + nodeText(model, static_cast<int>(op.node)) +
                         " to host, which torch.utils.checkpoint cannot express; plan without a link (or see "
                         "torch.autograd.graph.save_on_cpu)";
            return out;
        }
    const std::vector<int> evaluations = evaluationsOf(model, plan.ops);
    for (int i = 1; i <= n; ++i)
        if (evaluations[i] > 2)
            out.recomputedMoreThanOnce.push_back(i);
    if (!out.recomputedMoreThanOnce.empty()) {
        const int i = out.recomputedMoreThanOnce.front();
        out.reason = "the plan runs " + nodeText(model, i) + " " + std::to_string(evaluations[i]) + " times (" +
                     std::to_string(out.recomputedMoreThanOnce.size()) +
                     " nodes are recomputed more than once): that needs nested checkpoints, which "
                     "torch.utils.checkpoint (non-reentrant) cannot run without keeping the inner segments' "
                     "inputs; choose a plan that recomputes each node at most once (--strategy budget, periodic "
                     "or checkpoints)";
        return out;
    }
    std::vector<std::uint8_t> kept(model.forwardCount(), 0);
    for (int c : keptIntoBackward(model, plan.ops))
        kept[c] = 1;
    for (int i = 1; i <= n; ++i) {
        if (evaluations[i] < 2)
            continue;
        if (modules[i].empty()) {
            out.reason = "the plan recomputes " + nodeText(model, i) +
                         ", which names no PyTorch module in the model file; only traced nodes can be checkpointed";
            return out;
        }
        const bool extends = !out.segments.empty() && out.segments.back().last == i - 1 && !kept[i - 1] && chained[i];
        if (extends)
            out.segments.back().last = i;
        else
            out.segments.push_back({i, i});
    }
    out.schedule.strategy = plan.strategy;
    out.schedule.description = plan.description;
    out.schedule.checkpoints = plan.checkpoints;
    const std::vector<Op> computes = torchComputes(model, out.segments);
    out.matchesPlan = computes == computesOf(plan.ops);
    out.schedule.ops = out.matchesPlan ? plan.ops : insertFrees(model, computes);
    try {
        Simulator::summarize(model, out.schedule);
    } catch (const Error &e) {
        out.reason = std::string("the segments PyTorch would run do not make a valid schedule here: ") + e.what();
        return out;
    }
    out.forwardEvaluations = evaluationsOf(model, out.schedule.ops);
    out.appliable = true;
    return out;
}

} // namespace remat
