#include "core/planners/chain_budget.h"

#include "core/errors.h"
#include "core/planners/chain_exact.h"
#include "core/planners/chain_recording.h"
#include "core/planners/chain_split.h"
#include "core/planners/chain_weights.h"
#include "core/units.h"

#include <algorithm>
#include <limits>

namespace remat::planners {

namespace {

void requireChainModel(const Model &model) {
    if (!model.isChain())
        throw InvalidArgument("the chain budget planner works on chains; this model has skip connections");
    if (model.layers() > kMaxBudgetLayers)
        throw LimitExceeded("the budget planner takes chains of up to " + std::to_string(kMaxBudgetLayers) +
                            " layers, got n = " + std::to_string(model.layers()));
}

// Minimum peak of any keep-until-gradient plan of each segment: the cost
// recurrence with max in place of + and peaks in place of costs.
struct MinimumPeak {
    std::vector<std::int64_t> peak;
    std::vector<int> split;
};

MinimumPeak minimumPeak(const Weights &w, const PlanCallbacks &callbacks) {
    const int n = w.n;
    MinimumPeak mp;
    mp.peak.assign(pairIndex(n, n) + 1, 0);
    mp.split.assign(mp.peak.size(), 0);
    for (int len = 0; len <= n; ++len) {
        if (callbacks.cancelled && callbacks.cancelled())
            throw Cancelled();
        for (int s = 0; s + len <= n; ++s) {
            const int t = s + len;
            if (len == 0) {
                mp.peak[pairIndex(s, t)] = w.leaf(s);
                continue;
            }
            std::int64_t best = std::numeric_limits<std::int64_t>::max(), advance = 0;
            int bestSplit = t;
            for (int j = s + 1; j <= t; ++j) {
                advance = std::max(advance, w.advanceStep(s, j, t));
                const std::int64_t p =
                    std::max({advance, w.hold(s) + mp.peak[pairIndex(j, t)], mp.peak[pairIndex(s, j - 1)]});
                if (p < best) {
                    best = p;
                    bestSplit = j;
                }
            }
            mp.peak[pairIndex(s, t)] = best;
            mp.split[pairIndex(s, t)] = bestSplit;
        }
    }
    return mp;
}

// The cost table: cost[(s, t)][m] is the least cost of running b_t..b_s with
// m units of memory (a_s and the incoming gradient included).
class CostTable {
public:
    CostTable(const Model &chain, const Weights &w, int capacity)
        : chain_(chain), w_(w), capacity_(capacity), width_(static_cast<std::size_t>(capacity) + 1) {}

    void fill(const PlanCallbacks &callbacks) {
        const int n = w_.n;
        cost_.assign((pairIndex(n, n) + 1) * width_, kInfinity);
        forEachSegmentByLength(n, callbacks,
                               [this](int s, int t) { solve(s, t, &cost_[pairIndex(s, t) * width_], nullptr); });
    }

    float at(int s, int t, int m) const { return cost_[pairIndex(s, t) * width_ + m]; }

    // The best split of (s, t) with m units; the same arithmetic as fill().
    int bestSplit(int s, int t, int m) const {
        std::vector<float> row(width_);
        std::vector<int> choice(width_);
        solve(s, t, row.data(), choice.data());
        return choice[m];
    }

    static constexpr float kInfinity = std::numeric_limits<float>::infinity();

private:
    void solve(int s, int t, float *row, int *choice) const {
        std::fill(row, row + width_, kInfinity);
        if (s == t) {
            const std::int64_t need = w_.leaf(s);
            const float c = static_cast<float>(chain_.cost(chain_.backwardNode(s)));
            for (std::int64_t m = need; m <= capacity_; ++m)
                row[m] = c;
            return;
        }
        const std::int64_t hold = w_.hold(s);
        double forward = 0;
        std::int64_t advance = 0;
        for (int j = s + 1; j <= t; ++j) {
            forward += chain_.cost(chain_.forwardNode(j));
            advance = std::max(advance, w_.advanceStep(s, j, t));
            const float base = static_cast<float>(forward);
            const float *inner = &cost_[pairIndex(j, t) * width_];
            const float *outer = &cost_[pairIndex(s, j - 1) * width_];
            for (std::int64_t m = std::max(advance, hold); m <= capacity_; ++m) {
                const float candidate = base + inner[m - hold] + outer[m];
                if (candidate < row[m]) {
                    row[m] = candidate;
                    if (choice)
                        choice[m] = j;
                }
            }
        }
    }

    const Model &chain_;
    const Weights &w_;
    std::int64_t capacity_;
    std::size_t width_;
    std::vector<float> cost_;
};

std::string amountText(const ChainBudget &budget) {
    switch (budget.unit) {
    case BudgetUnit::Bytes:
        return std::to_string(budget.amount) + " bytes (" + formatBytes(budget.amount) + ")";
    case BudgetUnit::Nodes:
        return std::to_string(budget.amount) + " nodes";
    case BudgetUnit::Slots:
        return std::to_string(budget.amount) + " slots";
    }
    return {};
}

std::string unitText(BudgetUnit unit, std::int64_t amount) {
    switch (unit) {
    case BudgetUnit::Bytes:
        return std::to_string(amount) + " bytes (" + formatBytes(amount) + ")";
    case BudgetUnit::Nodes:
        return std::to_string(amount) + " nodes";
    case BudgetUnit::Slots:
        return std::to_string(amount) + " slots";
    }
    return {};
}

void requireTableFits(int n, int capacity) {
    const double tableBytes = double(pairIndex(n, n) + 1) * (capacity + 1) * sizeof(float);
    if (tableBytes > double(kMaxBudgetTableBytes))
        throw LimitExceeded("the budget planner would need " + formatBytes(static_cast<std::int64_t>(tableBytes)) +
                            " of tables for n = " + std::to_string(n) + " and " + std::to_string(capacity) +
                            " memory steps; the limit is " + formatBytes(kMaxBudgetTableBytes) +
                            ". Use fewer memory steps or a shorter chain.");
}

// Byte budgets on chains whose layers save internals: the recurrence of
// chain_recording.h, which also chooses which runs record.
ChainPlan planWithRecording(const Model &chain, const Weights &exact, const ChainBudget &budget,
                            const PlanCallbacks &callbacks) {
    const std::int64_t minimum = recordingMinimumPeak(exact);
    if (budget.amount < minimum)
        throw InvalidArgument("budget " + amountText(budget) + " is below the minimum feasible " +
                              unitText(budget.unit, minimum) +
                              " for this model (among schedules that keep checkpoints until their gradient)");
    if (budget.memorySteps < 1)
        throw InvalidArgument("memory steps must be >= 1, got " + std::to_string(budget.memorySteps));
    const int n = exact.n;
    const std::int64_t step = std::max<std::int64_t>(1, (budget.amount + budget.memorySteps - 1) / budget.memorySteps);
    const Weights w = step == 1 ? exact : discretize(exact, step);
    std::int64_t enough = 0;
    for (int i = 0; i <= n; ++i)
        enough += w.a[i] + w.b[i] + w.aWork[i] + w.bWork[i] + w.saved[i];
    const int capacity = static_cast<int>(std::min(budget.amount / step, enough));
    requireTableFits(n, capacity);
    ChainPlan plan;
    auto computes = recordingChainPlan(chain, w, capacity, callbacks, &plan.checkpoints);
    if (!computes)
        throw InvalidArgument("budget " + amountText(budget) + " is within the rounding of " +
                              std::to_string(capacity) + " memory steps of the minimum " +
                              unitText(budget.unit, minimum) + "; give more memory or more memory steps");
    plan.computes = std::move(*computes);
    const std::string stepText =
        step > 1 ? " in " + std::to_string(capacity) + " steps of " + formatBytes(step) : std::string();
    plan.description = "budget " + amountText(budget) + stepText +
                       ", optimal among schedules that keep checkpoints until their gradient, each run recording or "
                       "discarding its layer's internals";
    return plan;
}

} // namespace

// Exact minimum peaks (over every schedule) are O(n^4); beyond this length
// the minimum over keep-until-gradient plans is reported and labelled so.
constexpr int kExactPeakLayers = 160;
// The exact cost table is used while it stays this small and quick.
constexpr double kExactMaxWork = 4e8;
constexpr double kExactMaxTableBytes = 256.0 * 1024 * 1024;

std::int64_t minimumFeasibleBudget(const Model &chain, BudgetUnit unit) {
    requireChainModel(chain);
    const Weights w = weightsFor(chain, unit);
    if (w.hasSaved())
        return recordingMinimumPeak(w);
    return w.n <= kExactPeakLayers ? exactMinimumPeak(w) : minimumPeak(w, {}).peak[pairIndex(0, w.n)];
}

ChainPlan planChainBudget(const Model &chain, const ChainBudget &budget, const PlanCallbacks &callbacks) {
    requireChainModel(chain);
    const Weights exact = weightsFor(chain, budget.unit);
    if (exact.hasSaved())
        return planWithRecording(chain, exact, budget, callbacks);
    const int n = exact.n;
    const MinimumPeak least = minimumPeak(exact, callbacks);
    const bool exactPeak = n <= kExactPeakLayers;
    const std::int64_t minimum = exactPeak ? exactMinimumPeak(exact) : least.peak[pairIndex(0, n)];
    if (budget.amount < minimum)
        throw InvalidArgument("budget " + amountText(budget) + " is below the minimum feasible " +
                              unitText(budget.unit, minimum) + " for this model" +
                              (exactPeak ? "" : " (among schedules that keep checkpoints until their gradient)"));
    if (budget.unit == BudgetUnit::Bytes && budget.memorySteps < 1)
        throw InvalidArgument("memory steps must be >= 1, got " + std::to_string(budget.memorySteps));

    // Nodes and slots are whole numbers already; bytes are cut into steps.
    const std::int64_t step =
        budget.unit == BudgetUnit::Bytes
            ? std::max<std::int64_t>(1, (budget.amount + budget.memorySteps - 1) / budget.memorySteps)
            : 1;
    const Weights w = step == 1 ? exact : discretize(exact, step);
    // More memory than store-all needs buys nothing; cap the table there.
    std::int64_t enough = 0;
    for (int i = 0; i <= n; ++i)
        enough += w.a[i] + w.b[i] + w.aWork[i] + w.bWork[i];
    const int capacity = static_cast<int>(std::min(budget.amount / step, w.slots ? n + 1 : enough));
    requireTableFits(n, capacity);

    ChainPlan plan;
    const std::string stepText =
        step > 1 ? " in " + std::to_string(capacity) + " steps of " + formatBytes(step) : std::string();
    if (budget.allowExact && exactWork(n, capacity) <= kExactMaxWork &&
        exactTableBytes(n, capacity) <= kExactMaxTableBytes) {
        if (auto order = exactChainOrder(chain, w, capacity, callbacks, &plan.checkpoints)) {
            plan.order = std::move(*order);
            plan.description = "budget " + amountText(budget) + stepText + ", exact over all schedules";
            return plan;
        }
        plan.checkpoints.clear();
    }

    CostTable table(chain, w, capacity);
    table.fill(callbacks);
    if (table.at(0, n, capacity) == CostTable::kInfinity) {
        // Feasible, but rounding the sizes up to whole steps lost the few bytes
        // that made it so: the minimum-peak plan fits when it is small enough.
        const std::int64_t leastPeak = least.peak[pairIndex(0, n)];
        if (leastPeak > budget.amount)
            throw InvalidArgument("budget " + amountText(budget) + " is within the rounding of " +
                                  std::to_string(capacity) + " memory steps of the minimum " +
                                  unitText(budget.unit, minimum) + "; give at least " +
                                  unitText(budget.unit, leastPeak) + " or more memory steps");
        int unused = 0;
        auto choose = [&least](int s, int t, int) { return std::pair<int, int>{least.split[pairIndex(s, t)], 0}; };
        emitSplitOrder(chain, 0, n, unused, choose, plan.order, &plan.checkpoints);
        plan.description = "budget " + amountText(budget) + ": the minimum-memory keep-until-gradient plan (" +
                           unitText(budget.unit, leastPeak) + "); the stepped plan did not fit";
        return plan;
    }
    const Weights &weights = w;
    auto choose = [&table, &weights](int s, int t, int m) {
        return std::pair<int, int>{table.bestSplit(s, t, m), m - static_cast<int>(weights.hold(s))};
    };
    emitSplitOrder(chain, 0, n, capacity, choose, plan.order, &plan.checkpoints);
    plan.description = "budget " + amountText(budget) + stepText +
                       ", optimal among schedules that keep checkpoints until their gradient";
    return plan;
}

} // namespace remat::planners
