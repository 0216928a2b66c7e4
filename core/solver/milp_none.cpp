// solveMilp where remat was built without CBC: every exact planner that needs
// it says so instead of planning.
#include "core/solver/milp.h"

#include "core/errors.h"

namespace remat::solver {

MilpResult solveMilp(const MilpProblem &, const MilpOptions &) {
    throw SolverError("this remat was built without a MILP solver: install coinor-libcbc-dev (scripts/deps.sh) "
                      "and rebuild");
}

bool milpSolverAvailable() {
    return false;
}

std::string milpSolverName() {
    return "none";
}

} // namespace remat::solver
