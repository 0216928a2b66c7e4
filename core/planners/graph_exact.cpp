#include "core/planners/graph_exact.h"

#include "core/errors.h"
#include "core/planners/dag_budget.h"
#include "core/planners/dag_plans.h"
#include "core/planners/dtr_runtime.h"
#include "core/planners/graph_milp.h"
#include "core/planners/graph_stage_search.h"
#include "core/schedule_builder.h"
#include "core/simulator.h"
#include "core/solver/milp.h"
#include "core/strategy.h"
#include "core/units.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>

namespace remat::planners {

namespace {

// The stage search's bound rises from the least cost proven towards the
// plan's by a 64th of what is left between them, twice as much after each
// search that took less than a 64th of the work left: its work grows so
// steeply with the bound that a few searches that end cost less than one
// that overshoots, and where the plan is the least, few searches reach it.
constexpr double kSearchSteps = 64;

std::int64_t peakIn(BudgetUnit unit, const Summary &s) {
    return unit == BudgetUnit::Nodes ? s.peakNodes : s.peakBytes;
}

std::string amountText(BudgetUnit unit, std::int64_t amount) {
    return unit == BudgetUnit::Nodes ? std::to_string(amount) + " nodes"
                                     : formatBytes(amount) + " (" + std::to_string(amount) + " B)";
}

std::vector<Op> computesOf(const std::vector<Op> &ops) {
    std::vector<Op> out;
    for (const Op &op : ops)
        if (op.kind == OpKind::Compute)
            out.push_back(op);
    return out;
}

Summary count(const Model &model, const std::vector<Op> &computes) {
    Schedule s;
    s.ops = insertFrees(model, computes);
    return Simulator::summarize(model, s);
}

struct Known {
    std::vector<Op> computes;
    std::string source;
    Summary summary;
};

// The plans remat makes without the solver, at this budget where they fit.
std::vector<Known> knownPlans(const Model &model, BudgetUnit unit, std::int64_t budget,
                              const GraphExactOptions &options) {
    std::vector<Known> known;
    auto add = [&](std::vector<Op> computes, std::string source) {
        Known k{std::move(computes), std::move(source), {}};
        k.summary = count(model, k.computes);
        known.push_back(std::move(k));
    };
    add(computeOps(model, recomputeAllOrder(model)), "recompute-all");
    try {
        const DagPlan h = planDagBudget(model, unit, budget, options.callbacks);
        add(computesOf(insertFrees(model, h.order, lastCheckpoint(h.checkpoints))), "graph heuristic");
    } catch (const InvalidArgument &) {
        // No heuristic plan fits: the others may.
    } catch (const LimitExceeded &) {
    }
    // The runtime under both of its heuristics, and told the step ahead
    // (next-use eviction), which finds cheaper plans at some tight budgets
    // (docs/planners.md).
    for (DtrHeuristic h : {DtrHeuristic::Dtr, DtrHeuristic::CostPerByte, DtrHeuristic::NextUse})
        try {
            const DtrRun run = runDtr(model, DtrBudget{unit == BudgetUnit::Nodes, budget}, h, Strategy::kMaxOps);
            add(computesOf(run.ops), h == DtrHeuristic::NextUse ? "next-use eviction" : "dtr");
        } catch (const InvalidArgument &) {
            // dtr runs out of memory at this budget.
        } catch (const LimitExceeded &) {
        }
    for (const std::vector<Op> &given : options.incumbents)
        add(given, "given");
    return known;
}

solver::MilpOptions solverOptions(const Model &model, const GraphExactOptions &options) {
    const std::int64_t effort = options.effort.value_or(defaultGraphEffort(model));
    if (effort < 0 || effort > kMaxGraphEffort)
        throw InvalidArgument("the graph planner's effort must be 0 to " + std::to_string(kMaxGraphEffort) +
                              " branch-and-bound nodes, got " + std::to_string(effort));
    solver::MilpOptions o;
    o.maxNodes = effort;
    // Strong branching (a few LPs at every node) is what closes deep
    // searches: nanoGPT's least budget is proven after 478 nodes with it and
    // stays 18.93 % open after 5,000 without. In the default 10-node search it
    // tripled the time on ResNet-18 and U-Net and changed no plan and no bound
    // (docs/planners.md). A function of the effort asked for: the same plan on
    // every machine.
    o.strongBranching = effort >= kStrongBranchingEffort;
    o.cancelled = options.callbacks.cancelled;
    return o;
}

// The exact stage search of the solver's class (graph_stage_search.h). Its
// work grows steeply with the slack it must rule out, so its bound starts a
// little above the least cost proven and rises towards the plan's own cost
// (a hair above it, so that a plan of the class at that cost is found too;
// the plan itself may come from outside the class, dtr's). A search that ends
// without a plan proves that nothing of the class costs less than the least
// it cut, and the next starts from there; the first plan found is the least.
// Returns whether it proved the least.
bool proveByStageSearch(const Model &model, BudgetUnit unit, std::int64_t budget, std::int64_t work,
                        const GraphExactOptions &options, GraphExactPlan &plan) {
    if (work <= 0 || model.layers() > kMaxStageSearchLayers)
        return false;
    double first = 0;
    for (int p = 1; p < model.nodeCount(); ++p)
        first += model.cost(static_cast<NodeId>(p));
    const double tolerance = 1e-9 * std::max(1.0, plan.cost);
    const double most = plan.cost - first + 100 * tolerance;
    double least = std::max(0.0, plan.lowerBound - first);
    double fraction = 1 / kSearchSteps;
    const auto next = [&] { return std::min(most, least + fraction * (most - least)); };
    std::int64_t left = work;
    for (double bound = next();; bound = next()) {
        const StageSearchResult s =
            searchGraphStages(model, unit, budget, bound, left, options.callbacks.cancelled, options.searchThreads);
        plan.searchWork += s.work;
        left -= s.work;
        // A search that took little of the work left says the bound may
        // rise faster; one that took much, that the plans lie close above.
        if (s.work * static_cast<std::int64_t>(kSearchSteps) < left)
            fraction = std::min(1.0, 2 * fraction);
        if (!s.complete)
            return false; // out of work
        if (!s.found) {
            if (bound >= most)
                return false; // every plan of the class costs more than one from outside it
            // No plan of the class costs less than what it cut: a lower
            // bound for the class, and for the plan where the plan is of it.
            least = std::max(least, s.leastCost);
            if (first + least - tolerance > plan.cost)
                return false; // the class costs more than the plan from outside it
            plan.lowerBound = std::max(plan.lowerBound, first + least - tolerance);
            if (left <= 0)
                return false;
            continue;
        }
        const Summary found = count(model, s.computes);
        if (peakIn(unit, found) > budget || found.cost > plan.cost + tolerance)
            return false;
        if (found.cost < plan.cost - tolerance) {
            plan.computes = s.computes;
            plan.peak = peakIn(unit, found);
            plan.cost = found.cost;
            plan.source = "stage search";
        }
        plan.lowerBound = plan.cost;
        plan.optimal = plan.provenBySearch = true;
        return true;
    }
}

} // namespace

std::int64_t defaultGraphEffort(const Model &model) {
    return model.layers() <= 12 ? 1000 : model.layers() <= 24 ? 50 : 10;
}

std::string GraphExactPlan::proof() const {
    if (optimal)
        return "optimal (gap 0)";
    if (lowerBound <= 0)
        return "no bound proven";
    char buf[96];
    const double gap = 100.0 * (cost - lowerBound) / lowerBound;
    std::snprintf(
        buf, sizeof buf,
        // A gap too small for two decimals is written with its exponent, not as 0.0000 %.
        gap < 0.01 ? "within %.1e %% of the least (proven bound)" : "within %.2f %% of the least (proven bound)", gap);
    return buf;
}

GraphExactPlan planGraphExact(const Model &model, BudgetUnit unit, std::int64_t budget,
                              const GraphExactOptions &options) {
    if (unit == BudgetUnit::Slots)
        throw InvalidArgument("--slots applies to chains; give this graph's budget in bytes or nodes");
    solver::MilpOptions o = solverOptions(model, options);
    if (options.searchWork && (*options.searchWork < 0 || *options.searchWork > kMaxStageSearchWork))
        throw InvalidArgument("the exact stage search's work must be 0 to " + std::to_string(kMaxStageSearchWork) +
                              " stage layouts, got " + std::to_string(*options.searchWork));
    GraphExactPlan plan;
    // Store-all computes every node once: no schedule costs less.
    const std::vector<Op> storeAll = computeOps(model, storeAllOrder(model));
    const Summary storeAllSummary = count(model, storeAll);
    if (peakIn(unit, storeAllSummary) <= budget) {
        plan.computes = storeAll;
        plan.peak = peakIn(unit, storeAllSummary);
        plan.cost = plan.lowerBound = storeAllSummary.cost;
        plan.optimal = plan.storeAll = true;
        plan.source = "store-all";
        return plan;
    }
    std::vector<Known> known = knownPlans(model, unit, budget, options);
    std::erase_if(known, [&](const Known &k) { return peakIn(unit, k.summary) > budget; });
    std::stable_sort(known.begin(), known.end(),
                     [](const Known &a, const Known &b) { return a.summary.cost < b.summary.cost; });
    // Where the stage search ends it proves the least in a fraction of the
    // solver's time: half its work first, from the cheapest known plan; the
    // solver only where it stops, and the rest of the work after it, from the
    // solver's plan and bound, which narrow it.
    const std::int64_t searchWork = options.searchWork.value_or(kDefaultStageSearchWork);
    double searchedBound = 0; // proven for the class by the search
    if (!known.empty()) {
        GraphExactPlan quick = plan;
        quick.computes = known.front().computes;
        quick.peak = peakIn(unit, known.front().summary);
        quick.cost = known.front().summary.cost;
        quick.source = known.front().source;
        if (proveByStageSearch(model, unit, budget, searchWork / 2, options, quick))
            return quick;
        plan.searchWork = quick.searchWork;
        searchedBound = quick.lowerBound;
    }

    solver::MilpResult r;
    r.status = solver::MilpResult::Status::Unknown;
    std::optional<GraphMilp> milp;
    if (model.layers() <= kMaxGraphMilpLayers) {
        milp.emplace(model, unit, budget);
        plan.columns = milp->problem().columns();
        plan.rows = milp->problem().rows();
        plan.integerColumns = milp->problem().integerColumns();
        for (const Known &k : known) {
            Schedule s;
            s.ops = k.computes;
            if (auto x = milp->encode(s)) {
                o.starts.assign(1, std::move(*x)); // the cheapest known plan of the class
                break;
            }
        }
        r = solver::solveMilp(milp->problem(), o);
        plan.nodes = r.nodes;
        if (r.status == solver::MilpResult::Status::Optimal || r.status == solver::MilpResult::Status::Feasible) {
            Known k{milp->computes(r.x), "solver", {}};
            k.summary = count(model, k.computes);
            // Counted again in whole bytes: a plan that the solver's tolerance
            // let past the budget by a few bytes is not taken.
            if (peakIn(unit, k.summary) <= budget)
                known.insert(known.begin(), std::move(k));
        }
    }
    bool searched = false;
    if (known.empty() && r.status != solver::MilpResult::Status::Infeasible &&
        model.layers() <= kMaxStageSearchLayers && searchWork > 0) {
        // Neither the solver nor any known plan fits: the stage search may,
        // with nothing to bound it but its work.
        const StageSearchResult s = searchGraphStages(model, unit, budget, std::numeric_limits<double>::infinity(),
                                                      searchWork, options.callbacks.cancelled,
                                                      options.searchThreads);
        plan.searchWork += s.work;
        if (s.found) {
            Known k{s.computes, "stage search", count(model, s.computes)};
            if (peakIn(unit, k.summary) <= budget) {
                known.push_back(std::move(k));
                searched = s.complete;
            }
        }
    }
    if (known.empty()) {
        std::string least;
        if (r.status == solver::MilpResult::Status::Infeasible || !milp) {
            const GraphMinimum m = minimumGraphPeak(model, unit, options);
            least = "; the least peak of a plan is " + amountText(unit, m.peak) +
                    (m.proven ? " (proven minimum)"
                              : ", and no schedule peaks below " + amountText(unit, m.lowerBound) +
                                    " (its largest op with what that op reads)");
        }
        throw InvalidArgument("budget " + amountText(unit, budget) + " is below every plan the graph planner finds" +
                              least);
    }
    const auto best = std::min_element(known.begin(), known.end(),
                                       [](const Known &a, const Known &b) { return a.summary.cost < b.summary.cost; });
    plan.computes = best->computes;
    plan.peak = peakIn(unit, best->summary);
    plan.cost = best->summary.cost;
    plan.source = best->source;
    // The bounds hold for every plan of the class; a plan from outside it
    // that is cheaper still (dtr computes in its own order) has none.
    double bound = searchedBound;
    if (milp && r.status != solver::MilpResult::Status::Infeasible)
        bound = std::max(bound, milp->firstComputationCost() + r.bound);
    if (bound > 0 && plan.cost >= bound - 1e-9 * std::max(1.0, plan.cost))
        plan.lowerBound = std::min(plan.cost, bound);
    plan.optimal = plan.lowerBound > 0 && plan.cost - plan.lowerBound <= 1e-9 * std::max(1.0, plan.cost);
    if (searched) { // the stage search's plan, the least of the class
        plan.lowerBound = plan.cost;
        plan.optimal = plan.provenBySearch = true;
    }
    // The rest of the work after the solver, from its plan and bound.
    if (!plan.optimal && !searched)
        proveByStageSearch(model, unit, budget, searchWork - plan.searchWork, options, plan);
    return plan;
}

GraphMinimum minimumGraphPeak(const Model &model, BudgetUnit unit, const GraphExactOptions &options) {
    solver::MilpOptions o = solverOptions(model, options);
    Schedule recomputeAll;
    recomputeAll.ops = computeOps(model, recomputeAllOrder(model));
    GraphMinimum least;
    least.peak = peakIn(unit, count(model, recomputeAll.ops));
    if (model.layers() <= kMaxGraphMilpLayers) {
        const GraphMilp milp(model, unit, 0, true);
        // Every plan of the class is feasible here: start from recompute-all.
        if (auto x = milp.encode(recomputeAll))
            o.starts.assign(1, std::move(*x));
        const solver::MilpResult r = solver::solveMilp(milp.problem(), o);
        if (r.status == solver::MilpResult::Status::Optimal || r.status == solver::MilpResult::Status::Feasible)
            least.peak = std::min(least.peak, peakIn(unit, count(model, milp.computes(r.x))));
        const double bound = r.bound * milp.scale();
        least.classBound = std::clamp<std::int64_t>(
            static_cast<std::int64_t>(std::ceil(bound - 1e-6 * std::max(1.0, bound))), 0, least.peak);
        if (r.status == solver::MilpResult::Status::Optimal)
            least.classBound = least.peak;
    }
    // dtr computes in its own order, outside the class: at its least budget it may peak lower still.
    const bool nodes = unit == BudgetUnit::Nodes;
    least.lowerBound = dtrMinimumBudget(model, nodes);
    // Where dtr runs is not monotone in the budget: bisect for a low one, keeping every peak it reaches.
    auto dtrRuns = [&](std::int64_t budget) {
        bool ran = false;
        for (DtrHeuristic h : {DtrHeuristic::Dtr, DtrHeuristic::CostPerByte, DtrHeuristic::NextUse})
            try {
                const DtrRun run = runDtr(model, DtrBudget{nodes, budget}, h, Strategy::kMaxOps);
                least.peak = std::min(least.peak, peakIn(unit, count(model, computesOf(run.ops))));
                ran = true;
            } catch (const InvalidArgument &) {
            } catch (const LimitExceeded &) {
            }
        return ran;
    };
    std::int64_t low = least.lowerBound, high = least.peak;
    if (!dtrRuns(low))
        for (int step = 0; step < 16 && high - low > 1; ++step) {
            const std::int64_t mid = low + (high - low) / 2;
            (dtrRuns(mid) ? high : low) = mid;
        }
    least.lowerBound = std::min(least.lowerBound, least.peak);
    least.proven = least.peak == least.lowerBound;
    return least;
}

} // namespace remat::planners
