#include "core/exercise.h"

#include "core/errors.h"
#include "core/strategy_registry.h"
#include "core/units.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace remat {

namespace {

using planners::KeptSetUnit;

// Costs are sums of doubles in different orders: equal within this share.
constexpr double kCostTolerance = 1e-9;

bool cheaper(double cost, double than) {
    return cost < than - kCostTolerance * std::max(1.0, std::fabs(than));
}

// "12 %" from 10 up, "4.5 %" below, never "0 %" for a difference there is.
std::string percentText(double percent) {
    char buf[32];
    if (percent >= 9.95)
        std::snprintf(buf, sizeof buf, "%.0f %%", percent);
    else if (percent >= 0.05)
        std::snprintf(buf, sizeof buf, "%.1f %%", percent);
    else
        std::snprintf(buf, sizeof buf, "%.2f %%", percent);
    return buf;
}

std::string keptText(const std::vector<int> &kept) {
    if (kept.empty())
        return "no node";
    std::string out;
    for (int k : kept)
        out += (out.empty() ? "a_" : ", a_") + std::to_string(k);
    return out;
}

std::string sizeText(std::int64_t amount, KeptSetUnit unit) {
    return formatSize(amount, unit == KeptSetUnit::Nodes);
}

} // namespace

std::string budgetText(const ExerciseBudget &budget) {
    return sizeText(budget.amount, budget.unit);
}

std::int64_t peakIn(const Summary &summary, KeptSetUnit unit) {
    return unit == KeptSetUnit::Nodes ? summary.peakNodes : summary.peakBytes;
}

void requireGradableExercise(const Model &model, const ExerciseBudget &budget) {
    planners::requireKeptSetModel(model);
    const std::int64_t smallest = planners::smallestKeptSetBudget(model, budget.unit);
    if (budget.amount < smallest)
        throw InvalidArgument("no set of kept nodes fits a budget of " + budgetText(budget) +
                              "; the smallest budget a set fits is " + sizeText(smallest, budget.unit));
}

std::vector<int> checkedAnswer(const Model &model, const std::vector<int> &answer) {
    const int n = model.layers();
    std::vector<int> sorted;
    for (int node : answer) {
        if (node < 1 || node > n - 1)
            throw InvalidArgument("node " + std::to_string(node) + " cannot be kept: an answer keeps forward nodes 1 to " +
                                  std::to_string(n - 1) + " (a_0 is always kept, a_" + std::to_string(n) +
                                  " goes straight to the loss)");
        if (std::find(sorted.begin(), sorted.end(), node) != sorted.end())
            throw InvalidArgument("node " + std::to_string(node) + " is listed twice; list each kept node once");
        sorted.push_back(node);
    }
    std::sort(sorted.begin(), sorted.end());
    return sorted;
}

ExercisePlan keptSetPlan(const Model &model, const std::vector<int> &kept) {
    StrategyParams params;
    params.checkpoints = kept;
    ExercisePlan plan;
    plan.kept = kept;
    plan.schedule = StrategyRegistry::builtin().get("checkpoints").makeSchedule(model, params);
    plan.summary = Simulator::summarize(model, plan.schedule);
    return plan;
}

ExerciseGrade gradeExercise(const Model &model, const ExerciseBudget &budget, const std::vector<int> &answer) {
    requireGradableExercise(model, budget);
    ExerciseGrade grade;
    grade.answer = keptSetPlan(model, checkedAnswer(model, answer));
    const auto best = planners::bestKeptSet(model, budget.unit, budget.amount);
    if (!best) // requireGradableExercise found one
        throw InvalidArgument("no set of kept nodes fits a budget of " + budgetText(budget));
    grade.best = keptSetPlan(model, *best);
    const double bestCost = grade.best.summary.cost;
    if (peakIn(grade.answer.summary, budget.unit) > budget.amount)
        grade.verdict = Verdict::OverBudget;
    else
        grade.verdict = cheaper(bestCost, grade.answer.summary.cost) ? Verdict::Fits : Verdict::Best;
    grade.extraPercent = std::max(0.0, (grade.answer.summary.cost - bestCost) / bestCost * 100);

    StrategyParams params;
    (budget.unit == KeptSetUnit::Nodes ? params.budgetNodes : params.budgetBytes) = budget.amount;
    ExercisePlan general;
    general.schedule = StrategyRegistry::builtin().get("budget").makeSchedule(model, params);
    general.summary = Simulator::summarize(model, general.schedule);
    general.kept = general.schedule.checkpoints;
    if (peakIn(general.summary, budget.unit) <= budget.amount && cheaper(general.summary.cost, bestCost)) {
        grade.generalSavingPercent = (bestCost - general.summary.cost) / bestCost * 100;
        grade.general = std::move(general);
    }
    return grade;
}

std::string verdictText(const Model &model, const ExerciseBudget &budget, const ExerciseGrade &grade) {
    const Summary &answer = grade.answer.summary;
    const std::string peak = sizeText(peakIn(answer, budget.unit), budget.unit);
    std::string out;
    switch (grade.verdict) {
    case Verdict::OverBudget: {
        const std::int64_t step = answer.peakStep;
        const std::string where =
            step >= 0 ? "at op " + std::to_string(step + 1) + " (" +
                            describe(model, grade.answer.schedule.ops[static_cast<std::size_t>(step)]) + ")"
                      : "before the first op";
        return "Over the budget: keeping " + keptText(grade.answer.kept) + " peaks at " + peak + " " + where +
               "; the budget is " + budgetText(budget) + ".";
    }
    case Verdict::Fits:
        // No "best" in this line: scripts look for it (remat-studio --grade).
        out = "Fits (peak " + peak + " of " + budgetText(budget) + "), but computes +" +
              percentText(grade.extraPercent) + " more than the cheapest set of kept nodes that fits.";
        break;
    case Verdict::Best:
        out = "Best: it fits (peak " + peak + " of " + budgetText(budget) +
              ") and no set of kept nodes fits with less compute.";
        break;
    }
    if (grade.general)
        out += " A plan that re-takes checkpoints in the backward pass needs " +
               percentText(grade.generalSavingPercent) + " less.";
    return out;
}

} // namespace remat
