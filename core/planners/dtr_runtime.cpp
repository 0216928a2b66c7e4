#include "core/planners/dtr_runtime.h"

#include "core/errors.h"
#include "core/schedule_builder.h"
#include "core/simulator.h"
#include "core/units.h"

#include <algorithm>
#include <limits>

namespace remat::planners {

namespace {

// What counts against the budget: bytes as Summary::peakBytes (nodes, saved
// internals, the op's workspace), or resident nodes as Summary::peakNodes.
struct Weights {
    const Model &model;
    bool nodes;
    std::int64_t node(NodeId x) const { return nodes ? 1 : model.bytes(x); }
    std::int64_t saved(int layer) const { return nodes ? 0 : model.savedBytes(layer); }
    std::int64_t workspace(NodeId x) const { return nodes ? 0 : model.workspace(x); }
    std::int64_t inputs(int layer) const {
        std::int64_t sum = 0;
        for (int p : model.inputs(layer))
            sum += node(model.forwardNode(p));
        return sum;
    }
};

// The step as the program asks for it: store-all's order, and the first run
// of a layer that saves internals records them (eager PyTorch).
std::vector<Op> programOf(const Model &model) {
    std::vector<Op> ops;
    for (NodeId x : storeAllOrder(model))
        ops.push_back(!model.isBackward(x) && model.savedBytes(model.indexOf(x)) > 0 ? Op::record(x) : Op::compute(x));
    return ops;
}

// Which ops of the program (their indices, in order) read each node and
// each layer's internals.
struct ReadsAt {
    std::vector<std::vector<std::int64_t>> node;  // by NodeId
    std::vector<std::vector<std::int64_t>> saved; // by forward index
};
ReadsAt readsAt(const Model &model, const std::vector<Op> &program) {
    ReadsAt at{std::vector<std::vector<std::int64_t>>(static_cast<std::size_t>(model.nodeCount())),
               std::vector<std::vector<std::int64_t>>(static_cast<std::size_t>(model.forwardCount()))};
    for (std::size_t k = 0; k < program.size(); ++k) {
        for (NodeId r : model.reads(program[k].node))
            at.node[r].push_back(static_cast<std::int64_t>(k));
        for (int c : model.savedReads(program[k].node))
            at.saved[static_cast<std::size_t>(c)].push_back(static_cast<std::int64_t>(k));
    }
    return at;
}

// How many ops of the program read each node and each layer's internals.
struct Uses {
    std::vector<std::int64_t> node;  // by NodeId
    std::vector<std::int64_t> saved; // by forward index
};
Uses usesOf(const ReadsAt &at) {
    Uses u;
    for (const auto &reads : at.node)
        u.node.push_back(static_cast<std::int64_t>(reads.size()));
    for (const auto &reads : at.saved)
        u.saved.push_back(static_cast<std::int64_t>(reads.size()));
    return u;
}

std::string budgetText(std::int64_t amount, bool nodes) {
    return nodes ? std::to_string(amount) + (amount == 1 ? " node" : " nodes") : formatBytes(amount);
}

// The runtime of the header, one op at a time.
class Runtime {
public:
    Runtime(const Model &model, DtrBudget budget, DtrHeuristic heuristic, double maxOps)
        : m_(model), w_{model, budget.nodes}, budget_(budget), heuristic_(heuristic), maxOps_(maxOps) {
        const auto nodes = static_cast<std::size_t>(model.nodeCount());
        const auto layers = static_cast<std::size_t>(model.forwardCount());
        resident_.assign(nodes, 0);
        locks_.assign(nodes, 0);
        lastUse_.assign(nodes, 0);
        saved_.assign(layers, 0);
        savedLocks_.assign(layers, 0);
        savedLastUse_.assign(layers, 0);
        element_.assign(layers, -1);
        position_.assign(layers, -1);
        resident_[m_.inputNode()] = 1;
        heldNodes_ = 1;
        heldBytes_ = m_.bytes(m_.inputNode());
        used_ = w_.node(m_.inputNode());
    }

    DtrRun run() {
        const std::vector<Op> program = programOf(m_);
        readsAt_ = readsAt(m_, program);
        uses_ = usesOf(readsAt_);
        for (const Op &op : program) {
            runProgramOp(op);
            ++programAt_;
        }
        return std::move(out_);
    }

    // Program ops from the one running to the next that reads (at least 1).
    std::int64_t untilRead(const std::vector<std::int64_t> &at) const {
        const auto next = std::lower_bound(at.begin(), at.end(), programAt_);
        if (next == at.end())
            return std::numeric_limits<std::int32_t>::max();
        return std::max<std::int64_t>(1, *next - programAt_);
    }

private:
    void runProgramOp(Op op) {
        const NodeId x = op.node;
        const auto reads = m_.reads(x);
        const std::vector<int> savedReads = m_.savedReads(x);
        for (NodeId r : reads) {
            ensureResident(r, x, 1);
            ++locks_[r];
        }
        for (int c : savedReads) {
            if (!saved_[c])
                ensureSaved(c, x);
            ++savedLocks_[c];
        }
        compute(op);
        for (NodeId r : reads) {
            --locks_[r];
            --uses_.node[r];
        }
        for (int c : savedReads) {
            --savedLocks_[c];
            --uses_.saved[c];
        }
        freeDead(reads);
        for (int c : savedReads)
            if (uses_.saved[c] == 0 && saved_[c])
                releaseSaved(c);
    }

    // Makes forward node `target` resident, recomputing it from its inputs
    // (and those from theirs) when evicted. An explicit stack: chains are
    // deep. Leaves `target` unlocked; the caller locks it.
    void ensureResident(NodeId target, NodeId neededBy, int depth) {
        if (resident_[target])
            return;
        if (m_.isBackward(target))
            throw InvalidSchedule(-1, "dtr: " + m_.name(target) + " was freed before its last reader");
        struct Frame {
            NodeId node;
            NodeId neededBy;
            int depth;
            std::size_t next;
        };
        std::vector<Frame> stack{{target, neededBy, depth, 0}};
        while (!stack.empty()) {
            Frame &f = stack.back();
            const auto inputs = m_.inputs(m_.indexOf(f.node));
            if (f.next < inputs.size()) {
                const NodeId in = m_.forwardNode(inputs[f.next++]);
                if (resident_[in])
                    ++locks_[in];
                else
                    stack.push_back({in, f.node, f.depth + 1, 0});
                continue;
            }
            const Frame done = f;
            stack.pop_back();
            compute(Op::compute(done.node));
            out_.events.push_back(rematEvent(done.node, false, done.neededBy, done.depth));
            ++out_.rematerializations;
            std::vector<NodeId> read;
            for (int p : inputs) {
                read.push_back(m_.forwardNode(p));
                --locks_[m_.forwardNode(p)];
            }
            freeDead(read);
            if (!stack.empty())
                ++locks_[done.node];
        }
    }

    // Re-runs layer c recording, for the backward `neededBy` that reads s_c.
    void ensureSaved(int c, NodeId neededBy) {
        const NodeId a = m_.forwardNode(c);
        std::vector<NodeId> read;
        for (int p : m_.inputs(c)) {
            const NodeId in = m_.forwardNode(p);
            ensureResident(in, a, 2);
            ++locks_[in];
            read.push_back(in);
        }
        compute(Op::record(a));
        out_.events.push_back(rematEvent(a, true, neededBy, 1));
        ++out_.rematerializations;
        for (NodeId in : read)
            --locks_[in];
        freeDead(read);
        freeDead({&a, 1});
    }

    RuntimeEvent rematEvent(NodeId node, bool saved, NodeId neededBy, int depth) const {
        RuntimeEvent e;
        e.kind = RuntimeEvent::Kind::Rematerialize;
        e.saved = saved;
        e.op = static_cast<std::int64_t>(out_.ops.size()) - 1;
        e.node = node;
        e.neededBy = neededBy;
        e.depth = depth;
        return e;
    }

    void compute(Op op) {
        const NodeId x = op.node;
        const int layer = m_.indexOf(x);
        const std::int64_t grows = (resident_[x] ? 0 : w_.node(x)) + (op.records ? w_.saved(layer) : 0);
        makeRoom(grows + w_.workspace(x), op);
        emit(op);
        if (!resident_[x]) {
            if (!m_.isBackward(x))
                recomputed(layer);
            setResident(x, true);
        }
        if (op.records) {
            saved_[layer] = 1;
            savedLastUse_[layer] = clock_;
            used_ += w_.saved(layer);
            heldBytes_ += m_.savedBytes(layer);
        }
        lastUse_[x] = clock_;
        for (NodeId r : m_.reads(x))
            lastUse_[r] = clock_;
        for (int c : m_.savedReads(x))
            savedLastUse_[c] = clock_;
        ++clock_;
    }

    void emit(Op op) {
        if (static_cast<double>(out_.ops.size()) >= maxOps_)
            throw LimitExceeded("dtr needs more than " + std::to_string(static_cast<std::int64_t>(maxOps_)) +
                                " ops at this budget; give it more memory or use a smaller model");
        out_.ops.push_back(op);
    }

    void setResident(NodeId x, bool on) {
        resident_[x] = on ? 1 : 0;
        const std::int64_t sign = on ? 1 : -1;
        used_ += sign * w_.node(x);
        heldNodes_ += sign;
        heldBytes_ += sign * m_.bytes(x);
        if (m_.isBackward(x) || x == m_.inputNode())
            return;
        const auto i = static_cast<std::size_t>(x);
        if (on) {
            position_[i] = static_cast<int>(residentForward_.size());
            residentForward_.push_back(x);
        } else {
            const NodeId last = residentForward_.back();
            residentForward_[static_cast<std::size_t>(position_[i])] = last;
            position_[last] = position_[i];
            residentForward_.pop_back();
            position_[i] = -1;
        }
    }

    // Frees what no later op of the step reads (not a_0, not b_0, not what
    // an op under way still holds locked).
    void freeDead(std::span<const NodeId> nodes) {
        for (NodeId r : nodes)
            if (resident_[r] && uses_.node[r] == 0 && locks_[r] == 0 && r != m_.inputNode() &&
                r != m_.inputGradient()) {
                emit(Op::free(r));
                setResident(r, false);
                if (!m_.isBackward(r))
                    evicted(m_.indexOf(r));
            }
    }

    void releaseSaved(int c) {
        emit(Op::freeSaved(m_.forwardNode(c)));
        saved_[c] = 0;
        used_ -= w_.saved(c);
        heldBytes_ -= m_.savedBytes(c);
    }

    // --- the heuristic's equivalence classes (union-find over evicted nodes)

    int find(int e) {
        while (parent_[static_cast<std::size_t>(e)] != e) {
            parent_[static_cast<std::size_t>(e)] =
                parent_[static_cast<std::size_t>(parent_[static_cast<std::size_t>(e)])];
            e = parent_[static_cast<std::size_t>(e)];
        }
        return e;
    }
    void evicted(int layer) {
        const int e = static_cast<int>(parent_.size());
        parent_.push_back(e);
        classCost_.push_back(m_.cost(m_.forwardNode(layer)));
        auto join = [&](int k) {
            if (element_[static_cast<std::size_t>(k)] < 0)
                return;
            const int a = find(e), b = find(element_[static_cast<std::size_t>(k)]);
            if (a != b) {
                parent_[static_cast<std::size_t>(b)] = a;
                classCost_[static_cast<std::size_t>(a)] += classCost_[static_cast<std::size_t>(b)];
            }
        };
        for (int k : m_.inputs(layer))
            join(k);
        for (int k : m_.consumers(layer))
            join(k);
        element_[static_cast<std::size_t>(layer)] = e;
    }
    // The paper's approximation: a recomputed node leaves its class without
    // splitting it; only its cost is taken out.
    void recomputed(int layer) {
        const int e = element_[static_cast<std::size_t>(layer)];
        if (e < 0)
            return;
        double &cost = classCost_[static_cast<std::size_t>(find(e))];
        cost = std::max(0.0, cost - m_.cost(m_.forwardNode(layer)));
        element_[static_cast<std::size_t>(layer)] = -1;
    }
    // The cost of bringing `layer` back once evicted: its own, plus every
    // evicted class next to it (h_DTR), or its own only (h = c/m).
    double evictionCost(int layer, bool savedOnly) {
        const double own = m_.cost(m_.forwardNode(layer));
        if (heuristic_ == DtrHeuristic::CostPerByte)
            return own;
        double sum = own;
        roots_.clear();
        auto add = [&](int k) {
            const int e = element_[static_cast<std::size_t>(k)];
            if (e < 0)
                return;
            const int root = find(e);
            if (std::find(roots_.begin(), roots_.end(), root) == roots_.end()) {
                roots_.push_back(root);
                sum += classCost_[static_cast<std::size_t>(root)];
            }
        };
        for (int k : m_.inputs(layer))
            add(k);
        if (!savedOnly)
            for (int k : m_.consumers(layer))
                add(k);
        return sum;
    }

    // --- eviction

    struct Candidate {
        bool saved = false;
        int layer = 0;
        double cost = 0;
        std::int64_t size = 0;
        std::int64_t idle = 0;
        std::int64_t ahead = 1; // program ops until its next read
        double score = std::numeric_limits<double>::infinity();
    };

    void consider(Candidate c, Candidate &best, int &count) {
        if (c.size <= 0)
            return;
        ++count;
        const double staleness = heuristic_ == DtrHeuristic::Dtr       ? static_cast<double>(c.idle)
                                 : heuristic_ == DtrHeuristic::NextUse ? static_cast<double>(c.ahead)
                                                                       : 1.0;
        c.score = c.cost / (static_cast<double>(c.size) * staleness);
        const bool better =
            c.score < best.score ||
            (c.score == best.score && (c.idle > best.idle || (c.idle == best.idle && c.layer < best.layer)));
        if (better)
            best = c;
    }

    void makeRoom(std::int64_t need, Op forOp) {
        while (used_ + need > budget_.amount) {
            Candidate best;
            int count = 0;
            for (NodeId x : residentForward_)
                if (locks_[x] == 0) {
                    const int layer = m_.indexOf(x);
                    consider({false, layer, evictionCost(layer, false), w_.node(x), clock_ - lastUse_[x],
                              untilRead(readsAt_.node[x])},
                             best, count);
                }
            if (!budget_.nodes)
                for (int c = 1; c < m_.forwardCount(); ++c)
                    if (saved_[c] && savedLocks_[c] == 0)
                        consider({true, c, evictionCost(c, true), w_.saved(c), clock_ - savedLastUse_[c],
                                  untilRead(readsAt_.saved[static_cast<std::size_t>(c)])},
                                 best, count);
            if (count == 0)
                throw InvalidArgument(
                    "dtr ran out of memory at op " + std::to_string(out_.ops.size()) + " (" + describe(m_, forOp) +
                    "): " + budgetText(used_, budget_.nodes) + " held, all of it in use, and the op needs " +
                    budgetText(need, budget_.nodes) + " more within " + budgetText(budget_.amount, budget_.nodes) +
                    "; dtr is sure to run from " + budgetText(dtrAssuredBudget(m_, budget_.nodes), budget_.nodes));
            RuntimeEvent e;
            e.kind = RuntimeEvent::Kind::Evict;
            e.saved = best.saved;
            e.node = m_.forwardNode(best.layer);
            e.heldNodes = heldNodes_;
            e.heldBytes = heldBytes_;
            e.countsNodes = budget_.nodes;
            e.cost = best.cost;
            e.size = best.size;
            e.idleOps = best.idle;
            e.score = best.score;
            e.weighsIdle = heuristic_ == DtrHeuristic::Dtr;
            e.candidates = count;
            if (best.saved) {
                releaseSaved(best.layer);
            } else {
                emit(Op::free(e.node));
                setResident(e.node, false);
                evicted(best.layer);
            }
            e.op = static_cast<std::int64_t>(out_.ops.size()) - 1;
            out_.events.push_back(e);
            ++out_.evictions;
        }
    }

    const Model &m_;
    Weights w_;
    DtrBudget budget_;
    DtrHeuristic heuristic_;
    double maxOps_;
    DtrRun out_;
    Uses uses_;
    std::vector<std::uint8_t> resident_;
    std::vector<int> locks_;
    std::vector<std::int64_t> lastUse_;
    std::vector<std::uint8_t> saved_;
    std::vector<int> savedLocks_;
    std::vector<std::int64_t> savedLastUse_;
    std::vector<NodeId> residentForward_; // evictable candidates, a_0 excluded
    std::vector<int> position_;           // by forward index: where in residentForward_, -1 when not resident
    std::int64_t clock_ = 0;              // computes so far
    std::int64_t programAt_ = 0;          // the program op running
    ReadsAt readsAt_;                     // the program ops reading each node and each layer's internals
    std::int64_t used_ = 0;               // held, in the budget's unit
    std::int64_t heldNodes_ = 0;
    std::int64_t heldBytes_ = 0; // resident nodes and saved internals
    std::vector<int> element_;   // by forward index: its union-find element while evicted, else -1
    std::vector<int> parent_;
    std::vector<double> classCost_;
    std::vector<int> roots_; // scratch
};

} // namespace

DtrHeuristic dtrHeuristicNamed(std::string_view name) {
    if (name == "dtr")
        return DtrHeuristic::Dtr;
    if (name == "cost-per-byte")
        return DtrHeuristic::CostPerByte;
    throw InvalidArgument("unknown heuristic '" + std::string(name) +
                          "'; known: dtr (h = c/(m*s) with evicted neighbourhoods), cost-per-byte (h = c/m)");
}

std::string_view dtrHeuristicName(DtrHeuristic heuristic) {
    switch (heuristic) {
    case DtrHeuristic::Dtr:
        return "dtr";
    case DtrHeuristic::CostPerByte:
        return "cost-per-byte";
    case DtrHeuristic::NextUse:
        return "next-use";
    }
    return "dtr";
}

std::string_view dtrHeuristicFormula(DtrHeuristic heuristic) {
    switch (heuristic) {
    case DtrHeuristic::Dtr:
        return "h_DTR = c/(m·s)";
    case DtrHeuristic::CostPerByte:
        return "h = c/m";
    case DtrHeuristic::NextUse:
        return "h = c/(m·d)";
    }
    return "h_DTR = c/(m·s)";
}

namespace {

// Over the program's ops: the op's own need beside a_0 and the gradients
// held (`withRecomputations` false), or that and every recomputation it may
// need on the way (true; a bound, not exact).
std::int64_t programNeed(const Model &model, bool nodes, bool withRecomputations) {
    const Weights w{model, nodes};
    const int f = model.forwardCount();
    // The largest recomputation of any forward node up to each index (a
    // node's ancestors all come before it): its inputs, itself, its workspace.
    std::vector<std::int64_t> rematUpTo(static_cast<std::size_t>(f), 0);
    for (int j = 1; j < f; ++j) {
        const NodeId a = model.forwardNode(j);
        const std::int64_t own = w.inputs(j) + w.node(a) + w.workspace(a);
        rematUpTo[static_cast<std::size_t>(j)] = std::max(rematUpTo[static_cast<std::size_t>(j - 1)], own);
    }
    const std::vector<Op> program = programOf(model);
    Uses uses = usesOf(readsAt(model, program));
    const NodeId input = model.inputNode();
    std::int64_t gradients = 0; // gradients held, never evicted
    std::int64_t least = 0;
    for (const Op &op : program) {
        const NodeId x = op.node;
        std::int64_t reads = 0, gradientReads = 0;
        for (NodeId r : model.reads(x))
            if (r != input) {
                reads += w.node(r);
                if (model.isBackward(r))
                    gradientReads += w.node(r);
            }
        std::int64_t savedNeeded = 0;
        for (int c : model.savedReads(x))
            savedNeeded += w.saved(c);
        const std::int64_t held = w.node(input) + gradients - gradientReads;
        const std::int64_t own =
            w.node(x) + w.workspace(x) + (op.records ? w.saved(model.indexOf(x)) : 0) + savedNeeded;
        least = std::max(least, held + reads + own);
        if (withRecomputations) {
            for (NodeId r : model.reads(x))
                if (!model.isBackward(r) && r != input)
                    least = std::max(least, held + reads - w.node(r) + rematUpTo[r]);
            // Re-running layer c recording: its inputs (recomputed if need be), a_c, s_c, its workspace.
            for (int c : model.savedReads(x)) {
                const NodeId a = model.forwardNode(c);
                const std::int64_t record = w.node(a) + w.workspace(a);
                least = std::max(least, held + reads + savedNeeded +
                                            std::max(rematUpTo[static_cast<std::size_t>(c) - 1], w.inputs(c) + record));
            }
        }
        if (model.isBackward(x))
            gradients += w.node(x);
        for (NodeId r : model.reads(x))
            if (--uses.node[r] == 0 && model.isBackward(r) && r != model.inputGradient())
                gradients -= w.node(r);
    }
    return least;
}

} // namespace

std::int64_t dtrMinimumBudget(const Model &model, bool nodes) {
    return programNeed(model, nodes, false);
}

std::int64_t dtrAssuredBudget(const Model &model, bool nodes) {
    // At store-all's peak nothing is ever evicted.
    Schedule storeAll;
    storeAll.ops = insertFrees(model, storeAllOrder(model), 0);
    const Summary s = Simulator::summarize(model, storeAll);
    return std::min(programNeed(model, nodes, true), nodes ? s.peakNodes : s.peakBytes);
}

DtrRun runDtr(const Model &model, DtrBudget budget, DtrHeuristic heuristic, double maxOps) {
    const std::int64_t least = dtrMinimumBudget(model, budget.nodes);
    if (budget.amount < least)
        throw InvalidArgument("dtr needs a budget of at least " + budgetText(least, budget.nodes) +
                              " for this model (the largest op with a_0 and the gradients it must hold), got " +
                              budgetText(budget.amount, budget.nodes));
    return Runtime(model, budget, heuristic, maxOps).run();
}

} // namespace remat::planners
