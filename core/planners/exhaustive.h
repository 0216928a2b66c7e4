#pragma once
// Exhaustive search over every schedule of a small model: shortest path
// (A* on cost, with a lower bound that never overestimates) over the states "which nodes are resident, which
// gradients are done, which layers' saved internals are held", with every
// compute (discarding or recording), every free and free-saved the rules of
// docs/model.md allow and the simulator's memory rule (resident bytes, output
// included, plus the op's workspace) checked against the budget. It knows
// nothing of split plans or checkpoints, so it is the independent referee for
// the planners' optimality tests and for the DAG heuristic's gap.
#include "core/model.h"
#include "core/schedule.h"

#include <cstdint>
#include <optional>

namespace remat::planners {

// Largest model searched: 2 * forwardCount nodes must fit a 32-bit mask.
constexpr int kMaxExhaustiveForwardNodes = 12;

enum class Measure { Bytes, Nodes };

struct ExhaustiveResult {
    double cost = 0;
    Schedule schedule; // a cheapest schedule, frees included
};

// Which schedules are searched.
enum class ScheduleClass {
    All,
    // The exact graph planner's class (graph_milp.h): nodes first computed in
    // store-all's order, and between two first computations forward nodes
    // recomputed in increasing order, none while it is resident.
    StoreAllOrderStages,
};

// The cheapest schedule whose peak stays within `budget`, or nothing when no
// schedule fits. Throws LimitExceeded for models over the size limit.
std::optional<ExhaustiveResult> cheapestSchedule(const Model &model, std::int64_t budget,
                                                 Measure measure = Measure::Bytes,
                                                 ScheduleClass scheduleClass = ScheduleClass::All);

} // namespace remat::planners
