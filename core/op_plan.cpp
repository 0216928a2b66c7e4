#include "core/op_plan.h"

#include "core/errors.h"
#include "core/schedule_builder.h"

#include <algorithm>

namespace remat {

namespace {

bool checkpointed(const OpGraph &graph, const KeepSet &keep, int group) {
    return graph.groups[static_cast<std::size_t>(group)].selectable && !storesGroup(graph, keep, group);
}

// Whether the backward of node c unpacks anything: a kept input, its own
// output or saved internals. Only then does it make PyTorch re-run c's block.
bool unpacks(const Model &model, int c) {
    if (model.savesOutput(c) || model.savedBytes(c) > 0)
        return true;
    for (int p : model.inputs(c))
        if (model.savesInput(c, p))
            return true;
    return false;
}

// Whether a kept node j of a checkpointed block is read in the backward pass:
// by a gradient, or by the re-run of a consumer that is not kept.
bool readInBackward(const Model &model, const std::vector<std::uint8_t> &readByGradient, const KeepSet &keep, int j) {
    if (readByGradient[static_cast<std::size_t>(j)])
        return true;
    for (int c : model.consumers(j))
        if (!keep[static_cast<std::size_t>(c)])
            return true;
    return false;
}

std::string nodeName(const Model &model, int i) {
    return model.label(i).empty() ? model.name(model.forwardNode(i)) : model.label(i);
}

bool isBatchedProduct(const std::string &op) {
    return op.find("bmm") != std::string::npos || op.find("matmul") != std::string::npos;
}

} // namespace

std::vector<std::uint8_t> readByGradients(const Model &model) {
    std::vector<std::uint8_t> read(static_cast<std::size_t>(model.forwardCount()), 0);
    for (int i = 0; i < model.forwardCount(); ++i)
        for (NodeId r : model.reads(model.backwardNode(i)))
            if (!model.isBackward(r))
                read[static_cast<std::size_t>(model.indexOf(r))] = 1;
    return read;
}

bool isMatmulOp(const std::string &op) {
    static const char *const names[] = {"mm", "addmm", "bmm", "baddbmm", "matmul", "linear", "convolution", "conv"};
    std::string base = op.substr(op.rfind(':') == std::string::npos ? 0 : op.rfind(':') + 1);
    base = base.substr(0, base.find('.'));
    if (!base.empty() && base[0] == '_')
        base = base.substr(1);
    return std::any_of(std::begin(names), std::end(names), [&](const char *n) { return base.rfind(n, 0) == 0; });
}

const char *const kNotOpLevel = "the model is not at op level (no node has an \"op\"); trace it with "
                                "python3 -m remat_torch trace --granularity op";

OpGraph opGraph(const Model &model) {
    if (!model.isOpLevel())
        throw InvalidArgument(kNotOpLevel);
    return opGraph(model, model.blocks(), model.ops());
}

OpGraph opGraph(const ModelFile &file) {
    if (file.ops.empty())
        throw InvalidArgument(kNotOpLevel);
    std::vector<std::string> modules(static_cast<std::size_t>(file.model.forwardCount()));
    for (std::size_t i = 0; i < modules.size() && i < file.modules.size(); ++i)
        if (!file.modules[i].empty())
            modules[i] = file.modules[i][0];
    return opGraph(file.model, modules, file.ops);
}

OpGraph opGraph(const Model &model, const std::vector<std::string> &modules, std::vector<std::string> ops) {
    OpGraph g;
    g.ops = std::move(ops);
    g.ops.resize(static_cast<std::size_t>(model.forwardCount()));
    g.groupOf.assign(static_cast<std::size_t>(model.forwardCount()), 0);
    g.groups.push_back({"", {0}, false});
    for (int i = 1; i < model.forwardCount(); ++i) {
        const std::string &module = modules[static_cast<std::size_t>(i)];
        // Consecutive nodes outside the blocks (embeddings before them; the
        // head and a loss after them) are one group, always kept: its inner
        // nodes (a position index, a dropout mask) feed later nodes of the
        // same group, which a group per node would make reads beyond it.
        if (g.groups.size() == 1 || g.groups.back().module != module)
            g.groups.push_back({module, {}, false});
        g.groups.back().nodes.push_back(i);
        g.groupOf[static_cast<std::size_t>(i)] = static_cast<int>(g.groups.size()) - 1;
    }
    bool any = false;
    for (OpGroup &group : g.groups) {
        group.selectable = !group.module.empty() && group.nodes.size() >= 2;
        any = any || group.selectable;
    }
    if (!any)
        throw InvalidArgument("the model has no block of two or more op nodes with the same \"module\": nothing to "
                              "select inside");
    return g;
}

bool storesGroup(const OpGraph &graph, const KeepSet &keep, int group) {
    for (int i : graph.groups[static_cast<std::size_t>(group)].nodes)
        if (!keep[static_cast<std::size_t>(i)])
            return false;
    return true;
}

void checkKeepSet(const Model &model, const OpGraph &graph, const KeepSet &keep) {
    const std::string problem = keepSetProblem(model, graph, keep);
    if (!problem.empty())
        throw InvalidArgument(problem);
}

std::string keepSetProblem(const Model &model, const OpGraph &graph, const KeepSet &keep) {
    if (keep.size() != static_cast<std::size_t>(model.forwardCount()))
        return ("the plan keeps or re-runs " + std::to_string(keep.size()) + " nodes; the model has " +
                std::to_string(model.forwardCount()));
    std::vector<std::uint8_t> read;
    for (std::size_t g = 0; g < graph.groups.size(); ++g) {
        const OpGroup &group = graph.groups[g];
        const int last = group.nodes.back();
        if (!keep[static_cast<std::size_t>(last)])
            return ("node " + nodeName(model, last) +
                    (group.selectable
                         ? " is the output of block " + group.module + ": it must be kept (the next block's input)"
                         : " is outside any block: nothing could re-run it, so it must be kept"));
        if (!checkpointed(graph, keep, static_cast<int>(g)))
            continue;
        if (read.empty())
            read = readByGradients(model);
        for (int i : group.nodes)
            if (i != last && keep[static_cast<std::size_t>(i)] && !readInBackward(model, read, keep, i))
                return "node " + nodeName(model, i) + " of block " + group.module +
                       " is kept but nothing in the backward pass reads it: re-run it instead";
    }
    return "";
}

KeepSet closeKeepSet(const Model &model, const OpGraph &graph, KeepSet keep) {
    const std::vector<std::uint8_t> read = readByGradients(model);
    for (bool changed = true; changed;) {
        changed = false;
        for (std::size_t g = 0; g < graph.groups.size(); ++g) {
            if (!checkpointed(graph, keep, static_cast<int>(g)))
                continue;
            const auto &nodes = graph.groups[g].nodes;
            for (std::size_t k = 0; k + 1 < nodes.size(); ++k) {
                const int i = nodes[k];
                if (keep[static_cast<std::size_t>(i)] && !readInBackward(model, read, keep, i)) {
                    keep[static_cast<std::size_t>(i)] = 0;
                    changed = true;
                }
            }
        }
    }
    return keep;
}

Schedule opSchedule(const Model &model, const OpGraph &graph, const KeepSet &keep, std::string description) {
    checkKeepSet(model, graph, keep);
    Schedule s;
    s.strategy = "op-level";
    s.description = std::move(description);
    s.ops = insertFrees(model, opComputes(model, graph, keep));
    s.checkpoints = keptIntoBackward(model, s.ops);
    return s;
}

std::vector<Op> opComputes(const Model &model, const OpGraph &graph, const KeepSet &keep) {
    const int f = model.forwardCount();
    std::vector<Op> computes;
    computes.reserve(static_cast<std::size_t>(4 * f));
    const auto run = [&](int i, bool records) {
        const NodeId a = model.forwardNode(i);
        computes.push_back(records && model.savedBytes(i) > 0 ? Op::record(a) : Op::compute(a));
    };
    for (int i = 1; i < f; ++i)
        run(i, keep[static_cast<std::size_t>(i)] != 0);
    std::vector<std::uint8_t> rerun(graph.groups.size(), 0);
    const auto rerunGroup = [&](int g) {
        if (rerun[static_cast<std::size_t>(g)] || !checkpointed(graph, keep, g))
            return;
        rerun[static_cast<std::size_t>(g)] = 1;
        for (int j : graph.groups[static_cast<std::size_t>(g)].nodes)
            if (!keep[static_cast<std::size_t>(j)])
                run(j, true);
    };
    for (int i = f - 1; i >= 0; --i) {
        for (int c : model.consumers(i))
            if (unpacks(model, c))
                rerunGroup(graph.groupOf[static_cast<std::size_t>(c)]);
        for (NodeId r : model.reads(model.backwardNode(i)))
            if (!model.isBackward(r))
                rerunGroup(graph.groupOf[static_cast<std::size_t>(model.indexOf(r))]);
        computes.push_back(Op::compute(model.backwardNode(i)));
    }
    return computes;
}

double recomputeCost(const Model &model, const OpGraph &graph, const KeepSet &keep) {
    double cost = 0;
    for (std::size_t g = 0; g < graph.groups.size(); ++g)
        if (checkpointed(graph, keep, static_cast<int>(g)))
            for (int j : graph.groups[g].nodes)
                if (!keep[static_cast<std::size_t>(j)])
                    cost += model.cost(model.forwardNode(j));
    return cost;
}

KeepSet keepEverything(const OpGraph &graph) {
    return KeepSet(graph.groupOf.size(), 1);
}

KeepSet keepBlockOutputs(const OpGraph &graph) {
    KeepSet keep = keepEverything(graph);
    for (const OpGroup &group : graph.groups)
        if (group.selectable)
            for (std::size_t k = 0; k + 1 < group.nodes.size(); ++k)
                keep[static_cast<std::size_t>(group.nodes[k])] = 0;
    return keep;
}

KeepSet keepMatmuls(const Model &model, const OpGraph &graph) {
    KeepSet keep = keepBlockOutputs(graph);
    for (const OpGroup &group : graph.groups)
        if (group.selectable)
            for (int i : group.nodes)
                if (isMatmulOp(graph.ops[static_cast<std::size_t>(i)]))
                    keep[static_cast<std::size_t>(i)] = 1;
    return closeKeepSet(model, graph, keep);
}

KeepSet keepAllButAttentionCore(const Model &model, const OpGraph &graph) {
    KeepSet keep = keepEverything(graph);
    bool any = false;
    for (const OpGroup &group : graph.groups) {
        if (!group.selectable)
            continue;
        std::vector<std::size_t> products;
        for (std::size_t k = 0; k + 1 < group.nodes.size(); ++k)
            if (isBatchedProduct(graph.ops[static_cast<std::size_t>(group.nodes[k])]))
                products.push_back(k);
        if (products.size() < 2)
            continue;
        for (std::size_t k = products[0]; k < products[1]; ++k)
            keep[static_cast<std::size_t>(group.nodes[k])] = 0;
        any = true;
    }
    return any ? closeKeepSet(model, graph, keep) : KeepSet{};
}

} // namespace remat
