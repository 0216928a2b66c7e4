#pragma once
// Planning again where PyTorch's run of a plan is above the budget (block
// level: plan_command.cpp; op level: op_plan_command.cpp).
#include <algorithm>
#include <cstdint>

namespace remat::cli {

// The budget to plan within next: lower by the run's excess over `budget`,
// and at least below the plan's own peak, else the same plan comes back
// while its peak is lower than the budget planned within (on a traced tiny
// Llama: sixteen tries of one plan, then the least peak's at twice the re-run).
inline std::int64_t budgetBelowPlan(std::int64_t plannedWithin, std::int64_t planPeak, std::int64_t runPeak,
                                    std::int64_t budget) {
    return std::min(plannedWithin - (runPeak - budget), planPeak - 1);
}

} // namespace remat::cli
