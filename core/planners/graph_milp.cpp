#include "core/planners/graph_milp.h"
#include "core/planners/store_all_positions.h"

#include "core/errors.h"
#include "core/schedule_builder.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace remat::planners {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Memory in the problem is in units of a power of two that brings the model's
// total near 1e5: the LP stays well scaled, and the decoded plan is counted
// again in bytes by the simulator.
double memoryScale(const Model &model, BudgetUnit unit) {
    if (unit != BudgetUnit::Bytes)
        return 1;
    double total = 0;
    for (int i = 0; i < model.nodeCount(); ++i)
        total += static_cast<double>(model.bytes(static_cast<NodeId>(i)) + model.workspace(static_cast<NodeId>(i)));
    for (int i = 0; i < model.forwardCount(); ++i)
        total += static_cast<double>(model.savedBytes(i));
    return total > 1e5 ? std::exp2(std::floor(std::log2(total / 1e5))) : 1.0;
}

} // namespace

GraphMilp::GraphMilp(const Model &model, BudgetUnit unit, std::int64_t budget, bool minimizePeak)
    : model_(model), unit_(unit) {
    if (unit == BudgetUnit::Slots)
        throw InvalidArgument("--slots applies to chains; give this graph's budget in bytes or nodes");
    if (model.layers() > kMaxGraphMilpLayers)
        throw LimitExceeded("the exact graph planner takes up to " + std::to_string(kMaxGraphMilpLayers) +
                            " layers, got " + std::to_string(model.layers()));
    positions_ = model.nodeCount();
    scale_ = memoryScale(model, unit);
    build(budget, minimizePeak);
}

NodeId GraphMilp::nodeAt(int p) const {
    return nodeAtPosition(model_, p);
}

int GraphMilp::positionOf(NodeId id) const {
    return planners::positionOf(model_, id);
}

void GraphMilp::build(std::int64_t budget, bool minimizePeak) {
    const int V = positions_;
    const int n = model_.layers();
    const bool bytes = unit_ == BudgetUnit::Bytes;
    auto weight = [&](int p) { return bytes ? static_cast<double>(model_.bytes(nodeAt(p))) / scale_ : 1.0; };
    auto saved = [&](int p) { return bytes ? static_cast<double>(model_.savedBytes(p)) / scale_ : 0.0; };
    auto work = [&](int p) { return bytes ? static_cast<double>(model_.workspace(nodeAt(p))) / scale_ : 0.0; };
    auto records = [&](int p) { return p >= 1 && p <= n && model_.savedBytes(p) > 0; };

    // Who reads each position, and until which stage a gradient is held.
    std::vector<std::vector<int>> users(static_cast<std::size_t>(V));
    for (int v = 1; v < V; ++v)
        for (NodeId u : model_.reads(nodeAt(v)))
            users[static_cast<std::size_t>(positionOf(u))].push_back(v);
    std::vector<int> lastReader(static_cast<std::size_t>(V), 0);
    for (int p = 0; p < V; ++p)
        for (int v : users[static_cast<std::size_t>(p)])
            lastReader[static_cast<std::size_t>(p)] = std::max(lastReader[static_cast<std::size_t>(p)], v);

    const std::size_t cells = static_cast<std::size_t>(V) * static_cast<std::size_t>(V);
    R_.assign(cells, kZero);
    Rec_.assign(cells, kZero);
    S_.assign(cells, kZero);
    H_.assign(cells, kZero);
    for (int p = 1; p < V; ++p)
        firstCost_ += model_.cost(nodeAt(p));

    // Columns. Only computations (R, Rec) are integer: at any integer R and
    // Rec, rounding S and H down and every free up to what its rows allow
    // (then 0 or 1) keeps every row, the memory rows included (a needed S or
    // H is forced to 1 by a read row; a free subtracts a node present, at
    // most once a stage), and the objective reads R alone; so CBC branches on
    // computations only.
    for (int t = 1; t < V; ++t) {
        R_[at(t, t)] = kOne;
        for (int p = 1; p <= std::min(t - 1, n); ++p) {
            R_[at(t, p)] = problem_.addBinary(model_.cost(nodeAt(p)));
            S_[at(t, p)] = problem_.addColumn(0, 1, 0, false);
        }
        for (int p = 1; p <= std::min(t, n); ++p)
            if (records(p)) {
                Rec_[at(t, p)] = problem_.addBinary();
                if (p < t)
                    H_[at(t, p)] = problem_.addColumn(0, 1, 0, false);
            }
    }
    if (minimizePeak)
        peakColumn_ = problem_.addColumn(0, kInf, 1, false);
    const double cap = minimizePeak ? kInf : static_cast<double>(budget) / scale_;

    auto term = [](int column, double c) { return solver::LinearTerm{column, c}; };
    // lower <= sum(c * var) + constants <= upper, with constants moved to the bounds.
    auto row = [&](std::vector<std::pair<int, double>> items, double lower, double upper) {
        std::vector<solver::LinearTerm> terms;
        double constant = 0;
        for (auto [column, c] : items) {
            if (column == kOne)
                constant += c;
            else if (column >= 0)
                terms.push_back(term(column, c));
        }
        if (terms.empty()) {
            if (constant < lower - 1e-9 || constant > upper + 1e-9)
                throw InvalidArgument("the exact graph planner's problem is infeasible by construction");
            return;
        }
        problem_.addRow(std::move(terms), lower - constant, upper - constant);
    };

    for (int t = 1; t < V; ++t) {
        const int lastForward = std::min(t, n);
        // Computable positions in stage order: forward 1..lastForward, then t when it is a gradient.
        std::vector<int> order;
        for (int p = 1; p <= lastForward; ++p)
            order.push_back(p);
        if (t > n)
            order.push_back(t);

        // Reads: every node a computation reads is computed earlier in the
        // stage or resident when it starts. Gradients are resident from their
        // computation to their last reader by construction.
        for (int p : order)
            for (NodeId u : model_.reads(nodeAt(p))) {
                const int q = positionOf(u);
                if (q == 0 || q > n)
                    continue;
                row({{R_[at(t, p)], 1}, {R_[at(t, q)], -1}, {S_[at(t, q)], -1}}, -kInf, 0);
            }
        // A backward reads the internals of the layers it differentiates.
        if (t > n)
            for (int c : model_.savedReads(nodeAt(t)))
                row({{H_[at(t, c)], 1}, {Rec_[at(t, c)], 1}}, 1, kInf);
        for (int p = 1; p <= lastForward; ++p) {
            if (Rec_[at(t, p)] >= 0)
                row({{Rec_[at(t, p)], 1}, {R_[at(t, p)], -1}}, -kInf, 0);
            if (p < t) // a resident node is not computed again (free it and recompute: never worse)
                row({{R_[at(t, p)], 1}, {S_[at(t, p)], 1}}, -kInf, 1);
            if (t + 1 < V) {
                if (S_[at(t + 1, p)] >= 0)
                    row({{S_[at(t + 1, p)], 1}, {S_[at(t, p)], -1}, {R_[at(t, p)], -1}}, -kInf, 0);
                if (H_[at(t + 1, p)] >= 0)
                    row({{H_[at(t + 1, p)], 1}, {H_[at(t, p)], -1}, {Rec_[at(t, p)], -1}}, -kInf, 0);
            }
        }

        // Frees inside the stage: a_i right after the computation of k, its
        // last reader in the stage, when it is not kept into the next stage.
        // Frees after the stage's last computation change no memory counted
        // here (the next stage starts without the node).
        std::vector<std::vector<std::pair<int, int>>> freedAfter(static_cast<std::size_t>(V)); // k -> (i, column)
        for (int i = 1; i <= lastForward; ++i) {
            // A node is present at most once a stage (held, or computed
            // once), and is then freed once, or kept: the frees of i and its
            // keeping sum to at most its presence. Without this row the LP
            // frees a node after each of its readers, fractions of it that
            // together exceed what is there.
            std::vector<std::pair<int, double>> presence{{R_[at(t, i)], -1}};
            if (i < t)
                presence.push_back({S_[at(t, i)], -1});
            if (t + 1 < V && S_[at(t + 1, i)] >= 0)
                presence.push_back({S_[at(t + 1, i)], 1});
            std::vector<int> candidates{i};
            for (int v : users[static_cast<std::size_t>(i)])
                if (v <= lastForward)
                    candidates.push_back(v);
            for (int k : candidates) {
                if (k == order.back() || R_[at(t, k)] == kZero)
                    continue;
                bool blocked = false;
                std::vector<int> later;
                for (int j : users[static_cast<std::size_t>(i)])
                    if (j > k && j <= t) {
                        if (R_[at(t, j)] == kOne)
                            blocked = true;
                        else if (R_[at(t, j)] >= 0)
                            later.push_back(j);
                    }
                if (blocked)
                    continue;
                const int column = problem_.addColumn(0, 1, 0, false);
                frees_.push_back({t, i, k, column});
                freedAfter[static_cast<std::size_t>(k)].push_back({i, column});
                if (R_[at(t, k)] >= 0)
                    row({{column, 1}, {R_[at(t, k)], -1}}, -kInf, 0);
                presence.push_back({column, 1});
                for (int j : later)
                    row({{column, 1}, {R_[at(t, j)], 1}}, -kInf, 1);
            }
            row(presence, -kInf, 0);
        }

        // Memory: U after each computation, from what the stage starts with.
        double constant = weight(0);
        for (int q = n + 1; q < t; ++q)
            if (lastReader[static_cast<std::size_t>(q)] >= t)
                constant += weight(q);
        int previous = -1;
        int previousK = -1;
        for (int k : order) {
            const int u = problem_.addColumn(0, cap, 0, false);
            std::vector<std::pair<int, double>> items{{u, 1}, {R_[at(t, k)], -weight(k)}};
            if (Rec_[at(t, k)] >= 0)
                items.push_back({Rec_[at(t, k)], -saved(k)});
            double rhs = 0;
            if (previous < 0) {
                for (int p = 1; p <= std::min(t - 1, n); ++p) {
                    items.push_back({S_[at(t, p)], -weight(p)});
                    if (H_[at(t, p)] >= 0)
                        items.push_back({H_[at(t, p)], -saved(p)});
                }
                rhs = constant;
            } else {
                items.push_back({previous, -1});
                for (auto [i, column] : freedAfter[static_cast<std::size_t>(previousK)])
                    items.push_back({column, weight(i)});
            }
            row(items, rhs, rhs);
            const double ws = work(k);
            if (minimizePeak)
                row({{u, 1}, {R_[at(t, k)], ws}, {peakColumn_, -1}}, -kInf, 0);
            else if (ws > 0)
                row({{u, 1}, {R_[at(t, k)], ws}}, -kInf, cap);
            previous = u;
            previousK = k;
        }
    }
}

std::vector<Op> GraphMilp::computes(const std::vector<double> &x) const {
    std::vector<Op> ops;
    const int n = model_.layers();
    for (int t = 1; t < positions_; ++t)
        for (int p = 1; p <= t; ++p) {
            if (p > n && p != t)
                continue;
            if (!isOne(R_[at(t, p)], x))
                continue;
            const NodeId id = nodeAt(p);
            ops.push_back(isOne(Rec_[at(t, p)], x) ? Op::record(id) : Op::compute(id));
        }
    return ops;
}

double GraphMilp::peakOf(const std::vector<double> &x) const {
    return peakColumn_ < 0 ? 0 : x[static_cast<std::size_t>(peakColumn_)] * scale_;
}

std::optional<std::vector<double>> GraphMilp::encode(const Schedule &schedule) const {
    std::vector<Op> computeList;
    for (const Op &op : schedule.ops) {
        if (op.isTransfer())
            return std::nullopt;
        if (op.kind == OpKind::Compute)
            computeList.push_back(op);
    }
    const std::vector<Op> ops = insertFrees(model_, computeList);
    std::vector<double> x(static_cast<std::size_t>(problem_.columns()), 0.0);
    auto set = [&](int column) {
        if (column >= 0)
            x[static_cast<std::size_t>(column)] = 1;
        return column != kZero;
    };
    const int n = model_.layers();
    std::vector<char> resident(static_cast<std::size_t>(positions_), 0), held(static_cast<std::size_t>(positions_), 0);
    resident[0] = 1;
    int t = 1;
    int lastInStage = 0;
    auto startStage = [&] {
        for (int p = 1; p <= std::min(t - 1, n); ++p) {
            if (resident[static_cast<std::size_t>(p)])
                set(S_[at(t, p)]);
            if (held[static_cast<std::size_t>(p)])
                set(H_[at(t, p)]);
        }
        lastInStage = 0;
    };
    // A stage starts after the frees that follow the previous stage's last op.
    bool pendingStart = true;
    for (const Op &op : ops) {
        const int p = op.kind == OpKind::FreeSaved ? model_.indexOf(op.node) : positionOf(op.node);
        if (op.kind == OpKind::Free) {
            resident[static_cast<std::size_t>(p)] = 0;
            continue;
        }
        if (op.kind == OpKind::FreeSaved) {
            held[static_cast<std::size_t>(p)] = 0;
            continue;
        }
        if (pendingStart && t < positions_) {
            startStage();
            pendingStart = false;
        }
        if (t >= positions_ || p > t || p <= lastInStage)
            return std::nullopt; // first computed out of order, or out of position order in its stage
        if (R_[at(t, p)] == kZero)
            return std::nullopt;
        if (p < t && resident[static_cast<std::size_t>(p)])
            x[static_cast<std::size_t>(S_[at(t, p)])] = 0; // re-run while resident: free first, as the MILP does
        set(R_[at(t, p)]);
        if (op.records) {
            if (!set(Rec_[at(t, p)]))
                return std::nullopt;
            held[static_cast<std::size_t>(p)] = 1;
        }
        resident[static_cast<std::size_t>(p)] = 1;
        lastInStage = p;
        if (p == t) {
            ++t;
            pendingStart = true;
        }
    }
    if (t != positions_)
        return std::nullopt;
    // Frees as the rule of the class places them: after the last reader in the stage.
    for (const Free &f : frees_) {
        if (!isOne(R_[at(f.t, f.k)], x))
            continue;
        if (f.t + 1 < positions_ && isOne(S_[at(f.t + 1, f.p)], x))
            continue;
        bool later = false;
        for (int j = f.k + 1; j <= std::min(f.t, n) && !later; ++j)
            if (isOne(R_[at(f.t, j)], x))
                for (NodeId u : model_.reads(nodeAt(j)))
                    if (positionOf(u) == f.p)
                        later = true;
        if (!later)
            x[static_cast<std::size_t>(f.column)] = 1;
    }
    return x;
}

} // namespace remat::planners
