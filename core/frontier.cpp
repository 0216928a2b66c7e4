#include "core/frontier.h"

#include "core/report.h"

#include <sstream>

#include "core/errors.h"
#include "core/planners/chain_budget.h"
#include "core/planners/dag_plans.h"
#include "core/schedule_builder.h"
#include "core/simulator.h"
#include "core/strategy_registry.h"

#include <algorithm>
#include <limits>
#include <optional>

namespace remat {

namespace {

struct Counted {
    std::int64_t peakBytes = 0;
    std::int64_t peakSavedBytes = 0;
    double cost = 0;
};

Counted count(const Model &model, const Schedule &schedule) {
    const Summary s = Simulator::summarize(model, schedule);
    return {s.peakBytes, s.peakSavedBytes, s.cost};
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

void addNamed(std::vector<NamedPoint> &named, const Model &model, std::string label, const std::string &strategy,
              std::string options, StrategyParams params) {
    NamedPoint p;
    p.label = std::move(label);
    p.strategy = strategy;
    p.options = std::move(options);
    p.schedule = StrategyRegistry::builtin().get(strategy).makeSchedule(model, params);
    p.params = std::move(params);
    const Counted c = count(model, p.schedule);
    p.peakBytes = c.peakBytes;
    p.peakSavedBytes = c.peakSavedBytes;
    p.cost = c.cost;
    named.push_back(std::move(p));
}

std::vector<NamedPoint> namedPoints(const Model &model) {
    std::vector<NamedPoint> named;
    addNamed(named, model, "store-all", "store-all", "", {});
    addNamed(named, model, "recompute-all", "recompute-all", "", {});
    if (model.isChain()) {
        addNamed(named, model, "periodic", "periodic", "", {});
        addNamed(named, model, "revolve", "revolve", "", {});
        StrategyParams everyLayer;
        everyLayer.every = 1;
        addNamed(named, model, "per-layer checkpointing", "periodic", "--every 1", everyLayer);
    } else {
        addNamed(named, model, "auto", "auto", "", {});
    }
    if (auto selective = selectiveRecomputation(model)) {
        NamedPoint p;
        p.label = "selective (attention core)";
        p.strategy = "checkpoints";
        p.params.checkpoints = selective->checkpoints;
        const Counted c = count(model, *selective);
        p.peakBytes = c.peakBytes;
        p.peakSavedBytes = c.peakSavedBytes;
        p.cost = c.cost;
        p.schedule = std::move(*selective);
        named.push_back(std::move(p));
    }
    return named;
}

// The least budget worth asking the planner for.
std::int64_t lowestBudget(const Model &model, const std::vector<NamedPoint> &named) {
    std::int64_t lowest = std::numeric_limits<std::int64_t>::max();
    for (const auto &p : named)
        lowest = std::min(lowest, p.peakBytes);
    if (model.isChain())
        lowest = std::min(lowest, planners::minimumFeasibleBudget(model, planners::BudgetUnit::Bytes));
    return lowest;
}

// Sorted by peak, each point strictly cheaper than every point with less memory.
std::vector<FrontierPoint> paretoFront(std::vector<FrontierPoint> points) {
    std::stable_sort(points.begin(), points.end(), [](const FrontierPoint &x, const FrontierPoint &y) {
        return x.peakBytes != y.peakBytes ? x.peakBytes < y.peakBytes : x.cost < y.cost;
    });
    std::vector<FrontierPoint> front;
    for (auto &p : points)
        // Equal costs summed in another order differ in the last bits: not a step.
        if (front.empty() || p.cost < front.back().cost - 1e-9 * std::max(1.0, front.back().cost))
            front.push_back(std::move(p));
    return front;
}

} // namespace

Frontier computeFrontier(const Model &model, const FrontierOptions &options) {
    if (options.samples < 2)
        throw InvalidArgument("the trade-off curve needs at least 2 budgets, got " + std::to_string(options.samples));
    Frontier frontier;
    const std::vector<NamedPoint> named = namedPoints(model);
    frontier.storeAllBytes = named.front().peakBytes;
    frontier.storeAllCost = named.front().cost;

    std::vector<FrontierPoint> candidates;
    for (const auto &p : named)
        candidates.push_back({0, p.label, p.peakBytes, p.peakSavedBytes, p.cost, p.schedule.description});

    const std::int64_t low = lowestBudget(model, named), high = frontier.storeAllBytes;
    const Strategy &budget = StrategyRegistry::builtin().get("budget");
    for (int k = 0; k < options.samples; ++k) {
        if (options.cancelled && options.cancelled())
            throw Cancelled();
        StrategyParams params;
        params.budgetBytes = low + static_cast<std::int64_t>(double(high - low) * k / (options.samples - 1));
        params.memorySteps = options.memorySteps;
        params.cancelled = options.cancelled;
        if (options.progress)
            params.progress = [&options, k](double f) { options.progress((k + f) / options.samples); };
        try {
            const Schedule s = budget.makeSchedule(model, params);
            const Counted c = count(model, s);
            candidates.push_back({*params.budgetBytes, {}, c.peakBytes, c.peakSavedBytes, c.cost, s.description});
        } catch (const InvalidArgument &) {
            // Below what the planner can fit (or within its rounding): the next budget is larger.
        }
        if (options.progress)
            options.progress(double(k + 1) / options.samples);
    }
    frontier.curve = paretoFront(std::move(candidates));
    frontier.minimumBytes = frontier.curve.front().peakBytes;
    if (options.namedPoints)
        frontier.named = named;
    return frontier;
}

double frontierCostAt(const Frontier &frontier, std::int64_t peakBytes) {
    double best = std::numeric_limits<double>::infinity();
    for (const auto &p : frontier.curve)
        if (p.peakBytes <= peakBytes)
            best = std::min(best, p.cost);
    return best;
}

std::string frontierCsv(const Frontier &f) {
    auto overhead = [&](double cost) { return f.storeAllCost > 0 ? cost / f.storeAllCost - 1 : 0.0; };
    std::ostringstream out;
    out << "kind,label,peak_bytes,peak_saved_bytes,cost,overhead_vs_store_all,budget_bytes\n";
    for (const auto &p : f.curve)
        out << "curve," << p.label << ',' << p.peakBytes << ',' << p.peakSavedBytes << ',' << numberText(p.cost) << ','
            << overhead(p.cost) << ',' << p.budgetBytes << '\n';
    for (const auto &p : f.named)
        out << "named," << p.label << ',' << p.peakBytes << ',' << p.peakSavedBytes << ',' << numberText(p.cost) << ','
            << overhead(p.cost) << ",0\n";
    return out.str();
}

} // namespace remat
