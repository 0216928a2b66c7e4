#include "core/planners/chain_recording.h"

#include "core/errors.h"

#include <algorithm>
#include <limits>

namespace remat::planners {

namespace {

using Steps = RecordingSteps;

constexpr int kLeaf = 0, kRecord = -1; // choices besides a split j > s

class RecordingTable {
public:
    RecordingTable(const Model &chain, const Weights &w, int capacity)
        : chain_(chain), steps_{w}, capacity_(capacity), width_(static_cast<std::size_t>(capacity) + 1) {}

    void fill(const PlanCallbacks &callbacks) {
        const int n = steps_.w.n;
        cost_.assign((pairIndex(n, n) + 1) * width_, kInfinity);
        forEachSegmentByLength(n, callbacks,
                               [this](int s, int t) { solve(s, t, &cost_[pairIndex(s, t) * width_], nullptr); });
    }

    float at(int s, int t, int m) const { return cost_[pairIndex(s, t) * width_ + m]; }

    int choice(int s, int t, int m) const {
        std::vector<float> row(width_);
        std::vector<int> chosen(width_, kLeaf);
        solve(s, t, row.data(), chosen.data());
        return chosen[m];
    }

    static constexpr float kInfinity = std::numeric_limits<float>::infinity();

private:
    float forwardCost(int i) const { return static_cast<float>(chain_.cost(chain_.forwardNode(i))); }
    float backwardCost(int i) const { return static_cast<float>(chain_.cost(chain_.backwardNode(i))); }

    void solve(int s, int t, float *row, int *chosen) const {
        const Weights &w = steps_.w;
        std::fill(row, row + width_, kInfinity);
        auto offer = [&](std::int64_t m, float c, int what) {
            if (c < row[m]) {
                row[m] = c;
                if (chosen)
                    chosen[m] = what;
            }
        };
        if (s == t) {
            // b_s alone; first re-run F_{s+1} recording when b_s consumes internals.
            const bool rerun = steps_.consumed(s) > 0;
            const std::int64_t need = rerun ? std::max(steps_.record(s, s), steps_.leaf(s)) : steps_.leaf(s);
            const float c = backwardCost(s) + (rerun ? forwardCost(s + 1) : 0.0f);
            for (std::int64_t m = need; m <= capacity_; ++m)
                offer(m, c, kLeaf);
            return;
        }
        // Split at j: advance discarding, keep a_j.
        const std::int64_t hold = w.hold(s);
        double forward = 0;
        std::int64_t advance = 0;
        for (int j = s + 1; j <= t; ++j) {
            forward += chain_.cost(chain_.forwardNode(j));
            advance = std::max(advance, w.advanceStep(s, j, t));
            const float base = static_cast<float>(forward);
            const float *inner = &cost_[pairIndex(j, t) * width_];
            const float *outer = &cost_[pairIndex(s, j - 1) * width_];
            for (std::int64_t m = std::max(advance, hold); m <= capacity_; ++m)
                offer(m, base + inner[m - hold] + outer[m], j);
        }
        // Record F_{s+1}: keep a_{s+1} and s_{s+1} until b_s.
        if (steps_.saved(s + 1) > 0) {
            const std::int64_t keep = steps_.recordHold(s);
            const std::int64_t need = std::max({steps_.record(s, t), steps_.leaf(s), keep});
            const float base = forwardCost(s + 1) + backwardCost(s);
            const float *inner = &cost_[pairIndex(s + 1, t) * width_];
            for (std::int64_t m = need; m <= capacity_; ++m)
                offer(m, base + inner[m - keep], kRecord);
        }
    }

    const Model &chain_;
    Steps steps_;
    std::int64_t capacity_;
    std::size_t width_;
    std::vector<float> cost_;
};

void emit(const RecordingTable &table, const Model &chain, const Steps &steps, int s, int t, std::int64_t m,
          std::vector<Op> &ops, std::vector<int> *checkpoints) {
    const int n = steps.w.n;
    const int c = table.choice(s, t, static_cast<int>(m));
    if (s == t) {
        if (steps.consumed(s) > 0)
            ops.push_back(Op::record(chain.forwardNode(s + 1)));
        ops.push_back(Op::compute(chain.backwardNode(s)));
        return;
    }
    if (c == kRecord) {
        ops.push_back(Op::record(chain.forwardNode(s + 1)));
        if (checkpoints && t == n && s + 1 < n)
            checkpoints->push_back(s + 1);
        emit(table, chain, steps, s + 1, t, m - steps.recordHold(s), ops, t == n ? checkpoints : nullptr);
        ops.push_back(Op::compute(chain.backwardNode(s)));
        return;
    }
    for (int k = s + 1; k <= c; ++k)
        ops.push_back(Op::compute(chain.forwardNode(k)));
    if (checkpoints && t == n && c < t)
        checkpoints->push_back(c);
    emit(table, chain, steps, c, t, m - steps.w.hold(s), ops, checkpoints);
    emit(table, chain, steps, s, c - 1, m, ops, nullptr);
}

} // namespace

std::int64_t recordingMinimumPeak(const Weights &w) {
    const Steps steps{w};
    const int n = w.n;
    std::vector<std::int64_t> peak(pairIndex(n, n) + 1, 0);
    for (int len = 0; len <= n; ++len)
        for (int s = 0; s + len <= n; ++s) {
            const int t = s + len;
            if (len == 0) {
                peak[pairIndex(s, s)] =
                    steps.consumed(s) > 0 ? std::max(steps.record(s, s), steps.leaf(s)) : steps.leaf(s);
                continue;
            }
            std::int64_t best = std::numeric_limits<std::int64_t>::max(), advance = 0;
            for (int j = s + 1; j <= t; ++j) {
                advance = std::max(advance, w.advanceStep(s, j, t));
                best =
                    std::min(best, std::max({advance, w.hold(s) + peak[pairIndex(j, t)], peak[pairIndex(s, j - 1)]}));
            }
            if (steps.saved(s + 1) > 0)
                best = std::min(best, std::max({steps.record(s, t), steps.leaf(s),
                                                steps.recordHold(s) + peak[pairIndex(s + 1, t)]}));
            peak[pairIndex(s, t)] = best;
        }
    return peak[pairIndex(0, n)];
}

std::optional<std::vector<Op>> recordingChainPlan(const Model &chain, const Weights &w, int capacity,
                                                  const PlanCallbacks &callbacks, std::vector<int> *checkpoints) {
    RecordingTable table(chain, w, capacity);
    table.fill(callbacks);
    if (table.at(0, w.n, capacity) == RecordingTable::kInfinity)
        return std::nullopt;
    std::vector<Op> ops;
    emit(table, chain, Steps{w}, 0, w.n, capacity, ops, checkpoints);
    return ops;
}

} // namespace remat::planners
