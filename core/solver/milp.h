#pragma once
// A mixed-integer linear program and the one call that solves it. The exact
// planners build their problems here and never see the solver behind it
// (CBC, core/solver/milp_cbc.cpp), so another solver is one file.
//
// The search is bounded by work, not by the clock: `maxNodes` branch-and-bound
// nodes of a single-threaded solver, so the same problem gives the same answer
// on every machine.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace remat::solver {

struct LinearTerm {
    int column;
    double coefficient;
};

class MilpProblem {
public:
    // Returns the new column's index.
    int addColumn(double lower, double upper, double objective, bool integer);
    int addBinary(double objective = 0) { return addColumn(0, 1, objective, true); }
    // lower <= sum(terms) <= upper; +-infinity for a side without bound.
    void addRow(std::vector<LinearTerm> terms, double lower, double upper);

    int columns() const { return static_cast<int>(lower_.size()); }
    int rows() const { return static_cast<int>(rowLower_.size()); }
    int integerColumns() const;
    std::int64_t nonzeros() const { return static_cast<std::int64_t>(rowColumns_.size()); }

    // Read by the solver backends.
    const std::vector<double> &columnLower() const { return lower_; }
    const std::vector<double> &columnUpper() const { return upper_; }
    const std::vector<double> &objective() const { return objective_; }
    const std::vector<char> &isInteger() const { return integer_; }
    const std::vector<double> &rowLower() const { return rowLower_; }
    const std::vector<double> &rowUpper() const { return rowUpper_; }
    const std::vector<std::int64_t> &rowStarts() const { return rowStarts_; }
    const std::vector<int> &rowColumns() const { return rowColumns_; }
    const std::vector<double> &rowCoefficients() const { return rowCoefficients_; }

private:
    std::vector<double> lower_, upper_, objective_;
    std::vector<char> integer_;
    std::vector<double> rowLower_, rowUpper_;
    std::vector<std::int64_t> rowStarts_{0};
    std::vector<int> rowColumns_;
    std::vector<double> rowCoefficients_;
};

struct MilpOptions {
    std::int64_t maxNodes = 20'000; // branch-and-bound nodes: the work bound
    // Known solutions (one value per column; the integer ones are used, the
    // others recomputed): the search starts from the best that is feasible.
    std::vector<std::vector<double>> starts;
    std::function<bool()> cancelled; // polled between nodes; true stops with Cancelled
    // The solver's cutting planes: they close the op-level problems' gaps
    // (knapsack-like rows), and cost time for nothing on the graph MILP's.
    bool cuts = false;
    // Strong branching (CBC's default: LP solves of a few candidates at every
    // node): off for the graph MILP, where it tripled the time of its
    // 10-node searches and changed no plan and no bound (docs/planners.md).
    bool strongBranching = true;
    // CBC's preprocessing (probing, fixing, tightened rows) before the
    // search: a different search, which proves some op-level budgets the
    // plain one leaves open and leaves open others it proves
    // (docs/planners.md): the op-level planner runs it second, where the
    // first search left a gap.
    bool preprocess = false;
};

struct MilpResult {
    enum class Status {
        Optimal,    // x is optimal: objective == bound
        Feasible,   // the work bound was reached: x is the best found, bound proves how far it can be
        Infeasible, // proven: no solution exists
        Unknown,    // the work bound was reached before any solution was found
    };
    Status status = Status::Unknown;
    std::vector<double> x;
    double objective = 0;   // of x (Optimal, Feasible)
    double bound = 0;       // proven lower bound on the optimum (minimization)
    std::int64_t nodes = 0; // branch-and-bound nodes taken
};

// Minimizes. Throws Cancelled when asked to stop, SolverError when the solver
// fails or was not built in.
MilpResult solveMilp(const MilpProblem &problem, const MilpOptions &options = {});

// False when remat was built without a MILP solver (CBC not found).
bool milpSolverAvailable();
// "CBC 2.10.8" or "none".
std::string milpSolverName();

} // namespace remat::solver
