#include "core/op_pytorch_run.h"

#include "core/errors.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>

namespace remat {

Schedule pytorchRunSchedule(const Model &model, const OpGraph &graph, const KeepSet &keep) {
    Schedule s = opSchedule(model, graph, keep, "PyTorch's run");
    auto &ops = s.ops;
    const auto isKept = [&](int i) { return keep[static_cast<std::size_t>(i)] != 0; };
    for (std::size_t g = 0; g < graph.groups.size(); ++g) {
        if (!graph.groups[g].selectable || storesGroup(graph, keep, static_cast<int>(g)))
            continue;
        const auto &nodes = graph.groups[g].nodes;
        // The block's re-run: the second compute of each node it re-runs.
        std::map<int, std::size_t> rerunAt;
        std::vector<std::uint8_t> ran(static_cast<std::size_t>(model.forwardCount()), 0);
        for (std::size_t k = 0; k < ops.size(); ++k) {
            if (ops[k].kind != OpKind::Compute || model.isBackward(ops[k].node))
                continue;
            const int i = model.indexOf(ops[k].node);
            if (ran[static_cast<std::size_t>(i)] && graph.groupOf[static_cast<std::size_t>(i)] == static_cast<int>(g))
                rerunAt[i] = k;
            ran[static_cast<std::size_t>(i)] = 1;
        }
        if (rerunAt.empty())
            continue;
        const std::size_t start = std::min_element(rerunAt.begin(), rerunAt.end(), [](const auto &a, const auto &b) {
                                      return a.second < b.second;
                                  })->second;
        // Where the re-run reaches each kept node: after the op whose index is
        // stored, or (npos) right before the re-run.
        std::vector<std::pair<Op, std::size_t>> pops;
        std::size_t reached = std::string::npos;
        for (int j : nodes) {
            if (!isKept(j)) {
                reached = rerunAt.at(j);
                continue;
            }
            const Op freed = Op::free(model.forwardNode(j));
            const auto at = std::find(ops.begin(), ops.end(), freed);
            const std::size_t freedAt = static_cast<std::size_t>(at - ops.begin());
            if (at != ops.end() && (reached == std::string::npos ? freedAt < start : freedAt <= reached))
                pops.emplace_back(freed, reached);
        }
        if (pops.empty())
            continue;
        std::vector<Op> moved;
        moved.reserve(ops.size());
        const auto popsAfter = [&](std::size_t anchor) {
            for (const auto &[freed, after] : pops)
                if (after == anchor)
                    moved.push_back(freed);
        };
        for (std::size_t k = 0; k < ops.size(); ++k) {
            if (k == start)
                popsAfter(std::string::npos);
            if (std::none_of(pops.begin(), pops.end(), [&](const auto &p) { return p.first == ops[k]; }))
                moved.push_back(ops[k]);
            popsAfter(k);
        }
        ops = std::move(moved);
    }
    for (const Op held : {Op::free(model.outputNode()), Op::free(model.backwardNode(model.forwardCount() - 1))}) {
        const auto at = std::find(ops.begin(), ops.end(), held);
        if (at != ops.end()) {
            ops.erase(at);
            ops.push_back(held);
        }
    }
    return s;
}

TraceHolds traceHolds(const ModelFile &file) {
    TraceHolds holds;
    holds.outsideBlock.assign(static_cast<std::size_t>(file.model.forwardCount()), 0);
    const auto trace = nlohmann::json::parse(file.trace.empty() ? "null" : file.trace, nullptr, false);
    if (!trace.is_object())
        return holds;
    const auto malformed = [](const std::string &field, const nlohmann::json &value) {
        return InvalidArgument("the model file's trace." + field + " entry " + value.dump() +
                               " is malformed (python3 -m remat_torch trace writes it; trace the model again)");
    };
    std::map<std::string, int> index;
    for (int i = 1; i < file.model.forwardCount(); ++i)
        index[file.model.label(i)] = i;
    const auto node = [&](const nlohmann::json &name) {
        return name.is_string() && index.count(name.get<std::string>()) ? index.at(name.get<std::string>()) : -1;
    };
    if (trace.contains("tied_gradients") && !trace["tied_gradients"].is_array())
        throw malformed("tied_gradients", trace["tied_gradients"]);
    if (trace.contains("tied_gradients"))
        for (const auto &tied : trace["tied_gradients"]) {
            if (!tied.is_object() || !tied.contains("bytes") || !tied["bytes"].is_number_integer() ||
                !tied.contains("nodes") || !tied["nodes"].is_array())
                throw malformed("tied_gradients", tied);
            TraceHolds::Gradient g{tied["bytes"].get<std::int64_t>(), file.model.forwardCount(), 0};
            for (const auto &name : tied["nodes"])
                if (const int i = node(name); i > 0) {
                    g.first = std::min(g.first, i);
                    g.last = std::max(g.last, i);
                }
            if (g.bytes > 0 && g.first < g.last)
                holds.gradients.push_back(g);
        }
    if (trace.contains("workspace_outside_block") && !trace["workspace_outside_block"].is_object())
        throw malformed("workspace_outside_block", trace["workspace_outside_block"]);
    if (trace.contains("workspace_outside_block")) {
        for (const auto &[name, bytes] : trace["workspace_outside_block"].items()) {
            if (!bytes.is_number_integer())
                throw malformed("workspace_outside_block", bytes);
            if (const int i = node(name); i > 0)
                holds.outsideBlock[static_cast<std::size_t>(i)] = std::clamp<std::int64_t>(
                    bytes.get<std::int64_t>(), 0, file.model.workspace(file.model.forwardNode(i)));
        }
    }
    if (trace.contains("checkpoint_arguments") && !trace["checkpoint_arguments"].is_array())
        throw malformed("checkpoint_arguments", trace["checkpoint_arguments"]);
    if (trace.contains("checkpoint_arguments"))
        for (const auto &argument : trace["checkpoint_arguments"]) {
            if (!argument.is_object() || !argument.contains("blocks") || !argument["blocks"].is_array())
                throw malformed("checkpoint_arguments", argument);
            TraceHolds::Argument a{node(argument.value("node", nlohmann::json())), {}, 0};
            for (const auto &block : argument["blocks"])
                if (block.is_string())
                    a.blocks.push_back(block.get<std::string>());
            a.workspaceThrough = std::max(0, node(argument.value("workspace_through", nlohmann::json())));
            if (a.node > 0 && !a.blocks.empty())
                holds.arguments.push_back(std::move(a));
        }
    return holds;
}

Summary pytorchRun(const Model &model, const OpGraph &graph, const KeepSet &keep, const TraceHolds &holds) {
    const auto schedule = std::make_shared<const Schedule>(pytorchRunSchedule(model, graph, keep));
    const auto &ops = schedule->ops;
    const auto firstBelow = [&](int node) {
        for (std::size_t k = 0; k < ops.size(); ++k)
            if (ops[k].kind == OpKind::Compute && model.isBackward(ops[k].node) && model.indexOf(ops[k].node) < node)
                return k;
        return ops.size();
    };
    std::vector<std::int64_t> extra(ops.size(), 0);
    std::vector<std::uint8_t> ran(static_cast<std::size_t>(model.forwardCount()), 0);
    bool any = false;
    for (std::size_t k = 0; k < ops.size(); ++k) {
        if (ops[k].kind != OpKind::Compute || model.isBackward(ops[k].node))
            continue;
        const auto i = static_cast<std::size_t>(model.indexOf(ops[k].node));
        if (ran[i] && i < holds.outsideBlock.size())
            extra[k] -= holds.outsideBlock[i];
        any = any || extra[k] != 0;
        ran[i] = 1;
    }
    for (const TraceHolds::Gradient &g : holds.gradients)
        for (std::size_t k = firstBelow(g.last), end = firstBelow(g.first); k < end; ++k)
            if (ops[k].kind == OpKind::Compute && !model.isBackward(ops[k].node)) {
                extra[k] += g.bytes;
                any = true;
            }
    for (const TraceHolds::Argument &a : holds.arguments) {
        // The first checkpointed block called with it: its checkpoint is
        // made first and its backward ends last.
        int first = -1;
        for (std::size_t g = 0; g < graph.groups.size() && first < 0; ++g)
            if (graph.groups[g].selectable && !storesGroup(graph, keep, static_cast<int>(g)) &&
                std::find(a.blocks.begin(), a.blocks.end(), graph.groups[g].module) != a.blocks.end())
                first = static_cast<int>(g);
        if (first < 0)
            continue;
        const auto inFirst = [&](const Op &op) {
            return op.kind == OpKind::Compute &&
                   graph.groupOf[static_cast<std::size_t>(model.indexOf(op.node))] == first;
        };
        const auto called = std::find_if(ops.begin(), ops.end(), inFirst);
        std::size_t end = 0;
        for (std::size_t k = 0; k < ops.size(); ++k)
            if (inFirst(ops[k]) && model.isBackward(ops[k].node))
                end = k;
        const auto freed = std::find(ops.begin(), ops.end(), Op::free(model.forwardNode(a.node)));
        if (called == ops.end() || freed == ops.end())
            continue;
        const std::int64_t bytes = model.bytes(model.forwardNode(a.node));
        std::fill(ran.begin(), ran.end(), 0);
        for (std::size_t k = 0; k <= end; ++k) {
            const bool forward = ops[k].kind == OpKind::Compute && !model.isBackward(ops[k].node);
            const auto i = forward ? static_cast<std::size_t>(model.indexOf(ops[k].node)) : 0;
            const bool counted = forward && !ran[i] && static_cast<int>(i) <= a.workspaceThrough;
            if (forward)
                ran[i] = 1;
            if (k > static_cast<std::size_t>(freed - ops.begin()) &&
                k >= static_cast<std::size_t>(called - ops.begin()) && !counted) {
                extra[k] += bytes;
                any = true;
            }
        }
    }
    if (!any)
        return Simulator::summarize(model, *schedule);
    const Replay replay = Simulator::replay(std::make_shared<const Model>(model), schedule);
    // The simulator's peak may be a re-run's that holds less: counted again.
    Summary summary = replay.summary;
    summary.peakBytes = 0;
    for (std::size_t k = 0; k < ops.size(); ++k) {
        const auto step = static_cast<std::int64_t>(k);
        const std::int64_t bytes = replay.timeline.bytesAt(step) + extra[k];
        if (bytes > summary.peakBytes) {
            summary.peakBytes = bytes;
            summary.peakStep = step;
            summary.peakSavedBytes = replay.timeline.savedBytesAt(step);
            summary.peakWorkspaceBytes = (ops[k].kind == OpKind::Compute ? model.workspace(ops[k].node) : 0) + extra[k];
        }
    }
    return summary;
}

} // namespace remat
