#include "core/planners/dag_budget.h"

#include "core/errors.h"
#include "core/planners/dag_plans.h"
#include "core/schedule_builder.h"
#include "core/simulator.h"
#include "core/units.h"

#include <cmath>
#include <limits>

namespace remat::planners {

namespace {

struct Candidate {
    std::vector<int> checkpoints;
    bool recomputeAll = false;
    std::int64_t peak = 0;
    double cost = 0;
};

std::vector<NodeId> orderOf(const Model &model, const Candidate &c) {
    return c.recomputeAll ? recomputeAllOrder(model) : segmentOrder(model, c.checkpoints);
}

void measure(const Model &model, BudgetUnit unit, Candidate &c) {
    Schedule s;
    s.ops = insertFrees(model, orderOf(model, c), c.recomputeAll ? 0 : lastCheckpoint(c.checkpoints));
    const Summary summary = Simulator::summarize(model, s);
    c.peak = unit == BudgetUnit::Nodes ? summary.peakNodes : summary.peakBytes;
    c.cost = summary.cost;
}

std::string amountText(BudgetUnit unit, std::int64_t amount) {
    return unit == BudgetUnit::Nodes ? std::to_string(amount) + " nodes" : formatBytes(amount);
}

} // namespace

std::vector<int> autoCheckpoints(const Model &model) {
    const std::vector<int> points = articulationPoints(model);
    const double target = std::sqrt(static_cast<double>(model.layers()));
    if (static_cast<double>(points.size()) <= target)
        return points;
    const std::size_t step = static_cast<std::size_t>(std::ceil(static_cast<double>(points.size()) / target));
    std::vector<int> out;
    for (std::size_t k = step - 1; k < points.size(); k += step)
        out.push_back(points[k]);
    return out;
}

DagPlan planDagBudget(const Model &model, BudgetUnit unit, std::int64_t budget, const PlanCallbacks &callbacks) {
    if (unit == BudgetUnit::Slots)
        throw InvalidArgument("--slots applies to chains; give this graph's budget in bytes or nodes");
    if (model.layers() > kMaxGraphBudgetLayers)
        throw LimitExceeded("the graph budget heuristic takes up to " + std::to_string(kMaxGraphBudgetLayers) +
                            " layers, got " + std::to_string(model.layers()));
    std::vector<Candidate> seen;
    auto consider = [&](Candidate c) {
        measure(model, unit, c);
        seen.push_back(c);
        return c;
    };
    consider(Candidate{{}, true, 0, 0});
    consider(Candidate{autoCheckpoints(model), false, 0, 0});
    Candidate all;
    for (int i = 1; i < model.layers(); ++i)
        all.checkpoints.push_back(i);
    all = consider(all);
    // Two greedy walks from "keep everything" down to "keep nothing": one drops
    // the checkpoint that lowers the peak most, the other the one that adds
    // least cost; each prefers the other measure on ties.
    const double rounds = 2.0 * std::max<std::size_t>(1, all.checkpoints.size());
    double round = 0;
    for (const bool peakFirst : {true, false}) {
        Candidate current = all;
        while (!current.checkpoints.empty()) {
            if (callbacks.cancelled && callbacks.cancelled())
                throw Cancelled();
            Candidate next;
            bool any = false;
            for (std::size_t k = 0; k < current.checkpoints.size(); ++k) {
                Candidate trial;
                trial.checkpoints = current.checkpoints;
                trial.checkpoints.erase(trial.checkpoints.begin() + static_cast<std::ptrdiff_t>(k));
                measure(model, unit, trial);
                const bool better =
                    peakFirst ? (trial.peak < next.peak || (trial.peak == next.peak && trial.cost < next.cost))
                              : (trial.cost < next.cost || (trial.cost == next.cost && trial.peak < next.peak));
                if (!any || better)
                    next = trial;
                any = true;
            }
            seen.push_back(next);
            current = next;
            if (callbacks.progress)
                callbacks.progress(++round / rounds);
        }
    }
    const Candidate *best = nullptr;
    std::int64_t smallest = std::numeric_limits<std::int64_t>::max();
    for (const Candidate &c : seen) {
        smallest = std::min(smallest, c.peak);
        if (c.peak <= budget && (!best || c.cost < best->cost))
            best = &c;
    }
    if (!best)
        throw InvalidArgument(
            "budget " + amountText(unit, budget) + " is below the smallest peak " +
            (unit == BudgetUnit::Nodes ? std::to_string(smallest) + " nodes" : std::to_string(smallest) + " bytes") +
            " the graph heuristic reaches for this model");
    DagPlan plan;
    plan.order = orderOf(model, *best);
    plan.checkpoints = best->checkpoints;
    plan.description =
        "budget " + amountText(unit, budget) + ", graph heuristic: " +
        (best->recomputeAll ? std::string("recompute all") : std::to_string(best->checkpoints.size()) + " checkpoints");
    return plan;
}

} // namespace remat::planners
