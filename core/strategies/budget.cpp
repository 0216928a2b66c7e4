// budget: the least-cost schedule whose simulated peak fits a memory budget
// (--budget in bytes or nodes, or --slots). On chains by dynamic programming
// (core/planners/chain_budget.h): exact over all schedules where the tables
// stay small, otherwise optimal among keep-until-gradient schedules, and the
// schedule's description says which; on graphs with skip connections the
// graph MILP (core/planners/graph_exact.h), whose description says what it
// proved.
#include "core/errors.h"
#include "core/planners/chain_budget.h"
#include "core/planners/graph_exact.h"
#include "core/planners/graph_milp.h"
#include "core/units.h"
#include "core/schedule_builder.h"
#include "core/strategies/builtin.h"

namespace remat {

namespace {

std::string amountText(const planners::ChainBudget &budget) {
    return budget.unit == planners::BudgetUnit::Nodes ? std::to_string(budget.amount) + " nodes"
                                                      : formatBytes(budget.amount);
}

// What the plan is and what was proven of it, for tables and the studio.
std::string graphDescription(const planners::ChainBudget &budget, const planners::GraphExactPlan &plan) {
    if (plan.storeAll)
        return "budget " + amountText(budget) + ": store-all fits, the least compute (every node once)";
    if (plan.provenBySearch && plan.columns == 0)
        return "budget " + amountText(budget) + ", graph planner: " + plan.proof() + ", proven by the exact stage search (" +
               std::to_string(plan.searchWork) + " stage layouts)" +
               (plan.source == "stage search" ? std::string() : "; the plan is " + plan.source + "'s");
    if (plan.columns == 0)
        return "budget " + amountText(budget) + ": " + plan.source + "'s plan, the cheapest known; no bound proven (the "
               "MILP takes graphs of up to " + std::to_string(planners::kMaxGraphMilpLayers) + " layers)";
    std::string text = "budget " + amountText(budget) + ", graph MILP: " + plan.proof();
    if (plan.provenBySearch)
        text = "budget " + amountText(budget) + ", graph planner: " + plan.proof() + ", proven by the exact stage search (" +
               std::to_string(plan.searchWork) + " stage layouts) where the MILP left a gap";
    else if (plan.searchWork > 0 && !plan.optimal)
        // The bound is the higher of the MILP's and what the search proved before it stopped.
        text = "budget " + amountText(budget) + ", graph planner: " + plan.proof() +
               ", by the MILP and the exact stage search, which stopped at its work bound (" +
               std::to_string(plan.searchWork) + " stage layouts)";
    if (plan.source != "solver" && plan.source != "stage search")
        text += "; the plan is " + plan.source + "'s";
    return text + " (" + std::to_string(plan.nodes) + " branch-and-bound nodes; MILP of " +
           std::to_string(plan.columns) + " columns, " + std::to_string(plan.integerColumns) + " integer, " +
           std::to_string(plan.rows) + " rows)";
}

class BudgetStrategy final : public Strategy {
public:
    std::string_view name() const override { return "budget"; }
    std::string_view summary() const override {
        return "the least compute within a memory budget (--budget 2GiB or --budget 12 nodes, or --slots C): "
               "exact on short chains, best keep-until-gradient plan on long ones, on graphs a MILP that proves "
               "its gap";
    }
    std::string_view memoryClass() const override { return "<= budget"; }
    std::string_view computeClass() const override { return "least, or a proven gap"; }
    bool runsWithDefaults() const override { return false; }
    bool worksOnGraphs() const override { return true; }

    OpEstimate countOps(const Model &model, const StrategyParams &) const override {
        // Never worse than recompute-all, which fits the smallest budgets.
        const double n = model.layers();
        const double f = n * (n + 1) / 2;
        return {f, n + 1, 2 * (f + n + 1), "at most n(n+1)/2"};
    }

protected:
    void validate(const Model &model, const StrategyParams &params) const override {
        rejectUnused(params, false, false, true, true);
        const int given =
            (params.budgetBytes ? 1 : 0) + (params.budgetNodes ? 1 : 0) + (params.checkpointSlots ? 1 : 0);
        if (given == 0)
            throw InvalidArgument("budget needs a memory budget: --budget 2GiB (bytes), --budget 12 (nodes) or "
                                  "--slots C");
        if (given > 1)
            throw InvalidArgument("budget takes one of --budget in bytes, --budget in nodes or --slots, not several");
        if (params.effort && model.isChain())
            throw InvalidArgument("--effort applies to graphs; a chain is planned by dynamic programming, which "
                                  "needs no bound on its work");
        if (params.checkpointSlots && *params.checkpointSlots < 1)
            throw InvalidArgument("--slots must be at least 1 (a_0 always takes one slot), got " +
                                  std::to_string(*params.checkpointSlots));
    }

    Schedule plan(const Model &model, const StrategyParams &params) const override {
        planners::ChainBudget budget;
        if (params.budgetBytes) {
            budget.unit = planners::BudgetUnit::Bytes;
            budget.amount = *params.budgetBytes;
        } else if (params.budgetNodes) {
            budget.unit = planners::BudgetUnit::Nodes;
            budget.amount = *params.budgetNodes;
        } else {
            budget.unit = planners::BudgetUnit::Slots;
            budget.amount = *params.checkpointSlots;
        }
        if (params.memorySteps)
            budget.memorySteps = *params.memorySteps;
        const planners::PlanCallbacks callbacks{params.progress, params.cancelled};
        Schedule s;
        if (model.isChain()) {
            planners::ChainPlan plan = planners::planChainBudget(model, budget, callbacks);
            s.description = std::move(plan.description);
            s.ops = plan.computes.empty() ? insertFrees(model, plan.order, lastCheckpoint(plan.checkpoints))
                                          : insertFrees(model, plan.computes);
        } else {
            planners::GraphExactOptions options;
            options.callbacks = callbacks;
            if (params.effort)
                options.effort = *params.effort;
            options.searchWork = params.searchWork;
            options.searchThreads = params.searchThreads;
            const planners::GraphExactPlan plan = planners::planGraphExact(model, budget.unit, budget.amount, options);
            s.description = graphDescription(budget, plan);
            s.ops = insertFrees(model, plan.computes);
        }
        // Ring and list only what the plan keeps from the forward pass into the
        // backward pass, not every node it stores at some point.
        s.checkpoints = keptIntoBackward(model, s.ops);
        return s;
    }
};

} // namespace

std::unique_ptr<Strategy> makeBudgetStrategy() {
    return std::make_unique<BudgetStrategy>();
}

} // namespace remat
