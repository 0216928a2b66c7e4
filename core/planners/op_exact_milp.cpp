// Where the op-level enumeration (op_exact.cpp) is not exact, each plan and
// the least peak are solved again by the op-level MILP (op_milp.h), started
// from the enumeration's plan and from the least-peak plan, and say what was
// proven (docs/planners.md, "Op level: beyond enumeration").
#include "core/planners/op_exact.h"
#include "core/planners/op_milp.h"
#include "core/units.h"
#include "core/solver/milp.h"

#include <cstdio>

namespace remat {

bool OpPlanner::solves() const {
    return !exact_ && solverEffort_ > 0 && solver::milpSolverAvailable();
}

std::int64_t OpPlanner::minimumPeakBytes() const {
    if (!minimum_) {
        const std::int64_t enumerated = enumeratedMinimumPeak();
        minimum_ = Minimum{enumerated, exact_, {}};
        if (solves()) {
            planners::OpMilpOptions o{solverEffort_, {}, cancelled_};
            const planners::OpMilpMinimum solved = planners::minimumOpMilpPeak(model_, graph_, o);
            // A proven least stands even above the enumeration's, which is
            // not exact here (its count may be off where blocks read tensors
            // from further back).
            if (solved.optimal || solved.peakBytes <= enumerated)
                minimum_ = Minimum{solved.peakBytes, solved.optimal, solved.keep};
        }
    }
    return minimum_->peak;
}

std::string OpPlanner::noPlanMessage(const std::string &budget) const {
    const std::string least = formatBytes(minimumPeakBytes());
    return minimumPeakProven() ? "--budget " + budget + " is below the least peak any op-level plan reaches, " + least
                               : "--budget " + budget + " is below the least peak of any op-level plan found, " +
                                     least + " (not proven the least: " + inexactReason_ + ")";
}

bool OpPlanner::minimumPeakProven() const {
    (void)minimumPeakBytes();
    return minimum_->proven;
}

std::optional<OpPlanResult> OpPlanner::plan(std::int64_t budgetBytes) const {
    std::optional<OpPlanResult> r = enumeratedPlan(budgetBytes);
    if (r && exact_)
        r->lowerBound = r->recomputeCost;
    if (!solves())
        return r;
    planners::OpMilpOptions o{solverEffort_, {}, cancelled_};
    if (r)
        o.starts.push_back(r->keep);
    // The least-peak plan fits every budget at or above its peak: a start
    // where the enumeration has none, so that no budget the planner calls
    // reachable is left without a plan when the search finds none in time.
    if (minimumPeakBytes() <= budgetBytes && !minimum_->keep.empty())
        o.starts.push_back(minimum_->keep);
    const auto solved = planners::planOpMilp(model_, graph_, budgetBytes, o);
    if (!solved)
        return std::nullopt;
    OpPlanResult out;
    out.keep = solved->keep;
    out.recomputeCost = solved->recomputeCost;
    out.predictedPeakBytes = solved->peakBytes;
    out.exact = solved->optimal;
    out.cutByClock = cutByClock_; // the clock narrowed the start the solver began from
    out.lowerBound = solved->lowerBound;
    out.solverNodes = solved->nodes;
    return out;
}

namespace {

// "within 0.42 %": the MILP's plan against its proven bound.
std::string withinText(const OpPlanResult &r) {
    char gap[64];
    std::snprintf(gap, sizeof gap, "within %.2f %%", 100 * (r.recomputeCost - r.lowerBound) / r.recomputeCost);
    return gap;
}

} // namespace

std::string OpPlanResult::verdict() const {
    if (exact)
        return solverNodes < 0 ? "exact (gap 0)" : "optimal (gap 0)";
    if (solverNodes >= 0 && lowerBound > 0)
        return withinText(*this);
    return solverNodes < 0 ? "not proven (gap not bounded)" : "no bound proven";
}

std::string OpPlanResult::proof(const std::string &inexactReason) const {
    if (solverNodes < 0)
        return exact ? "exact: every keep set of every block searched (gap 0)"
                     : "not proven optimal: " + inexactReason + " (gap not bounded)";
    const std::string work = " (op-level MILP, " + std::to_string(solverNodes) +
                             " branch-and-bound nodes, where the enumeration stops: " + inexactReason + ")";
    if (exact)
        return "optimal (gap 0)" + work;
    if (lowerBound > 0)
        return withinText(*this) + " of the least (proven bound)" + work;
    return "no bound proven" + work;
}

} // namespace remat
