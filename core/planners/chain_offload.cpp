#include "core/planners/chain_offload.h"

#include "core/errors.h"

#include <algorithm>
#include <limits>

namespace remat::planners {

namespace {

enum class Kind : std::uint8_t { Leaf, Keep, OffloadLate, OffloadEarly, Record, RecordOffloaded };

// One way to solve a segment (s, t): its own steps need `need` memory and
// take `seconds` (their compute and their stalls); then the inner segment
// (j, t) runs with `innerHold` less memory, and for splits the outer segment
// (s, j-1) with the same memory.
struct Option {
    Kind kind = Kind::Leaf;
    int j = 0; // the split; s + 1 for a recording run
    std::int64_t need = 0;
    std::int64_t innerHold = 0;
    bool outer = false;
    double seconds = 0;
};

class Options {
public:
    Options(const Model &chain, const Weights &w, const Machine &machine, bool offloads)
        : chain_(chain), steps_{w}, machine_(machine), offloads_(offloads && machine.link.carries()) {}

    const RecordingSteps &steps() const { return steps_; }

    // Calls f(option) for every option of (s, t), in a fixed order.
    template <class F> void forEach(int s, int t, F f) const {
        const Weights &w = steps_.w;
        if (s == t) {
            // b_s alone; first re-run F_{s+1} recording when b_s consumes internals.
            const bool rerun = steps_.consumed(s) > 0;
            f(Option{Kind::Leaf, s, rerun ? std::max(steps_.record(s, s), steps_.leaf(s)) : steps_.leaf(s), 0, false,
                     backward(s) + (rerun ? forward(s + 1) : 0.0)});
            return;
        }
        const bool offloadable = offloads_ && s >= 1; // a_0, the input, stays on the device
        const double copy = offloadable ? machine_.link.seconds(chain_.bytes(chain_.forwardNode(s))) : 0;
        double advanceSeconds = 0;
        std::int64_t advance = 0, releasing = 0;
        for (int j = s + 1; j <= t; ++j) {
            advanceSeconds += forward(j);
            advance = std::max(advance, w.advanceStep(s, j, t));
            releasing = std::max(releasing, j == s + 1 ? w.advanceStep(s, j, t) : w.releasingStep(s, j, t));
            f(Option{Kind::Keep, j, std::max(advance, w.hold(s)), w.hold(s), true, advanceSeconds});
            if (!offloadable)
                continue;
            // a_s comes back while b_j runs, the last op of (j, t).
            const std::int64_t landing = steps_.leaf(j) + w.a[s];
            const double back = stall(copy, backward(j));
            f(Option{Kind::OffloadLate, j, std::max(advance, landing), 0, true,
                     advanceSeconds + stall(copy, advanceSeconds) + back});
            if (j >= s + 2)
                f(Option{Kind::OffloadEarly, j, std::max(releasing, landing), 0, true,
                         advanceSeconds + stall(copy, forward(s + 1)) + back});
        }
        if (steps_.saved(s + 1) > 0) {
            const std::int64_t hold = steps_.recordHold(s);
            const double own = forward(s + 1) + backward(s);
            f(Option{Kind::Record, s + 1, std::max({steps_.record(s, t), steps_.leaf(s), hold}), hold, false, own});
            if (offloadable) {
                const std::int64_t saved = steps_.saved(s + 1);
                f(Option{Kind::RecordOffloaded, s + 1,
                         std::max({steps_.record(s, t), steps_.leaf(s), saved + steps_.leaf(s + 1) + w.a[s]}), saved,
                         false, own + stall(copy, forward(s + 1)) + stall(copy, backward(s + 1))});
            }
        }
    }

private:
    double forward(int i) const { return chain_.cost(chain_.forwardNode(i)) * machine_.secondsPerCost; }
    double backward(int i) const { return chain_.cost(chain_.backwardNode(i)) * machine_.secondsPerCost; }
    static double stall(double copy, double overlapped) { return std::max(0.0, copy - overlapped); }

    const Model &chain_;
    RecordingSteps steps_;
    const Machine &machine_;
    bool offloads_;
};

// seconds[(s, t)][m]: the least makespan of the segment within m units.
class SecondsTable {
public:
    SecondsTable(const Options &options, int n, int capacity)
        : options_(options), n_(n), capacity_(capacity), width_(static_cast<std::size_t>(capacity) + 1) {}

    void fill(const PlanCallbacks &callbacks) {
        table_.assign((pairIndex(n_, n_) + 1) * width_, kInfinity);
        forEachSegmentByLength(n_, callbacks, [this](int s, int t) {
            double *row = &table_[pairIndex(s, t) * width_];
            options_.forEach(s, t, [&](const Option &o) {
                for (std::int64_t m = o.need; m <= capacity_; ++m) {
                    const double c = value(o, s, t, m);
                    if (c < row[m])
                        row[m] = c;
                }
            });
        });
    }

    double at(int s, int t, std::int64_t m) const { return table_[pairIndex(s, t) * width_ + m]; }

    // The option that reached (s, t, m): the same arithmetic as fill().
    Option best(int s, int t, std::int64_t m) const {
        Option chosen;
        double least = kInfinity;
        options_.forEach(s, t, [&](const Option &o) {
            if (m >= o.need && value(o, s, t, m) < least) {
                least = value(o, s, t, m);
                chosen = o;
            }
        });
        return chosen;
    }

    static constexpr double kInfinity = std::numeric_limits<double>::infinity();

private:
    double value(const Option &o, int s, int t, std::int64_t m) const {
        if (o.kind == Kind::Leaf)
            return o.seconds;
        double c = o.seconds + at(o.j, t, m - o.innerHold);
        if (o.outer)
            c += at(s, o.j - 1, m);
        return c;
    }

    const Options &options_;
    int n_;
    std::int64_t capacity_;
    std::size_t width_;
    std::vector<double> table_;
};

class Emitter {
public:
    Emitter(const SecondsTable &table, const Model &chain, const RecordingSteps &steps, std::vector<Op> &ops)
        : table_(table), chain_(chain), steps_(steps), ops_(ops) {}

    void emit(int s, int t, std::int64_t m, std::vector<int> *checkpoints) {
        const int n = steps_.w.n;
        const Option o = table_.best(s, t, m);
        const NodeId source = chain_.forwardNode(s);
        const bool offloaded =
            o.kind == Kind::OffloadLate || o.kind == Kind::OffloadEarly || o.kind == Kind::RecordOffloaded;
        switch (o.kind) {
        case Kind::Leaf:
            if (steps_.consumed(s) > 0)
                ops_.push_back(Op::record(chain_.forwardNode(s + 1)));
            ops_.push_back(Op::compute(chain_.backwardNode(s)));
            return;
        case Kind::Record:
        case Kind::RecordOffloaded:
            if (offloaded)
                ops_.push_back(Op::offload(source));
            ops_.push_back(Op::record(chain_.forwardNode(s + 1)));
            if (checkpoints && t == n && s + 1 < n)
                checkpoints->push_back(s + 1);
            emit(s + 1, t, m - o.innerHold, t == n ? checkpoints : nullptr);
            if (offloaded)
                prefetchBeforeLast(source);
            ops_.push_back(Op::compute(chain_.backwardNode(s)));
            return;
        case Kind::Keep:
        case Kind::OffloadLate:
        case Kind::OffloadEarly:
            if (offloaded)
                ops_.push_back(Op::offload(source));
            for (int k = s + 1; k <= o.j; ++k)
                ops_.push_back(Op::compute(chain_.forwardNode(k)));
            // The early free is insertFrees' own (after a_{s+1}, the last read).
            if (o.kind == Kind::OffloadLate)
                ops_.push_back(Op::free(source));
            if (checkpoints && t == n && o.j < t)
                checkpoints->push_back(o.j);
            emit(o.j, t, m - o.innerHold, checkpoints);
            if (offloaded)
                prefetchBeforeLast(source);
            emit(s, o.j - 1, m, nullptr);
            return;
        }
    }

private:
    // The prefetch goes right before b_j, the last op the inner segment emitted.
    void prefetchBeforeLast(NodeId node) { ops_.insert(ops_.end() - 1, Op::prefetch(node)); }

    const SecondsTable &table_;
    const Model &chain_;
    const RecordingSteps &steps_;
    std::vector<Op> &ops_;
};

} // namespace

double offloadTableBytes(int n, int capacity) {
    return double(pairIndex(n, n) + 1) * (double(capacity) + 1) * sizeof(double);
}

std::int64_t offloadMinimumPeak(const Model &chain, const Weights &w, bool offloads) {
    // Only memory counts here: any link that carries lists the same options.
    Machine carrying;
    carrying.link.bytesPerSecond = 1;
    const Options options(chain, w, carrying, offloads);
    const int n = w.n;
    std::vector<std::int64_t> peak(pairIndex(n, n) + 1, 0);
    for (int len = 0; len <= n; ++len)
        for (int s = 0; s + len <= n; ++s) {
            const int t = s + len;
            std::int64_t best = std::numeric_limits<std::int64_t>::max();
            options.forEach(s, t, [&](const Option &o) {
                std::int64_t p = o.need;
                if (o.kind != Kind::Leaf)
                    p = std::max(p, o.innerHold + peak[pairIndex(o.j, t)]);
                if (o.outer)
                    p = std::max(p, peak[pairIndex(s, o.j - 1)]);
                best = std::min(best, p);
            });
            peak[pairIndex(s, t)] = best;
        }
    return peak[pairIndex(0, n)];
}

std::optional<OffloadChainPlan> offloadChainPlan(const Model &chain, const Weights &w, int capacity,
                                                 const Machine &machine, const PlanCallbacks &callbacks) {
    const Options options(chain, w, machine, true);
    SecondsTable table(options, w.n, capacity);
    table.fill(callbacks);
    if (table.at(0, w.n, capacity) == SecondsTable::kInfinity)
        return std::nullopt;
    OffloadChainPlan plan;
    plan.seconds = table.at(0, w.n, capacity);
    Emitter(table, chain, options.steps(), plan.ops).emit(0, w.n, capacity, &plan.checkpoints);
    return plan;
}

} // namespace remat::planners
