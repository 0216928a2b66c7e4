#pragma once
// The recursive split form shared by every chain planner (revolve, recursive,
// budget). To run the gradients b_t..b_s of a chain segment while a_s is
// resident (and b_{t+1}, when t < n): if s == t compute b_s; otherwise advance
// from a_s to a_j (s < j <= t), keep a_j, solve (j, t), then solve (s, j-1)
// with b_j as the incoming gradient. A planner only chooses j; this emitter
// turns the choices into the compute order, and insertFrees adds the frees.
#include "core/model.h"

#include <vector>

namespace remat::planners {

// Choice: for a segment (s, t) with s < t and the planner's state, returns the
// split j and the state for the inner segment (j, t); the outer segment (s, j-1)
// keeps `state`. Signature: std::pair<int, State> operator()(int s, int t, const State &).
template <class State, class Choice>
void emitSplitOrder(const Model &chain, int s, int t, State state, Choice &choose, std::vector<NodeId> &order,
                    std::vector<int> *firstSweepCheckpoints = nullptr) {
    const int n = chain.layers();
    struct Pending {
        int s, t;
        State state;
    };
    // An explicit stack: revolve with many slots nests as deep as the chain is long.
    std::vector<Pending> later;
    for (;;) {
        while (s < t) {
            auto [j, inner] = choose(s, t, static_cast<const State &>(state));
            for (int k = s + 1; k <= j; ++k)
                order.push_back(chain.forwardNode(k));
            // Nodes kept by the sweep that starts the backward pass are the
            // schedule's checkpoints (drawn ringed in the studio).
            if (firstSweepCheckpoints && t == n && j < t)
                firstSweepCheckpoints->push_back(j);
            later.push_back({s, j - 1, std::move(state)});
            s = j;
            state = std::move(inner);
        }
        order.push_back(chain.backwardNode(s));
        if (later.empty())
            return;
        s = later.back().s;
        t = later.back().t;
        state = std::move(later.back().state);
        later.pop_back();
    }
}

} // namespace remat::planners
