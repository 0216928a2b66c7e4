#pragma once
// The exact graph planner's MILP (docs/planners.md, "Graphs: an exact MILP"):
// Checkmate's formulation (Jain et al., MLSys 2020) over remat's rules.
//
// Nodes a_0..a_n, b_n..b_0 in store-all's order, positions 0..V-1. Stage t
// (1..V-1) ends with the first and only computation of node t in that order:
// the search covers every schedule whose nodes are computed for the first
// time in store-all's order, any forward node computed again any number of
// times, in any stage, recording or discarding, freed right after its last
// read. On a chain that is every schedule; on a graph it is the class
// Checkmate plans over (with its topological order fixed to store-all's), and
// it holds every schedule remat's other planners make: dtr's and the segment
// plans compute nodes for the first time in that order too.
//
// Variables, for forward nodes only (a gradient is computed once, at its own
// stage, and held until its last reader: constants):
//   R[t][p]  compute a_p in stage t (in position order within the stage)
//   Rec[t][p] that computation records s_p (layers with saved internals)
//   S[t][p]  a_p resident when stage t starts;  H[t][p] s_p held then
//   F[t][p][k] a_p freed right after the stage's computation of node k
//   U[t][k]  memory right after node k is computed in stage t
// R and Rec are integer; S, H, F and U continuous (integral wherever R and Rec
// are: graph_milp.cpp).
// Memory counts as the simulator does: resident nodes, the computed one
// included, plus its workspace and the internals held, at every compute.
#include "core/model.h"
#include "core/planners/chain_budget.h"
#include "core/schedule.h"
#include "core/solver/milp.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace remat::planners {

// Largest graph the MILP takes: its variables grow as V^2 (V = 2(n+1)).
constexpr int kMaxGraphMilpLayers = 80;

class GraphMilp {
public:
    // Minimize recompute cost within `budget` (in `unit`: Bytes or Nodes),
    // or, with `minimizePeak`, minimize the peak (budget ignored).
    GraphMilp(const Model &model, BudgetUnit unit, std::int64_t budget, bool minimizePeak = false);

    const solver::MilpProblem &problem() const { return problem_; }
    // The compute ops (record flags set) of a solution, in schedule order.
    std::vector<Op> computes(const std::vector<double> &x) const;
    // A schedule of the class as a solution (its integer columns), or nothing
    // when it is not in the class (a node first computed out of store-all's
    // order, or a stage that computes out of position order). Frees are
    // re-derived: the schedule's own frees do not matter.
    std::optional<std::vector<double>> encode(const Schedule &schedule) const;
    // Cost of the first computation of every node: the objective's constant.
    double firstComputationCost() const { return firstCost_; }
    // The peak of a solution of the minimize-peak problem, in the unit.
    double peakOf(const std::vector<double> &x) const;
    double scale() const { return scale_; }

private:
    static constexpr int kZero = -1;
    static constexpr int kOne = -2;
    int at(int t, int p) const { return t * positions_ + p; }
    NodeId nodeAt(int p) const;
    int positionOf(NodeId id) const;
    void build(std::int64_t budget, bool minimizePeak);
    bool isOne(int column, const std::vector<double> &x) const {
        return column == kOne || (column >= 0 && x[static_cast<std::size_t>(column)] > 0.5);
    }

    const Model &model_;
    BudgetUnit unit_;
    int positions_ = 0;
    double scale_ = 1; // memory is in units of `scale_` bytes in the problem
    double firstCost_ = 0;
    int peakColumn_ = -1;
    std::vector<int> R_, Rec_, S_, H_; // by at(t, p): column, kZero or kOne
    struct Free {
        int t, p, k, column;
    };
    std::vector<Free> frees_;
    solver::MilpProblem problem_;
};

} // namespace remat::planners
