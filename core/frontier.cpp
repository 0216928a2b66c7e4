#include "core/frontier.h"

#include "core/report.h"

#include <sstream>

#include "core/budget_sweep.h"
#include "core/errors.h"
#include "core/planners/chain_budget.h"
#include "core/planners/dag_plans.h"
#include "core/planners/dtr_runtime.h"
#include "core/planners/graph_exact.h"
#include "core/schedule_builder.h"
#include "core/simulator.h"
#include "core/strategy_registry.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace remat {

namespace {

// The simulator's figures of a schedule; timed on `clock` when given.
Summary count(const Model &model, const Schedule &schedule, const std::optional<Machine> &clock) {
    return clock ? Simulator::summarize(model, schedule, *clock) : Simulator::summarize(model, schedule);
}

// The counts FrontierPoint and NamedPoint share, from the simulator's summary.
template <class Point> void setCounts(Point &p, const Summary &s) {
    p.peakBytes = s.peakBytes;
    p.peakSavedBytes = s.peakSavedBytes;
    p.cost = s.cost;
    p.makespanSeconds = s.makespanSeconds;
    p.stallSeconds = s.stallSeconds;
    p.peakHostBytes = s.peakHostBytes;
    p.transferBytes = s.transferBytes;
    p.offloads = s.offloads;
}

FrontierPoint pointOf(std::int64_t budgetBytes, std::string label, const Summary &s, std::string description) {
    FrontierPoint p;
    p.budgetBytes = budgetBytes;
    p.label = std::move(label);
    p.description = std::move(description);
    setCounts(p, s);
    return p;
}

bool isAttentionCore(const std::string &label) {
    return label.find("scores") != std::string::npos || label.find("softmax") != std::string::npos;
}

// Megatron-style selective recomputation (Korthikanti et al. 2022, sec. 5):
// every node is kept from the forward pass but the attention core (nodes
// labelled "scores" or "softmax"), which is recomputed before its backward.
// Kept layers record on their only run; the core records on its re-run.
// Empty when the model has no attention core or nothing else to keep.
std::optional<Schedule> selectiveRecomputation(const Model &model) {
    std::vector<int> kept;
    bool hasCore = false;
    for (int i = 1; i < model.layers(); ++i) {
        if (isAttentionCore(model.label(i)))
            hasCore = true;
        else
            kept.push_back(i);
    }
    if (!hasCore)
        return std::nullopt;
    const std::vector<NodeId> order = planners::segmentOrder(model, kept);
    // The last run of each forward layer before its backward is the one that records.
    std::vector<std::size_t> lastRun(static_cast<std::size_t>(model.forwardCount()), order.size());
    for (std::size_t k = 0; k < order.size(); ++k)
        if (!model.isBackward(order[k]))
            lastRun[model.indexOf(order[k])] = k;
    std::vector<Op> computes;
    computes.reserve(order.size());
    for (std::size_t k = 0; k < order.size(); ++k) {
        const NodeId id = order[k];
        const bool records =
            !model.isBackward(id) && model.savedBytes(model.indexOf(id)) > 0 && lastRun[model.indexOf(id)] == k;
        computes.push_back(records ? Op::record(id) : Op::compute(id));
    }
    Schedule s;
    s.strategy = "checkpoints";
    s.description = "selective recomputation: keep everything but the attention core";
    s.ops = insertFrees(model, computes);
    s.checkpoints = keptIntoBackward(model, s.ops);
    return s;
}

void addNamed(std::vector<NamedPoint> &named, const Model &model, const std::optional<Machine> &clock,
              std::string label, const std::string &strategy, std::string options, StrategyParams params) {
    NamedPoint p;
    p.label = std::move(label);
    p.strategy = strategy;
    p.options = std::move(options);
    p.schedule = StrategyRegistry::builtin().get(strategy).makeSchedule(model, params);
    p.params = std::move(params);
    setCounts(p, count(model, p.schedule, clock));
    named.push_back(std::move(p));
}

std::vector<NamedPoint> namedPoints(const Model &model, const std::optional<Machine> &clock) {
    std::vector<NamedPoint> named;
    addNamed(named, model, clock, "store-all", "store-all", "", {});
    addNamed(named, model, clock, "recompute-all", "recompute-all", "", {});
    if (model.isChain()) {
        addNamed(named, model, clock, "periodic", "periodic", "", {});
        addNamed(named, model, clock, "revolve", "revolve", "", {});
        StrategyParams everyLayer;
        everyLayer.every = 1;
        addNamed(named, model, clock, "per-layer checkpointing", "periodic", "--every 1", everyLayer);
    } else {
        addNamed(named, model, clock, "auto", "auto", "", {});
    }
    if (auto selective = selectiveRecomputation(model)) {
        NamedPoint p;
        p.label = "selective (attention core)";
        p.strategy = "checkpoints";
        p.params.checkpoints = selective->checkpoints;
        setCounts(p, count(model, *selective, clock));
        p.schedule = std::move(*selective);
        named.push_back(std::move(p));
    }
    if (clock && clock->link.carries()) {
        StrategyParams linked;
        linked.machine = clock;
        addNamed(named, model, clock, "offload-all", "offload-all", "", linked);
    }
    return named;
}

// The least budget worth asking the planner for.
std::int64_t lowestBudget(const Model &model, const std::vector<NamedPoint> &named,
                          std::optional<std::int64_t> effort) {
    std::int64_t lowest = std::numeric_limits<std::int64_t>::max();
    for (const auto &p : named)
        lowest = std::min(lowest, p.peakBytes);
    if (model.isChain())
        lowest = std::min(lowest, planners::minimumFeasibleBudget(model, planners::BudgetUnit::Bytes));
    else {
        planners::GraphExactOptions graph;
        if (effort)
            graph.effort = *effort;
        lowest = std::min(lowest, planners::minimumGraphPeak(model, planners::BudgetUnit::Bytes, graph).peak);
    }
    return lowest;
}

// Sorted by peak, each point strictly below every point with less memory in
// `value` (the cost, or the makespan).
std::vector<FrontierPoint> paretoFront(std::vector<FrontierPoint> points, double FrontierPoint::*value) {
    std::stable_sort(points.begin(), points.end(), [value](const FrontierPoint &x, const FrontierPoint &y) {
        return x.peakBytes != y.peakBytes ? x.peakBytes < y.peakBytes : x.*value < y.*value;
    });
    std::vector<FrontierPoint> front;
    for (auto &p : points)
        // Equal sums added in another order differ in the last bits: not a step.
        if (front.empty() || p.*value < front.back().*value - 1e-9 * std::max(1.0, front.back().*value))
            front.push_back(std::move(p));
    return front;
}

double leastAt(const std::vector<FrontierPoint> &curve, std::int64_t peakBytes, double FrontierPoint::*value) {
    double best = std::numeric_limits<double>::infinity();
    for (const auto &p : curve)
        if (p.peakBytes <= peakBytes)
            best = std::min(best, p.*value);
    return best;
}

// dtr at the budgets the planner was asked for, from dtr's own minimum up.
std::vector<FrontierPoint> dtrPoints(const Model &model, const std::optional<Machine> &clock,
                                     std::vector<std::int64_t> budgets, std::int64_t dtrMinimum, std::int64_t high,
                                     const FrontierOptions &options) {
    budgets.push_back(dtrMinimum);
    std::sort(budgets.begin(), budgets.end());
    budgets.erase(std::unique(budgets.begin(), budgets.end()), budgets.end());
    const Strategy &dtr = StrategyRegistry::builtin().get("dtr");
    std::vector<FrontierPoint> points;
    for (std::int64_t budget : budgets) {
        if (budget < dtrMinimum || budget > high)
            continue;
        if (options.cancelled && options.cancelled())
            throw Cancelled();
        StrategyParams params;
        params.budgetBytes = budget;
        try {
            const Schedule s = dtr.makeSchedule(model, params);
            points.push_back(pointOf(budget, "dtr", count(model, s, clock), s.description));
        } catch (const LimitExceeded &) {
            // Too many recomputations at this budget to list: the larger budgets may still run.
        } catch (const InvalidArgument &) {
            // Out of memory with everything held in use (below dtrAssuredBudget): no point here.
        }
    }
    return points;
}

} // namespace

Frontier computeFrontier(const Model &model, const FrontierOptions &options) {
    if (options.samples < 2)
        throw InvalidArgument("the trade-off curve needs at least 2 budgets, got " + std::to_string(options.samples));
    Frontier frontier;
    // Timed on the link and the clock, the budgets being what is planned for.
    std::optional<Machine> clock = options.machine;
    if (clock) {
        clock->deviceBudgetBytes.reset();
        clock->hostBudgetBytes.reset();
        frontier.timed = true;
        frontier.secondsPerCost = clock->secondsPerCost;
    }
    const std::vector<NamedPoint> named = namedPoints(model, clock);
    frontier.storeAllBytes = named.front().peakBytes;
    frontier.storeAllCost = named.front().cost;

    // The cost curve is recomputation's: what moves to host is on the offload curve.
    std::vector<FrontierPoint> candidates, offloadCandidates;
    for (const auto &p : named) {
        FrontierPoint point = pointOf(0, p.label, count(model, p.schedule, clock), p.schedule.description);
        (p.strategy == "offload-all" ? offloadCandidates : candidates).push_back(std::move(point));
    }

    const std::int64_t low = lowestBudget(model, named, options.effort), high = frontier.storeAllBytes;
    const bool offloading = clock && clock->link.carries() && model.isChain();
    std::vector<SweepBudget> budgets;
    std::vector<std::int64_t> budgetsTried;
    for (int k = 0; k < options.samples; ++k) {
        const std::int64_t budget = low + static_cast<std::int64_t>(double(high - low) * k / (options.samples - 1));
        budgetsTried.push_back(budget);
        budgets.push_back({budget, false});
        if (offloading)
            budgets.push_back({budget, true});
    }
    if (options.dtr) {
        // The planner at dtr's least budget too, so that every dtr point has the planner's answer at its budget.
        frontier.dtrMinimumBytes = planners::dtrMinimumBudget(model, false);
        if (frontier.dtrMinimumBytes >= low && frontier.dtrMinimumBytes <= high)
            budgets.push_back({frontier.dtrMinimumBytes, false});
    }
    SweepOptions sweep;
    sweep.base.memorySteps = options.memorySteps;
    if (!model.isChain()) {
        sweep.base.effort = options.effort;
        sweep.base.searchWork = options.searchWork;
    }
    sweep.base.machine = clock;
    sweep.progress = options.progress;
    sweep.cancelled = options.cancelled;
    sweep.threads = options.threads;
    const std::vector<std::optional<Schedule>> plans = planBudgets(model, budgets, sweep);
    for (std::size_t i = 0; i < budgets.size(); ++i)
        if (plans[i])
            (budgets[i].offload ? offloadCandidates : candidates)
                .push_back(pointOf(budgets[i].bytes, {}, count(model, *plans[i], clock), plans[i]->description));
    frontier.curve = paretoFront(std::move(candidates), &FrontierPoint::cost);
    frontier.minimumBytes = frontier.curve.front().peakBytes;
    if (clock)
        frontier.offloadCurve = paretoFront(std::move(offloadCandidates), &FrontierPoint::makespanSeconds);
    if (options.namedPoints)
        frontier.named = named;
    if (options.dtr)
        frontier.dtrCurve = dtrPoints(model, clock, std::move(budgetsTried), frontier.dtrMinimumBytes, high, options);
    return frontier;
}

double offloadMakespanAt(const Frontier &frontier, std::int64_t peakBytes) {
    return leastAt(frontier.offloadCurve, peakBytes, &FrontierPoint::makespanSeconds);
}

std::vector<double> dtrOverOptimal(const Frontier &frontier) {
    std::vector<double> ratios;
    for (const auto &p : frontier.dtrCurve) {
        const double least = frontierCostAt(frontier, p.budgetBytes);
        ratios.push_back(std::isfinite(least) ? p.cost / least : std::numeric_limits<double>::quiet_NaN());
    }
    return ratios;
}

double frontierCostAt(const Frontier &frontier, std::int64_t peakBytes) {
    return leastAt(frontier.curve, peakBytes, &FrontierPoint::cost);
}

std::string frontierCsv(const Frontier &f) {
    auto overhead = [&](double cost) { return f.storeAllCost > 0 ? cost / f.storeAllCost - 1 : 0.0; };
    std::ostringstream out;
    out << "kind,label,peak_bytes,peak_saved_bytes,cost,overhead_vs_store_all,budget_bytes";
    if (f.timed)
        out << ",makespan,stall_time,peak_host_bytes,transfer_bytes,offloads";
    out << '\n';
    // FrontierPoint and NamedPoint name their counts alike.
    auto line = [&](const char *kind, const auto &p, std::int64_t budgetBytes) {
        out << kind << ',' << p.label << ',' << p.peakBytes << ',' << p.peakSavedBytes << ',' << numberText(p.cost)
            << ',' << overhead(p.cost) << ',' << budgetBytes;
        if (f.timed)
            out << ',' << secondsText(p.makespanSeconds) << ',' << secondsText(p.stallSeconds) << ',' << p.peakHostBytes
                << ',' << p.transferBytes << ',' << p.offloads;
        out << '\n';
    };
    for (const auto &p : f.curve)
        line("curve", p, p.budgetBytes);
    for (const auto &p : f.named)
        line("named", p, 0);
    for (const auto &p : f.offloadCurve)
        line("offload", p, p.budgetBytes);
    for (const auto &p : f.dtrCurve)
        line("dtr", p, p.budgetBytes);
    return out.str();
}

} // namespace remat
