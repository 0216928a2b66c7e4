#pragma once
// What each part of a chain plan weighs in a budget's unit, shared by the
// chain planners' dynamic programs (internal to core/planners).
#include "core/errors.h"
#include "core/model.h"
#include "core/planners/chain_budget.h"

#include <cstdint>
#include <vector>

namespace remat::planners {

// What each part of a segment plan weighs in the budget's unit. In Bytes and
// Nodes these are the simulator's own terms (resident nodes plus the op's
// workspace, see docs/model.md); in Slots only held snapshots count.
struct Weights {
    int n = 0;
    bool slots = false;
    std::vector<std::int64_t> a, b, aWork, bWork; // by layer index 0..n
    // Saved internals s_i of layer F_i (bytes only; 0 in nodes and slots,
    // which count no saved internals). Consumed by b_{i-1}.
    std::vector<std::int64_t> saved;

    bool hasSaved() const {
        for (auto x : saved)
            if (x > 0)
                return true;
        return false;
    }

    std::int64_t gradient(int t) const { return t < n ? b[t + 1] : 0; }
    // Computing b_s: a_s, the incoming gradient b_{s+1}, b_s and its workspace.
    std::int64_t leaf(int s) const { return slots ? 0 : a[s] + gradient(s) + b[s] + bWork[s]; }
    // What a_s costs while the inner segment runs.
    std::int64_t hold(int s) const { return slots ? 1 : a[s]; }
    // Computing a_k on the way from a_s (segment ending at t): a_s, the
    // gradient, the previous working node (unless it is a_s) and a_k.
    std::int64_t advanceStep(int s, int k, int t) const {
        if (slots)
            return 1;
        return a[s] + gradient(t) + (k - 1 > s ? a[k - 1] : 0) + a[k] + aWork[k];
    }
    // The same step when a_s is released once a_{s+1} exists (its last use:
    // whoever needs a_s again recomputes it from further back).
    std::int64_t releasingStep(int s, int k, int t) const {
        if (slots)
            return k == s + 1 ? 1 : 0;
        return gradient(t) + (k - 1 > s ? a[k - 1] : a[s]) + a[k] + aWork[k];
    }
};

// The weights of the three kinds of forward step of a chain whose layers
// save internals (chain_recording.h, chain_offload.h), in w's units.
struct RecordingSteps {
    const Weights &w;

    std::int64_t saved(int i) const { return i <= w.n ? w.saved[i] : 0; }
    // b_s reads s_{s+1} (b_n reads none).
    std::int64_t consumed(int s) const { return s < w.n ? saved(s + 1) : 0; }
    // Running F_{s+1} recording from a_s, with b_{t+1} resident.
    std::int64_t record(int s, int t) const {
        return w.a[s] + w.gradient(t) + w.a[s + 1] + w.saved[s + 1] + w.aWork[s + 1];
    }
    // b_s with the internals it consumes.
    std::int64_t leaf(int s) const { return w.leaf(s) + consumed(s); }
    // Held by a_s and s_{s+1} while (s+1, t) runs after a recording F_{s+1}.
    std::int64_t recordHold(int s) const { return w.a[s] + w.saved[s + 1]; }
};

inline Weights weightsFor(const Model &chain, BudgetUnit unit) {
    Weights w;
    w.n = chain.layers();
    w.slots = unit == BudgetUnit::Slots;
    const int f = chain.forwardCount();
    w.a.resize(f);
    w.b.resize(f);
    w.aWork.resize(f);
    w.bWork.resize(f);
    w.saved.resize(f);
    for (int i = 0; i < f; ++i) {
        const bool bytes = unit == BudgetUnit::Bytes;
        w.saved[i] = bytes ? chain.savedBytes(i) : 0;
        w.a[i] = bytes ? chain.bytes(chain.forwardNode(i)) : 1;
        w.b[i] = bytes ? chain.bytes(chain.backwardNode(i)) : 1;
        w.aWork[i] = bytes ? chain.workspace(chain.forwardNode(i)) : 0;
        w.bWork[i] = bytes ? chain.workspace(chain.backwardNode(i)) : 0;
    }
    return w;
}

// Every weight rounded up to whole steps of `step` bytes, so that a plan that
// fits the stepped budget fits the real one.
inline Weights discretize(const Weights &w, std::int64_t step) {
    Weights d = w;
    auto up = [step](std::vector<std::int64_t> &v) {
        for (auto &x : v)
            x = (x + step - 1) / step;
    };
    up(d.a);
    up(d.b);
    up(d.aWork);
    up(d.bWork);
    up(d.saved);
    return d;
}

// Segments (s, t), s <= t <= n, numbered densely.
inline std::size_t pairIndex(int s, int t) {
    return static_cast<std::size_t>(t) * (t + 1) / 2 + s;
}

// Calls solve(s, t) for every segment, shorter ones first (a segment's row
// reads only shorter segments' rows), checking for cancel before each and
// reporting progress by work done (a segment's work grows with its length).
template <class Solve> void forEachSegmentByLength(int n, const PlanCallbacks &callbacks, Solve solve) {
    double total = 0, done = 0;
    for (int len = 0; len <= n; ++len)
        total += double(n - len + 1) * (len + 1);
    for (int len = 0; len <= n; ++len) {
        for (int s = 0; s + len <= n; ++s) {
            if (callbacks.cancelled && callbacks.cancelled())
                throw Cancelled();
            solve(s, s + len);
        }
        done += double(n - len + 1) * (len + 1);
        if (callbacks.progress)
            callbacks.progress(done / total);
    }
}

} // namespace remat::planners
