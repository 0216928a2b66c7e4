#include "core/planners/kept_sets.h"

#include "core/errors.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace remat::planners {

namespace {

// The sizes the unit counts: every node 1 and no workspace for Nodes.
struct Sizes {
    std::vector<std::int64_t> a, g, forwardWork, backwardWork; // by layer index 0..n

    Sizes(const Model &model, KeptSetUnit unit) {
        const int f = model.forwardCount();
        a.resize(f);
        g.resize(f);
        forwardWork.resize(f);
        backwardWork.resize(f);
        for (int i = 0; i < f; ++i) {
            const bool nodes = unit == KeptSetUnit::Nodes;
            a[i] = nodes ? 1 : model.bytes(model.forwardNode(i));
            g[i] = nodes ? 1 : model.bytes(model.backwardNode(i));
            forwardWork[i] = nodes ? 0 : model.workspace(model.forwardNode(i));
            backwardWork[i] = nodes ? 0 : model.workspace(model.backwardNode(i));
        }
    }
};

// segment[s][e]: the most a segment (s, e] holds on top of what is kept up to
// and including a_s, over every step of its plan (core/planners/dag_plans.h,
// segmentOrder, with the frees of insertFrees):
// - the forward pass computes a_i (s < i <= e) holding a_{i-1} unless it is a_s;
// - the backward pass recomputes a_{s+1}..a_{e-1} under the gradient b_e,
//   keeping each until its own gradient;
// - then computes b_{e-1}..b_s, each holding the recomputed nodes up to it and
//   the gradient it reads;
// - the last segment also computes b_n from a_n.
std::vector<std::vector<std::int64_t>> segmentTerms(const Sizes &z, int n) {
    std::vector<std::vector<std::int64_t>> out(n + 1, std::vector<std::int64_t>(n + 1, 0));
    for (int s = 0; s < n; ++s) {
        std::int64_t forward = 0;   // max over i <= e of the forward step at a_i
        std::int64_t recompute = 0; // max over s < i < e of the recomputation at a_i, without b_e
        std::int64_t backward = 0;  // max over s <= i < e of the backward step at b_i
        std::int64_t held = 0;      // sum of a_{s+1}..a_{e-1}
        for (int e = s + 1; e <= n; ++e) {
            const int i = e; // the forward step at a_e joins the segment
            forward = std::max(forward, (i - 1 > s ? z.a[i - 1] : 0) + z.a[i] + z.forwardWork[i]);
            const int b = e - 1; // the backward step at b_{e-1} joins it
            // held already has a_{e-1}, read by b_{e-1}
            backward = std::max(backward, held + z.g[b + 1] + z.g[b] + z.backwardWork[b]);
            std::int64_t term = std::max(forward, backward);
            if (e - 1 > s)
                term = std::max(term, z.g[e] + recompute);
            if (e == n)
                term = std::max(term, z.a[n] + z.g[n] + z.backwardWork[n]);
            out[s][e] = term;
            // a_e becomes a recomputed node of every longer segment.
            recompute = std::max(recompute, held + z.a[e] + z.forwardWork[e]);
            held += z.a[e];
        }
    }
    return out;
}

struct Partial {
    std::int64_t kept = 0; // bytes (or nodes) kept up to the last checkpoint, a_0 included
    double saved = 0;      // forward cost the kept nodes save from recomputation
    std::vector<int> set;
};

// Keeps only the partials no other one beats on both kept size and saving.
void prune(std::vector<Partial> &front) {
    std::sort(front.begin(), front.end(), [](const Partial &x, const Partial &y) {
        return x.kept != y.kept ? x.kept < y.kept : x.saved > y.saved;
    });
    std::vector<Partial> kept;
    double best = -std::numeric_limits<double>::infinity();
    for (Partial &p : front)
        if (p.saved > best) {
            best = p.saved;
            kept.push_back(std::move(p));
        }
    front = std::move(kept);
}

} // namespace

void requireKeptSetModel(const Model &model) {
    if (!model.isChain())
        throw InvalidArgument("exercises are graded on chains; this model has skip connections (the best set of "
                              "kept nodes is searched exactly on chains only)");
    if (model.hasSavedBytes())
        throw InvalidArgument("exercises are graded on chains whose layers save no internals; this model's layers "
                              "save some (s_i)");
    if (model.layers() > kMaxKeptSetLayers)
        throw InvalidArgument("an exercise's model may have at most " + std::to_string(kMaxKeptSetLayers) +
                              " layers, got " + std::to_string(model.layers()));
    if (model.layers() < 2)
        throw InvalidArgument("an exercise needs a model of at least 2 layers (a node to keep), got " +
                              std::to_string(model.layers()));
}

std::int64_t keptSetPeak(const Model &model, KeptSetUnit unit, const std::vector<int> &kept) {
    const int n = model.layers();
    const Sizes z(model, unit);
    const auto terms = segmentTerms(z, n);
    std::int64_t held = z.a[0], peak = z.a[0];
    int s = 0;
    for (std::size_t k = 0; k <= kept.size(); ++k) {
        const int e = k < kept.size() ? kept[k] : n;
        peak = std::max(peak, held + terms[s][e]);
        if (e < n)
            held += z.a[e];
        s = e;
    }
    return peak;
}

std::optional<std::vector<int>> bestKeptSet(const Model &model, KeptSetUnit unit, std::int64_t budget) {
    requireKeptSetModel(model);
    const int n = model.layers();
    const Sizes z(model, unit);
    const auto terms = segmentTerms(z, n);
    // fronts[s]: partial sets whose last kept node is a_s (a_0: none kept yet).
    std::vector<std::vector<Partial>> fronts(n);
    fronts[0].push_back({z.a[0], 0, {}});
    std::optional<Partial> best;
    for (int s = 0; s < n; ++s) {
        prune(fronts[s]);
        for (const Partial &p : fronts[s])
            for (int e = s + 1; e <= n; ++e) {
                if (p.kept + terms[s][e] > budget)
                    continue;
                if (e == n) {
                    if (!best || p.saved > best->saved)
                        best = p;
                    continue;
                }
                Partial next{p.kept + z.a[e], p.saved + model.cost(model.forwardNode(e)), p.set};
                next.set.push_back(e);
                fronts[e].push_back(std::move(next));
            }
        fronts[s].clear();
        fronts[s].shrink_to_fit();
    }
    if (!best)
        return std::nullopt;
    return best->set;
}

std::int64_t smallestKeptSetBudget(const Model &model, KeptSetUnit unit) {
    requireKeptSetModel(model);
    const int n = model.layers();
    const Sizes z(model, unit);
    const auto terms = segmentTerms(z, n);
    // Whether some set fits `budget`: the least kept size reaching each a_s is enough.
    const auto fits = [&](std::int64_t budget) {
        const std::int64_t none = std::numeric_limits<std::int64_t>::max();
        std::vector<std::int64_t> least(n, none);
        least[0] = z.a[0];
        for (int s = 0; s < n; ++s) {
            if (least[s] == none)
                continue;
            for (int e = s + 1; e <= n; ++e) {
                if (least[s] + terms[s][e] > budget)
                    continue;
                if (e == n)
                    return true;
                least[e] = std::min(least[e], least[s] + z.a[e]);
            }
        }
        return false;
    };
    std::int64_t low = 0, high = keptSetPeak(model, unit, {}); // keeping nothing fits its own peak
    while (low + 1 < high) {
        const std::int64_t mid = low + (high - low) / 2;
        (fits(mid) ? high : low) = mid;
    }
    return high;
}

} // namespace remat::planners
