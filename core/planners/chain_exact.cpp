#include "core/planners/chain_exact.h"

#include "core/errors.h"

#include <algorithm>
#include <limits>

namespace remat::planners {

namespace {

// Rows of Ret, one per (s, t, u), u = s..t, laid out segment by segment.
class RetIndex {
public:
    explicit RetIndex(int n) : offset_(pairIndex(n, n) + 2, 0) {
        for (int t = 0; t <= n; ++t)
            for (int s = 0; s <= t; ++s)
                offset_[pairIndex(s, t) + 1] = offset_[pairIndex(s, t)] + static_cast<std::size_t>(t - s + 1);
    }
    std::size_t row(int s, int t, int u) const { return offset_[pairIndex(s, t)] + static_cast<std::size_t>(u - s); }
    std::size_t rows() const { return offset_.back(); }

private:
    std::vector<std::size_t> offset_;
};

double sumOfCubes(int n) {
    double total = 0;
    for (int len = 1; len <= n; ++len)
        total += double(n - len + 1) * len * len;
    return total;
}

// How Ret(s, t, u) at memory m was reached, for rebuilding the plan.
struct Step {
    int kind = 0; // 0 leaf, 1 held (advance to j, child returns at v), 2 releasing advance to j
    int j = 0;
    int v = 0;
};

class ExactTable {
public:
    ExactTable(const Model &chain, const Weights &w, int capacity)
        : chain_(chain), w_(w), index_(w.n), width_(static_cast<std::size_t>(capacity) + 1), capacity_(capacity) {}

    void fill(const PlanCallbacks &callbacks) {
        const int n = w_.n;
        cost_.assign(index_.rows() * width_, kInfinity);
        const double total = sumOfCubes(n) + n + 1;
        double done = 0;
        for (int len = 0; len <= n; ++len) {
            for (int s = 0; s + len <= n; ++s) {
                if (callbacks.cancelled && callbacks.cancelled())
                    throw Cancelled();
                const std::vector<float> rows = solve(s, s + len, nullptr, 0, 0);
                std::copy(rows.begin(), rows.end(),
                          cost_.begin() + static_cast<std::ptrdiff_t>(index_.row(s, s + len, s) * width_));
            }
            done += double(n - len + 1) * std::max(1, len * len);
            if (callbacks.progress)
                callbacks.progress(std::min(1.0, done / total));
        }
        if (callbacks.progress)
            callbacks.progress(1.0);
    }

    float at(int s, int t, int u, int m) const { return cost_[index_.row(s, t, u) * width_ + m]; }

    // Which step reached Ret(s, t, u) at m: the same arithmetic as fill().
    Step step(int s, int t, int u, int m) const {
        Step out;
        solve(s, t, &out, u, m);
        return out;
    }

    static constexpr float kInfinity = std::numeric_limits<float>::infinity();

private:
    const float *row(int s, int t, int u) const { return &cost_[index_.row(s, t, u) * width_]; }

    // The rows of (s, t), u = s..t, from the shorter segments' rows; with
    // `trace`, also records which candidate wins at (u, m).
    std::vector<float> solve(int s, int t, Step *trace, int traceU, int traceM) const {
        const int len = t - s;
        const std::int64_t M = capacity_;
        std::vector<float> out(static_cast<std::size_t>(len + 1) * width_, kInfinity);
        auto outRow = [&](int u) { return &out[static_cast<std::size_t>(u - s) * width_]; };
        auto offer = [&](int u, std::int64_t m, float c, Step st) {
            float &cell = outRow(u)[m];
            if (c < cell) {
                cell = c;
                if (trace && u == traceU && m == traceM)
                    *trace = st;
            }
        };
        if (len == 0) {
            const float c = static_cast<float>(chain_.cost(chain_.backwardNode(s)));
            for (std::int64_t m = w_.leaf(s); m <= M; ++m)
                offer(s, m, c, Step{0, s, s});
        } else {
            const std::int64_t hold = w_.hold(s);
            // X(v): advance to some j keeping a_s, the child returns at v.
            std::vector<float> x(static_cast<std::size_t>(len) * width_, kInfinity);
            std::vector<int> xj(trace ? x.size() : 0, 0);
            double forward = 0;
            std::int64_t advance = 0;
            for (int j = s + 1; j <= t; ++j) {
                forward += chain_.cost(chain_.forwardNode(j));
                advance = std::max(advance, w_.advanceStep(s, j, t));
                const float base = static_cast<float>(forward);
                for (int v = j; v <= t; ++v) {
                    const float *child = row(j, t, v);
                    float *xv = &x[static_cast<std::size_t>(v - s - 1) * width_];
                    for (std::int64_t m = std::max(advance, hold); m <= M; ++m) {
                        const float c = base + child[m - hold];
                        if (c < xv[m]) {
                            xv[m] = c;
                            if (trace)
                                xj[static_cast<std::size_t>(v - s - 1) * width_ + m] = j;
                        }
                    }
                }
            }
            // Held: X(v), then continue from a_s below v.
            for (int v = s + 1; v <= t; ++v) {
                const float *xv = &x[static_cast<std::size_t>(v - s - 1) * width_];
                for (int u = s; u <= v - 1; ++u) {
                    const float *rest = row(s, v - 1, u);
                    for (std::int64_t m = 0; m <= M; ++m) {
                        const float c = xv[m] + rest[m];
                        if (c < outRow(u)[m])
                            offer(u, m, c,
                                  Step{1, trace ? xj[static_cast<std::size_t>(v - s - 1) * width_ + m] : 0, v});
                    }
                }
            }
            // Releasing: the last advance from a_s frees it (never a_0, which stays).
            if (s > 0) {
                forward = 0;
                std::int64_t releasing = 0;
                for (int j = s + 1; j <= t; ++j) {
                    forward += chain_.cost(chain_.forwardNode(j));
                    releasing = std::max(releasing, w_.releasingStep(s, j, t));
                    const float base = static_cast<float>(forward);
                    for (int u = j; u <= t; ++u) {
                        const float *child = row(j, t, u);
                        for (std::int64_t m = releasing; m <= M; ++m) {
                            const float c = base + child[m];
                            if (c < outRow(u)[m])
                                offer(u, m, c, Step{2, j, u});
                        }
                    }
                }
            }
        }
        return out;
    }

    const Model &chain_;
    const Weights &w_;
    RetIndex index_;
    std::size_t width_;
    std::int64_t capacity_;
    std::vector<float> cost_;
};

void emit(const ExactTable &table, const Model &chain, const Weights &w, int s, int t, int u, int m,
          std::vector<NodeId> &order, std::vector<int> *firstSweep) {
    const Step st = table.step(s, t, u, m);
    if (st.kind == 0) {
        order.push_back(chain.backwardNode(s));
        return;
    }
    for (int k = s + 1; k <= st.j; ++k)
        order.push_back(chain.forwardNode(k));
    if (firstSweep && t == w.n && st.j < t)
        firstSweep->push_back(st.j);
    if (st.kind == 2) {
        emit(table, chain, w, st.j, t, u, m, order, firstSweep);
        return;
    }
    const int hold = static_cast<int>(w.hold(s));
    emit(table, chain, w, st.j, t, st.v, m - hold, order, firstSweep);
    emit(table, chain, w, s, st.v - 1, u, m, order, nullptr);
}

} // namespace

double exactWork(int n, int capacity) {
    return 3 * sumOfCubes(n) * (capacity + 1.0);
}

double exactTableBytes(int n, int capacity) {
    return double(RetIndex(n).rows()) * (capacity + 1.0) * sizeof(float);
}

std::int64_t exactMinimumPeak(const Weights &w) {
    const int n = w.n;
    const RetIndex index(n);
    constexpr std::int64_t kNone = std::numeric_limits<std::int64_t>::max() / 4;
    std::vector<std::int64_t> peak(index.rows(), kNone);
    for (int len = 0; len <= n; ++len)
        for (int s = 0; s + len <= n; ++s) {
            const int t = s + len;
            if (len == 0) {
                peak[index.row(s, s, s)] = w.leaf(s);
                continue;
            }
            std::vector<std::int64_t> x(static_cast<std::size_t>(len), kNone);
            std::int64_t advance = 0;
            for (int j = s + 1; j <= t; ++j) {
                advance = std::max(advance, w.advanceStep(s, j, t));
                for (int v = j; v <= t; ++v)
                    x[v - s - 1] = std::min(x[v - s - 1], std::max(advance, w.hold(s) + peak[index.row(j, t, v)]));
            }
            for (int v = s + 1; v <= t; ++v)
                for (int u = s; u <= v - 1; ++u) {
                    std::int64_t &cell = peak[index.row(s, t, u)];
                    cell = std::min(cell, std::max(x[v - s - 1], peak[index.row(s, v - 1, u)]));
                }
            if (s > 0) {
                std::int64_t releasing = 0;
                for (int j = s + 1; j <= t; ++j) {
                    releasing = std::max(releasing, w.releasingStep(s, j, t));
                    for (int u = j; u <= t; ++u) {
                        std::int64_t &cell = peak[index.row(s, t, u)];
                        cell = std::min(cell, std::max(releasing, peak[index.row(j, t, u)]));
                    }
                }
            }
        }
    return peak[index.row(0, n, 0)];
}

std::optional<std::vector<NodeId>> exactChainOrder(const Model &chain, const Weights &w, int capacity,
                                                   const PlanCallbacks &callbacks,
                                                   std::vector<int> *firstSweepCheckpoints) {
    ExactTable table(chain, w, capacity);
    table.fill(callbacks);
    if (table.at(0, w.n, 0, capacity) == ExactTable::kInfinity)
        return std::nullopt;
    std::vector<NodeId> order;
    emit(table, chain, w, 0, w.n, 0, capacity, order, firstSweepCheckpoints);
    return order;
}

} // namespace remat::planners
