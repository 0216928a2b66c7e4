#include "core/planners/op_exact.h"

#include "core/errors.h"
#include "core/schedule_builder.h"
#include "core/simulator.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <sstream>

namespace remat {

namespace {

// Block g with the node before it (its input) and the block after it
// (stored), so that replaying it shows everything block g holds and every
// gradient that reaches it. For g >= 2 the node before is an ordinary node
// behind a 1-byte stand-in input, so that it is freed where the real one is
// (after its last read, which block g's own plan decides); inputs from
// further back read the stand-in, which stays resident as they do.
struct Neighbourhood {
    Model model = Model::chain(1);
    OpGraph graph;
    int block = 1;         // block g's group in `graph`
    std::string signature; // equal for neighbourhoods alike but for costs (which change no schedule and no byte)
};

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
            s.inputs = {0};
            s.savesGiven = model.hasStatedSaves();
            s.savesOutput = model.savesOutput(i);
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
    n.signature = sig.str();
    return n;
}

struct Measured {
    std::int64_t held = 0, local = 0, inputGradientStep = 0;
};

// Replays a schedule of a neighbourhood by the simulator's memory rules
// (docs/model.md) and splits it: P, the bytes before block 1's forward; what
// the block holds after its forward; the most above P while its forward or
// its backward (re-runs and gradients) runs. Checked against the simulator by
// the tests: predictedPeakBytes equals its count.
Measured measure(const Model &m, const OpGraph &graph, int block, const Schedule &s) {
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
        if (region != 0)
            most = std::max(most, mem);
    }
    out.held = after - before;
    out.local = most - before;
    return out;
}

bool dominates(const OpPlanner::Option &a, const OpPlanner::Option &b) {
    return a.held <= b.held && a.local <= b.local && a.cost <= b.cost;
}

std::vector<OpPlanner::Option> paretoPrune(std::vector<OpPlanner::Option> all) {
    std::sort(all.begin(), all.end(), [](const auto &a, const auto &b) {
        return std::tie(a.cost, a.held, a.local) < std::tie(b.cost, b.held, b.local);
    });
    std::vector<OpPlanner::Option> kept;
    for (auto &o : all)
        if (std::none_of(kept.begin(), kept.end(), [&](const auto &k) { return dominates(k, o); }))
            kept.push_back(std::move(o));
    return kept;
}

struct State {
    std::int64_t held = 0; // P: what the blocks so far hold
    std::int64_t peak = 0; // the most any op so far reached
    double cost = 0;
    int parent = -1, option = -1;
};

} // namespace

namespace {

// What one keep set of a block does to memory: `mask` over the candidates
// (all ones and `whole`: the block kept whole, not checkpointed).
struct Measurement {
    std::uint64_t mask = 0;
    bool whole = false;
    std::int64_t held = 0, local = 0;
};

struct Measurements {
    std::vector<int> candidates; // nodes of the neighbourhood whose keeping is searched
    std::vector<Measurement> all;
};

Measurements measureAll(const Neighbourhood &n, std::vector<int> candidates, const std::function<bool()> &cancelled) {
    const OpGroup &group = n.graph.groups[static_cast<std::size_t>(n.block)];
    const std::vector<std::uint8_t> read = readByGradients(n.model);
    Measurements out;
    const auto measureKeep = [&](const KeepSet &keep, std::uint64_t mask, bool whole) {
        const Schedule s{"op-level", "", insertFrees(n.model, opComputes(n.model, n.graph, keep)), {}, {}};
        const Measured m = measure(n.model, n.graph, n.block, s);
        out.all.push_back({mask, whole, m.held, m.local});
    };
    measureKeep(KeepSet(static_cast<std::size_t>(n.model.forwardCount()), 1), 0, true);
    const std::uint64_t masks = group.selectable ? std::uint64_t{1} << candidates.size() : 0;
    KeepSet keep(static_cast<std::size_t>(n.model.forwardCount()), 1);
    for (std::uint64_t mask = 0; mask < masks; ++mask) {
        if ((mask & 0xffff) == 0 && cancelled && cancelled())
            throw Cancelled();
        for (std::size_t k = 0; k + 1 < group.nodes.size(); ++k)
            keep[static_cast<std::size_t>(group.nodes[k])] = 0;
        for (std::size_t c = 0; c < candidates.size(); ++c)
            keep[static_cast<std::size_t>(candidates[c])] = (mask >> c) & 1;
        // Closed keep sets only (op_plan.h): a kept node is read by a
        // gradient or by the re-run of a consumer.
        bool closed = true;
        for (std::size_t c = 0; c < candidates.size() && closed; ++c) {
            const int j = candidates[c];
            if (!keep[static_cast<std::size_t>(j)] || read[static_cast<std::size_t>(j)])
                continue;
            closed = false;
            for (int consumer : n.model.consumers(j))
                closed = closed || !keep[static_cast<std::size_t>(consumer)];
        }
        if (closed)
            measureKeep(keep, mask, false);
    }
    out.candidates = std::move(candidates);
    return out;
}

} // namespace

OpPlanner::OpPlanner(const Model &model, const OpGraph &graph, OpPlannerOptions options)
    : model_(model), graph_(graph) {
    const std::size_t groups = graph.groups.size();
    options_.resize(groups);
    options_[0].push_back({model.bytes(model.inputNode()), 0, 0, {1}});
    std::map<std::string, Measurements> done;
    for (std::size_t g = 1; g < groups; ++g) {
        if (options.cancelled && options.cancelled())
            throw Cancelled();
        const Neighbourhood n = neighbourhood(model, graph, static_cast<int>(g));
        const OpGroup &group = n.graph.groups[static_cast<std::size_t>(n.block)];
        if (g == 1) {
            KeepSet whole(static_cast<std::size_t>(n.model.forwardCount()), 1);
            inputGradientStep_ =
                measure(n.model, n.graph, n.block, opSchedule(n.model, n.graph, whole, "")).inputGradientStep;
        }
        // Keep sets tried: the whole block; then the block's output with every
        // subset of the candidates: every other node, or beyond maxEnumerated
        // the costliest ones (the rest always re-run).
        std::vector<int> candidates;
        if (group.selectable && !options.blockLevel)
            candidates.assign(group.nodes.begin(), group.nodes.end() - 1);
        auto known = done.find(n.signature);
        if (known == done.end()) {
            // How many nodes fit the time: one replay timed, a quarter of the
            // limit for this block's 2^m.
            const auto started = std::chrono::steady_clock::now();
            for (int k = 0; k < 8; ++k)
                measure(n.model, n.graph, n.block,
                        opSchedule(n.model, n.graph, KeepSet(static_cast<std::size_t>(n.model.forwardCount()), 1), ""));
            const double perReplay =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count() / 8 + 1e-9;
            const int fits =
                static_cast<int>(std::floor(std::log2(std::max(1.0, options.timeLimitSeconds / 4 / perReplay))));
            const int searched = std::min({options.maxEnumerated, fits, static_cast<int>(candidates.size())});
            if (searched < static_cast<int>(candidates.size())) {
                // The costliest nodes of the first block of this shape; blocks
                // alike share the choice, and their replays.
                std::stable_sort(candidates.begin(), candidates.end(), [&](int a, int b) {
                    return n.model.cost(n.model.forwardNode(a)) > n.model.cost(n.model.forwardNode(b));
                });
                if (exact_)
                    inexactReason_ = "block " + graph.groups[g].module + " has " + std::to_string(candidates.size()) +
                                     " nodes that could be kept; the " + std::to_string(searched) +
                                     " costliest were searched (" +
                                     (searched < options.maxEnumerated ? "the time limit" : "the node limit") +
                                     "), the rest always re-run";
                exact_ = false;
                candidates.resize(static_cast<std::size_t>(std::max(0, searched)));
            }
            known = done.emplace(n.signature, measureAll(n, candidates, options.cancelled)).first;
        }
        // This block's costs on the measured keep sets; the Pareto-minimal ones stay.
        const Measurements &measured = known->second;
        std::map<std::pair<std::int64_t, std::int64_t>, Option> cheapest;
        for (const Measurement &m : measured.all) {
            Option o{m.held, m.local, 0, std::vector<std::uint8_t>(group.nodes.size(), 1)};
            if (!m.whole) {
                for (std::size_t k = 0; k + 1 < group.nodes.size(); ++k)
                    o.keep[k] = 0;
                for (std::size_t c = 0; c < measured.candidates.size(); ++c)
                    if ((m.mask >> c) & 1) {
                        const auto at = std::find(group.nodes.begin(), group.nodes.end(), measured.candidates[c]);
                        o.keep[static_cast<std::size_t>(at - group.nodes.begin())] = 1;
                    }
                for (std::size_t k = 0; k < group.nodes.size(); ++k)
                    if (!o.keep[k])
                        o.cost += n.model.cost(n.model.forwardNode(group.nodes[k]));
            }
            const auto at = cheapest.find({o.held, o.local});
            if (at == cheapest.end() || o.cost < at->second.cost)
                cheapest[{o.held, o.local}] = std::move(o);
        }
        std::vector<Option> all;
        for (auto &entry : cheapest)
            all.push_back(std::move(entry.second));
        options_[g] = paretoPrune(std::move(all));
        if (options.progress)
            options.progress(static_cast<double>(g) / static_cast<double>(groups - 1));
    }
}

namespace {

// Extends every state by every option of the next group, keeping those within
// `budget` and Pareto-minimal in (held, cost) or, minimizing the peak,
// (held, peak).
std::vector<State> extend(const std::vector<State> &states, const std::vector<OpPlanner::Option> &options,
                          std::int64_t budget, bool byPeak) {
    std::vector<State> next;
    for (std::size_t s = 0; s < states.size(); ++s)
        for (std::size_t o = 0; o < options.size(); ++o) {
            const State &from = states[s];
            const OpPlanner::Option &opt = options[o];
            const std::int64_t peak = std::max(from.peak, from.held + opt.local);
            if (peak > budget)
                continue;
            next.push_back(
                {from.held + opt.held, peak, from.cost + opt.cost, static_cast<int>(s), static_cast<int>(o)});
        }
    std::sort(next.begin(), next.end(), [&](const State &a, const State &b) {
        const double ka = byPeak ? static_cast<double>(a.peak) : a.cost,
                     kb = byPeak ? static_cast<double>(b.peak) : b.cost;
        return a.held != b.held ? a.held < b.held : ka < kb;
    });
    std::vector<State> kept;
    double best = std::numeric_limits<double>::infinity();
    for (const State &s : next) {
        const double key = byPeak ? static_cast<double>(s.peak) : s.cost;
        if (key < best) {
            kept.push_back(s);
            best = key;
        }
    }
    return kept;
}

} // namespace

std::int64_t OpPlanner::minimumPeakBytes() const {
    std::vector<State> states{State{}};
    for (const auto &options : options_)
        states = extend(states, options, std::numeric_limits<std::int64_t>::max(), true);
    std::int64_t best = std::numeric_limits<std::int64_t>::max();
    for (const State &s : states)
        best = std::min(best, std::max(s.peak, inputGradientStep_));
    return best;
}

std::int64_t OpPlanner::storeAllPeakBytes() const {
    return Simulator::summarize(model_, opSchedule(model_, graph_, keepEverything(graph_), "")).peakBytes;
}

std::optional<OpPlanResult> OpPlanner::plan(std::int64_t budgetBytes) const {
    if (inputGradientStep_ > budgetBytes)
        return std::nullopt;
    std::vector<std::vector<State>> stages{{State{}}};
    for (const auto &options : options_) {
        stages.push_back(extend(stages.back(), options, budgetBytes, false));
        if (stages.back().empty())
            return std::nullopt;
    }
    const auto &last = stages.back();
    int at = static_cast<int>(
        std::min_element(last.begin(), last.end(), [](const State &a, const State &b) { return a.cost < b.cost; }) -
        last.begin());
    OpPlanResult r;
    r.recomputeCost = last[static_cast<std::size_t>(at)].cost;
    r.predictedPeakBytes = std::max(last[static_cast<std::size_t>(at)].peak, inputGradientStep_);
    r.exact = exact_;
    r.keep.assign(static_cast<std::size_t>(model_.forwardCount()), 1);
    for (std::size_t g = options_.size(); g-- > 0;) {
        const State &s = stages[g + 1][static_cast<std::size_t>(at)];
        const Option &o = options_[g][static_cast<std::size_t>(s.option)];
        const auto &nodes = graph_.groups[g].nodes;
        for (std::size_t k = 0; k < nodes.size(); ++k)
            r.keep[static_cast<std::size_t>(nodes[k])] = o.keep[k];
        at = s.parent;
    }
    return r;
}

std::optional<OpPlanResult> exhaustiveOpPlan(const Model &model, const OpGraph &graph, std::int64_t budgetBytes,
                                             bool blockLevel) {
    std::vector<int> free; // nodes whose keeping is searched
    for (const OpGroup &g : graph.groups)
        if (g.selectable)
            free.insert(free.end(), g.nodes.begin(), g.nodes.end() - 1);
    if (free.size() > 24)
        throw LimitExceeded("exhaustive op-level search: " + std::to_string(free.size()) + " nodes, at most 24");
    std::optional<OpPlanResult> best;
    for (std::uint64_t mask = 0; mask < (std::uint64_t{1} << free.size()); ++mask) {
        KeepSet keep(static_cast<std::size_t>(model.forwardCount()), 1);
        for (std::size_t c = 0; c < free.size(); ++c)
            keep[static_cast<std::size_t>(free[c])] = (mask >> c) & 1;
        if (blockLevel) {
            bool wholeOrOutput = true;
            for (std::size_t g = 0; g < graph.groups.size(); ++g) {
                const auto &nodes = graph.groups[g].nodes;
                const auto kept = std::count_if(nodes.begin(), nodes.end(),
                                                [&](int i) { return keep[static_cast<std::size_t>(i)] != 0; });
                wholeOrOutput = wholeOrOutput && (kept == 1 || kept == static_cast<long>(nodes.size()));
            }
            if (!wholeOrOutput)
                continue;
        }
        if (!keepSetProblem(model, graph, keep).empty())
            continue;
        const Summary s = Simulator::summarize(model, opSchedule(model, graph, keep, ""));
        const double cost = recomputeCost(model, graph, keep);
        if (s.peakBytes <= budgetBytes && (!best || cost < best->recomputeCost))
            best = OpPlanResult{keep, cost, s.peakBytes, true};
    }
    return best;
}

} // namespace remat
