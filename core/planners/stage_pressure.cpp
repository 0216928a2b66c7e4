#include "core/planners/stage_pressure.h"

#include "core/planners/stage_mask.h"

#include <algorithm>
#include <array>
#include <bit>

namespace remat::planners {

namespace {

constexpr std::size_t kStagesTaken = 2;

} // namespace

StagePressureBound::StagePressureBound(const Positions &in) : weight_(in.weight), saved_(in.saved), cost_(in.cost) {
    StageMask withInternals = 0;
    for (int p = 1; p <= in.forwardNodes; ++p)
        if (saved_[static_cast<std::size_t>(p)] > 0)
            withInternals |= bitOf(p);
    for (int s = 1; s < in.positions; ++s) {
        const auto i = static_cast<std::size_t>(s);
        const StageMask reads = in.reads[i] & upTo(in.forwardNodes);
        Stage stage{s,
                    in.capacity - in.base[i] - in.weight[i] - in.workspace[i] - sumOf(reads, in.weight) -
                        sumOf(in.savedNeed[i], in.saved),
                    in.futureReads[i + 1] & ~in.reads[i] & upTo(std::min(s - 1, in.forwardNodes)),
                    in.futureSaved[i + 1] & ~in.savedNeed[i] & withInternals & upTo(s - 1), 0, {}};
        stage.excess = sumOf(stage.nodes, in.weight) + sumOf(stage.internals, in.saved) - stage.room;
        if (stage.excess > 0)
            stages_.push_back(stage);
    }
    // Any stages give a lower bound; each one taken costs time on every
    // layout. The two furthest over their room when everything is held cut
    // about as much as all of them on the shipped graphs, for a fraction of
    // the time (docs/planners.md, "Memory is counted too").
    std::stable_sort(stages_.begin(), stages_.end(), [](const Stage &a, const Stage &b) { return a.excess > b.excess; });
    if (stages_.size() > kStagesTaken)
        stages_.resize(kStagesTaken);
    // Each node as a state may hold it (its output, its internals, both), by
    // what that frees at the stage, cheapest per byte first: a state takes
    // the entries it holds, in order (an exact fractional knapsack).
    for (Stage &stage : stages_) {
        for (int p = 1; p <= in.forwardNodes; ++p)
            for (int parts = 1; parts <= 3; ++parts) {
                const auto i = static_cast<std::size_t>(p);
                const std::int64_t bytes = ((parts & 1) && (stage.nodes & bitOf(p)) ? weight_[i] : 0) +
                                           ((parts & 2) && (stage.internals & bitOf(p)) ? saved_[i] : 0);
                if (bytes > 0)
                    stage.order.push_back(Item{p, parts, bytes, cost_[i] / static_cast<double>(bytes)});
            }
        std::stable_sort(stage.order.begin(), stage.order.end(),
                         [](const Item &a, const Item &b) { return a.ratio < b.ratio; });
    }
}

double StagePressureBound::least(int t, StageMask resident, StageMask held, StageMask must) const {
    const StageMask nodesHeld = resident & ~must, internalsHeld = held & ~must;
    // What each stage from t on holds beyond its room; most states fit at
    // every one, and they need nothing more.
    std::array<std::int64_t, kStagesTaken> excess{};
    bool over = false;
    for (std::size_t k = 0; k < stages_.size(); ++k) {
        const Stage &stage = stages_[k];
        if (stage.position < t)
            continue;
        excess[k] = sumOf(nodesHeld & stage.nodes, weight_) + sumOf(internalsHeld & stage.internals, saved_) - stage.room;
        over = over || excess[k] > 0;
    }
    if (!over)
        return 0;
    double most = 0;
    for (std::size_t k = 0; k < stages_.size(); ++k) {
        std::int64_t left = excess[k];
        if (left <= 0)
            continue;
        double cost = 0;
        for (std::size_t j = 0; j < stages_[k].order.size() && left > 0; ++j) {
            const Item &item = stages_[k].order[j];
            const int parts = static_cast<int>((nodesHeld >> item.p) & 1) | static_cast<int>((internalsHeld >> item.p) & 1) << 1;
            if (parts != item.parts)
                continue;
            const double c = cost_[static_cast<std::size_t>(item.p)];
            if (item.bytes >= left) {
                cost += c * static_cast<double>(left) / static_cast<double>(item.bytes);
                left = 0;
            } else {
                cost += c;
                left -= item.bytes;
            }
        }
        most = std::max(most, cost);
    }
    return most;
}

} // namespace remat::planners
