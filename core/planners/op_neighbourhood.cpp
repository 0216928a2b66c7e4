#include "core/planners/op_neighbourhood.h"

#include "core/errors.h"

#include <algorithm>
#include <map>
#include <sstream>

namespace remat::op_search {

namespace {

// What block g's neighbourhood does not see but is held while its backward
// runs: a node beyond the next block that reads a tensor made before block
// g, or in it (an attention mask made once before the layers), leaves its
// gradient, and what that tensor's backward reads of it (its output, its
// internals), held from its own backward until that tensor's backward. A
// tensor is made and last read at the same places whatever is kept (a
// re-run remakes it within its own block), so these are bytes and places of
// the model, not of a plan.
void addHeldBeyond(Neighbourhood &n, const Model &model, const OpGraph &graph, int g, const std::map<int, int> &local) {
    const auto groupOf = [&](int i) { return graph.groupOf[static_cast<std::size_t>(i)]; };
    // For each tensor of a node beyond block g + 1, the backward that reads
    // it last: the reader in the earliest group, the earliest node there.
    const std::size_t nodes = static_cast<std::size_t>(model.nodeCount());
    std::vector<int> lastReader(nodes + static_cast<std::size_t>(model.forwardCount()), -1);
    const auto read = [&](std::size_t tensor, int y) {
        int &r = lastReader[tensor];
        if (r < 0 || groupOf(y) < groupOf(r) || (groupOf(y) == groupOf(r) && y < r))
            r = y;
    };
    for (int y = 0; y < model.forwardCount() && groupOf(y) <= g; ++y) {
        const NodeId b = model.backwardNode(y);
        for (NodeId t : model.reads(b))
            if (groupOf(model.indexOf(t)) > g + 1)
                read(static_cast<std::size_t>(t), y);
        for (int c : model.savedReads(b))
            if (groupOf(c) > g + 1)
                read(nodes + static_cast<std::size_t>(c), y);
    }
    for (std::size_t t = 0; t < lastReader.size(); ++t) {
        const int y = lastReader[t];
        if (y < 0)
            continue;
        const std::int64_t bytes =
            t < nodes ? model.bytes(static_cast<NodeId>(t)) : model.savedBytes(static_cast<int>(t - nodes));
        if (groupOf(y) < g)
            n.heldThrough += bytes;
        else
            n.heldUntil.push_back({local.at(y), bytes});
    }
}

} // namespace

std::string readBeyondNextBlock(const Model &model, const OpGraph &graph) {
    const auto groupOf = [&](int i) { return graph.groupOf[static_cast<std::size_t>(i)]; };
    const auto where = [&](int group) {
        const std::string &module = graph.groups[static_cast<std::size_t>(group)].module;
        return module.empty() ? std::string("outside the blocks") : "in block " + module;
    };
    const auto named = [&](int i) { return model.label(i) + " (" + where(groupOf(i)) + ")"; };
    const int groups = static_cast<int>(graph.groups.size());
    for (int i = 0; i + 1 < model.forwardCount(); ++i) {
        const int g = groupOf(i);
        const auto consumers = model.consumers(i);
        if (g == 0 || consumers.empty())
            continue; // the input: every neighbourhood stands in for it
        // Block g's neighbourhood replays groups g and g + 1: a node there
        // needs a reader within them.
        if (std::none_of(consumers.begin(), consumers.end(), [&](int c) { return groupOf(c) <= g + 1; }))
            return named(i) + " is read by " + named(consumers.front()) + " and by nothing nearer";
        // Block g - 1's replays group g as its next block, up to that group's
        // last node: a node before it needs a reader in the group.
        const bool last = graph.groups[static_cast<std::size_t>(g)].nodes.back() == i;
        if (g >= 2 && g < groups && !last &&
            std::none_of(consumers.begin(), consumers.end(), [&](int c) { return groupOf(c) == g; }))
            return named(i) + ", not the last node of its group, is read by " + named(consumers.front()) +
                   " and by nothing in its group";
    }
    return "";
}

Neighbourhood neighbourhood(const Model &model, const OpGraph &graph, int g) {
    std::vector<int> nodes; // original forward indices; -1: the stand-in input
    if (g >= 2)
        nodes.push_back(-1);
    nodes.push_back(graph.groups[static_cast<std::size_t>(g - 1)].nodes.back());
    const auto &own = graph.groups[static_cast<std::size_t>(g)].nodes;
    nodes.insert(nodes.end(), own.begin(), own.end());
    if (static_cast<std::size_t>(g + 1) < graph.groups.size()) {
        const auto &next = graph.groups[static_cast<std::size_t>(g + 1)].nodes;
        nodes.insert(nodes.end(), next.begin(), next.end());
    }
    std::map<int, int> local;
    for (std::size_t r = 0; r < nodes.size(); ++r)
        local[nodes[r]] = static_cast<int>(r);
    std::vector<ForwardSpec> specs(nodes.size());
    std::ostringstream sig;
    Neighbourhood n;
    n.block = g >= 2 ? 2 : 1;
    n.graph.groupOf.assign(nodes.size(), 0);
    n.graph.ops.assign(nodes.size(), "");
    n.graph.groups.push_back({"", {0}, false});
    for (std::size_t r = 0; r < nodes.size(); ++r) {
        const int i = nodes[r];
        ForwardSpec &s = specs[r];
        if (i < 0) {
            s.bytes = 1;
            s.gradBytes = 1;
            continue;
        }
        const NodeId a = model.forwardNode(i), b = model.backwardNode(i);
        s.bytes = model.bytes(a);
        s.gradBytes = model.bytes(b);
        sig << s.bytes << ',' << s.gradBytes << ';';
        if (r == 0)
            continue;
        const int group = graph.groupOf[static_cast<std::size_t>(i)];
        const bool before = group != g && group != g + 1; // the node before block g, never re-run here
        const int reduced = before ? 1 : n.block + (group == g ? 0 : 1);
        if (static_cast<int>(n.graph.groups.size()) <= reduced)
            n.graph.groups.push_back({graph.groups[static_cast<std::size_t>(group)].module,
                                      {},
                                      !before && graph.groups[static_cast<std::size_t>(group)].selectable});
        n.graph.groups[static_cast<std::size_t>(reduced)].nodes.push_back(static_cast<int>(r));
        n.graph.groupOf[r] = reduced;
        if (before) {
            // The node before: its costs and internals belong to block g - 1;
            // when it keeps its own output, gradients of block g - 1 read it
            // after block g's backward, so the stand-in's gradient does too.
            // So does its own gradient when a node beyond the next block
            // keeps it as an input (an attention mask every layer reads).
            s.inputs = {0};
            s.savesGiven = model.hasStatedSaves();
            const auto consumers = model.consumers(i);
            s.savesOutput = model.savesOutput(i) || std::any_of(consumers.begin(), consumers.end(), [&](int c) {
                                return graph.groupOf[static_cast<std::size_t>(c)] > g + 1 && model.savesInput(c, i);
                            });
            sig << s.savesOutput;
            sig << "before|";
            continue;
        }
        s.savedBytes = model.savedBytes(i);
        s.forwardCost = model.cost(a);
        s.backwardCost = model.cost(b);
        s.forwardWorkspace = model.workspace(a);
        s.backwardWorkspace = model.workspace(b);
        s.savesGiven = model.hasStatedSaves();
        s.savesOutput = model.savesOutput(i);
        for (int p : model.inputs(i)) {
            const auto at = local.find(p);
            const int q = at == local.end() ? 0 : at->second;
            if (std::find(s.inputs.begin(), s.inputs.end(), q) != s.inputs.end())
                continue;
            s.inputs.push_back(q);
            if (model.savesInput(i, p))
                s.savedInputs.push_back(q);
        }
        n.graph.ops[r] = graph.ops[static_cast<std::size_t>(i)];
        sig << s.savedBytes << ',' << s.forwardWorkspace << ',' << s.backwardWorkspace << ',' << s.savesOutput << ','
            << reduced << ',' << n.graph.ops[r] << ':';
        for (int q : s.inputs)
            sig << q << (std::find(s.savedInputs.begin(), s.savedInputs.end(), q) != s.savedInputs.end() ? "s" : "")
                << ' ';
        sig << '|';
    }
    try {
        n.model = Model::fromForward(std::move(specs));
    } catch (const InvalidArgument &e) {
        throw InvalidArgument("block " + graph.groups[static_cast<std::size_t>(g)].module +
                              ": a node feeds a node beyond the next block, which op-level planning does not "
                              "decompose (" +
                              e.what() + ")");
    }
    addHeldBeyond(n, model, graph, g, local);
    sig << "beyond " << n.heldThrough;
    for (const auto &[r, bytes] : n.heldUntil)
        sig << ' ' << r << ':' << bytes;
    n.signature = sig.str();
    return n;
}

Measured measure(const Neighbourhood &n, const Schedule &s) {
    const Model &m = n.model;
    const OpGraph &graph = n.graph;
    const int block = n.block;
    std::vector<std::uint8_t> passed(n.heldUntil.size(), 0);
    std::vector<std::uint8_t> resident(static_cast<std::size_t>(m.nodeCount()), 0);
    std::vector<std::uint8_t> saved(static_cast<std::size_t>(m.forwardCount()), 0);
    resident[0] = 1;
    std::int64_t bytes = m.bytes(0), before = -1, after = 0, most = 0;
    Measured out;
    int region = 0;
    bool backward = false;
    for (const Op &op : s.ops) {
        const NodeId x = op.node;
        const int i = m.indexOf(x);
        std::int64_t mem = 0;
        if (op.kind == OpKind::Compute) {
            backward = backward || m.isBackward(x);
            region = graph.groupOf[static_cast<std::size_t>(i)] == block ? (backward ? 2 : 1) : 0;
            if (region == 1 && before < 0)
                before = bytes;
            if (!resident[x]) {
                resident[x] = 1;
                bytes += m.bytes(x);
            }
            if (op.records && !saved[static_cast<std::size_t>(i)]) {
                saved[static_cast<std::size_t>(i)] = 1;
                bytes += m.savedBytes(i);
            }
            mem = bytes + m.workspace(x);
            if (m.isBackward(x) && i == 0)
                out.inputGradientStep = mem;
        } else if (op.kind == OpKind::Free) {
            resident[x] = 0;
            bytes -= m.bytes(x);
            mem = bytes;
        } else if (op.kind == OpKind::FreeSaved) {
            saved[static_cast<std::size_t>(i)] = 0;
            bytes -= m.savedBytes(i);
            mem = bytes;
        }
        if (region == 1)
            after = bytes;
        if (backward) // what the neighbourhood does not see, held while its backward runs
            for (std::size_t k = 0; k < n.heldUntil.size(); ++k)
                if (!passed[k]) {
                    mem += n.heldUntil[k].second;
                    passed[k] = op.kind == OpKind::Compute && x == m.backwardNode(n.heldUntil[k].first);
                }
        if (region != 0)
            most = std::max(most, mem + (backward ? n.heldThrough : 0));
    }
    out.held = after - before;
    out.local = most - before;
    return out;
}

std::string readFromFurtherBack(const Model &model, const OpGraph &graph) {
    for (int x = 1; x < model.forwardCount(); ++x) {
        const int g = graph.groupOf[static_cast<std::size_t>(x)];
        if (g < 2)
            continue;
        for (int m : model.inputs(x)) {
            const int h = graph.groupOf[static_cast<std::size_t>(m)];
            if (m == 0 || h >= g || m == graph.groups[static_cast<std::size_t>(g - 1)].nodes.back())
                continue;
            return "block " + graph.groups[static_cast<std::size_t>(g)].module + " reads " + model.label(m) +
                   ", made before the block before it, whose life the search of each block does not see whole";
        }
    }
    return "";
}

} // namespace remat::op_search
