#pragma once
// The op-level plans (op_plan.h) as one MILP over the whole model, for blocks
// too large for the op-level search's enumeration (docs/planners.md, "Op
// level: beyond enumeration").
//
// Why it is small and exact: an op-level plan's compute order is fixed up to
// which nodes are re-run. Every forward node runs once in the forward pass;
// each block's re-runs sit at one place of the backward pass, whatever is
// kept. So the schedule is a fixed list of slots, the re-run slot of node j
// present exactly when j is re-run (r_j = 1), and every tensor (a node's
// output, its saved internals, a gradient) lives from the slot that makes it
// to the last present slot that reads that copy, as insertFrees frees it.
// Whether a copy is alive at a slot is an OR of ANDs of at most three of
// those literals; a z >= each AND says so exactly at every integer point,
// since nothing but the budget rows pushes z up (z is declared binary all the
// same: CBC's cuts then see memory rows over binaries alone). The memory at every
// slot is then linear, the simulator's count (outputs resident, internals
// held, the op's workspace), and the objective is the re-run cost.
#include "core/model.h"
#include "core/op_plan.h"
#include "core/solver/milp.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace remat::planners {

class OpMilp {
public:
    // Minimize the re-run cost within `budgetBytes`, or, with `minimizePeak`,
    // the peak (the budget ignored).
    OpMilp(const Model &model, const OpGraph &graph, std::int64_t budgetBytes, bool minimizePeak = false);

    const solver::MilpProblem &problem() const { return problem_; }
    // The plan a solution describes.
    KeepSet keepSet(const std::vector<double> &x) const;
    // A plan as a solution (its integer columns; the rest at their least).
    std::vector<double> encode(const KeepSet &keep) const;
    // The peak the problem's rows give a plan, in bytes: equal to the
    // simulator's count of opSchedule (tested), the model's correctness.
    std::int64_t peakOf(const KeepSet &keep) const;
    double scale() const { return scale_; }
    // A slot's memory exceeds the budget whatever is re-run.
    bool infeasible() const { return infeasible_; }

private:
    // A literal: column `column` (or always true at kTrue), negated or not.
    struct Literal {
        int column;
        bool negated;
    };
    static constexpr int kTrue = -1;
    struct Row {
        std::vector<solver::LinearTerm> terms;
        double constant = 0;
    };
    void build(std::int64_t budgetBytes, bool minimizePeak);
    std::vector<double> complete(std::vector<double> x) const;

    const Model &model_;
    const OpGraph &graph_;
    double scale_ = 1;
    bool infeasible_ = false;
    std::vector<int> rerun_;       // by forward index: r_j's column, or -1 (always kept)
    std::vector<int> groupColumn_; // by group: "the block is checkpointed", or -1
    // z columns in creation order with the ANDs each must cover (a z may also
    // cover an earlier z: a column index in `covers`).
    struct Cover {
        int column;
        std::vector<std::vector<Literal>> ands;
        std::vector<int> covers;
    };
    std::vector<Cover> covers_;
    std::vector<Row> memory_; // one per slot: bytes / scale_ = constant + terms
    solver::MilpProblem problem_;
};

struct OpMilpOptions {
    std::int64_t effort = 1000; // branch-and-bound nodes of the first two searches (the third: four times)
    std::vector<KeepSet> starts;
    std::function<bool()> cancelled;
    // A plan's searches at most (planOpMilp): CBC's plain one; with CBC's
    // preprocessing where it leaves a gap; with four times the nodes where
    // more than 1 % is still open.
    int searches = 3;
};

struct OpMilpPlan {
    KeepSet keep;
    double recomputeCost = 0;
    std::int64_t peakBytes = 0; // the simulator's
    double lowerBound = 0;      // proven: no op-level plan within the budget re-runs less
    bool optimal = false;
    std::int64_t nodes = 0;
    int columns = 0, rows = 0;
};

struct OpMilpMinimum {
    KeepSet keep;
    std::int64_t peakBytes = 0;  // the simulator's count of that plan
    std::int64_t lowerBound = 0; // proven: no op-level plan peaks lower
    bool optimal = false;
    std::int64_t nodes = 0;
};

// The least peak of an op-level plan, started from `options.starts`.
OpMilpMinimum minimumOpMilpPeak(const Model &model, const OpGraph &graph, const OpMilpOptions &options = {});

// The least re-run cost of an op-level plan within the budget, or the best
// found with its proven bound; nullopt when the solver proves no plan fits or
// finds none within the effort (and no start fits). Throws SolverError,
// Cancelled.
std::optional<OpMilpPlan> planOpMilp(const Model &model, const OpGraph &graph, std::int64_t budgetBytes,
                                     const OpMilpOptions &options = {});

} // namespace remat::planners
