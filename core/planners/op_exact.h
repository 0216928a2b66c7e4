#pragma once
// The exact op-level planner (docs/planners.md, "Op level"): for a byte
// budget, which nodes of each block to keep and which to re-run, for the
// least re-run cost, over every closed keep set of every block.
//
// Why a DP and not an MILP: the plans PyTorch can run (op_plan.h) keep a set
// per block and re-run the rest once before the block's backward. Blocks then
// interact only through what earlier blocks hold: the memory at any op of
// block g is P_g + (what g itself holds there), P_g the sum of what blocks
// before g hold between the passes. So each block's keep sets reduce to three
// numbers (held, local peak, re-run cost), measured by replaying the block
// with its neighbours under the simulator's rules, identical blocks once, and
// a DP over the blocks in order (states: bytes held so far, Pareto in cost)
// finds the optimum exactly. Enumerating a block's keep sets is 2^m for m
// nodes; the search is bounded by work, not by time, so that the same model
// and budget give the same plan on every machine: above maxEnumerated nodes
// per block, or where the closed keep sets would take more replayed ops than
// the effort allows, the least costly nodes are always re-run and the result
// says it is not exact.
#include "core/op_plan.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace remat {

// Replayed ops the op-level search may take by default: GPT-2 small's blocks
// (23 nodes each) are searched whole within 4.5e8 (docs/planners.md, "Op
// level"); the margin is for models alike.
inline constexpr std::int64_t kDefaultOpEffort = 600'000'000;
inline constexpr std::int64_t kMaxOpEffort = 1'000'000'000'000;
// Branch-and-bound nodes the op-level MILP (planners/op_milp.h) may take for a
// plan where the enumeration does not reach (docs/planners.md, "Op level:
// beyond enumeration").
inline constexpr std::int64_t kDefaultOpSolverEffort = 2000;
// Where a tensor read from further back than a block's neighbourhood makes the
// enumeration inexact from the start and the MILP plans, the enumeration only
// starts the MILP, with this share of the effort (1/kSeedShareOfEffort): on a
// traced Llama, 12 s of a 13 s plan went to an enumeration the MILP then
// proved at its root from a start a hundredth of it also gives.
inline constexpr std::int64_t kSeedShareOfEffort = 100;

struct OpPlannerOptions {
    int maxEnumerated = 24; // nodes per block whose keeping is searched (2^24 keep sets at most)
    // Simulator ops the search may replay in all (every keep set searched is
    // replayed once, blocks alike once), each keep set counted at its block's
    // longest replay: a function of the model only, so the plan is the same
    // on every machine. The replays of each block kept whole and kept as its
    // output alone always run, even beyond it.
    std::int64_t effort = kDefaultOpEffort;
    // A wall-clock safety net, off (0) by default: seconds the searches of
    // distinct blocks may take together (a quarter each, at most). Where it
    // narrows a search the result is cutByClock: it depends on the machine.
    double timeLimitSeconds = 0;
    std::function<double()> clock; // seconds, read only under a time limit; empty: std::chrono::steady_clock
    bool blockLevel = false;       // only "keep all" and "keep the output" per block: the block-level plans
    // Where the enumeration is not exact, each plan and the least peak are
    // solved again by the op-level MILP with this many branch-and-bound
    // nodes, started from the enumeration's plan; 0: not at all.
    std::int64_t solverEffort = kDefaultOpSolverEffort;
    std::function<void(double)> progress;
    std::function<bool()> cancelled;
};

struct OpPlanResult {
    KeepSet keep;
    double recomputeCost = 0;
    std::int64_t predictedPeakBytes = 0; // the DP's; the simulator's count of opSchedule equals it
    bool exact = true;                   // proven least: every keep set searched, or the MILP closed its gap
    bool cutByClock = false;             // the time limit narrowed a search: another machine may plan otherwise
    double lowerBound = 0;               // proven: no plan within the budget re-runs less (0: nothing proven)
    std::int64_t solverNodes = -1;       // the MILP's branch-and-bound nodes; -1: the enumeration planned it
    // "exact: ...", "optimal (gap 0) ...", "within 0.42 % of the least
    // (proven bound) ..." or "not proven optimal ... (gap not bounded)".
    std::string proof(const std::string &inexactReason) const;
    // The same in a few words, for a table: "optimal (gap 0)", "within 0.42 %".
    std::string verdict() const;
};

class OpPlanner {
public:
    // Where a block's nodes feed beyond the next block the DP's decomposition
    // does not hold: the op-level MILP plans the whole model (not exact until
    // it proves a plan). Throws Cancelled when asked to stop.
    OpPlanner(const Model &model, const OpGraph &graph, OpPlannerOptions options = {});
    // The least peak any plan reaches: the enumeration's, or where it is not
    // exact the op-level MILP's, proven or not (minimumPeakProven).
    std::int64_t minimumPeakBytes() const;
    bool minimumPeakProven() const;
    // Why no plan fits `budget` (as the user wrote it): below the least peak,
    // proven, or below the least found, when that is not proven.
    std::string noPlanMessage(const std::string &budget) const;
    // Store-all's peak (every block kept whole).
    std::int64_t storeAllPeakBytes() const;
    // The least re-run cost within `budgetBytes`; nullopt when no plan fits.
    std::optional<OpPlanResult> plan(std::int64_t budgetBytes) const;
    // Every keep set of every block enumerated (then every plan is exact).
    bool exact() const { return exact_; }
    std::string inexactReason() const { return inexactReason_; }
    bool cutByClock() const { return cutByClock_; }
    // The work the search did, counted: keep sets replayed and their
    // simulator ops (at most max(effort, the replays that always run)).
    std::int64_t replayedKeepSets() const { return replayedKeepSets_; }
    std::int64_t replayedOps() const { return replayedOps_; }

    struct Option {
        std::int64_t held = 0;  // bytes the block holds between its forward and its backward
        std::int64_t local = 0; // most bytes above P_g while the block runs (forward or backward)
        double cost = 0;        // re-run cost
        KeepSet keep;           // over the block's nodes, in order
    };

private:
    const Model &model_;
    const OpGraph &graph_;
    std::optional<OpPlanResult> enumeratedPlan(std::int64_t budgetBytes) const;
    std::int64_t enumeratedMinimumPeak() const;
    bool solves() const;

    std::vector<std::vector<Option>> options_; // per group, Pareto-pruned
    std::int64_t solverEffort_ = 0;
    std::function<bool()> cancelled_;
    struct Minimum {
        std::int64_t peak = 0;
        bool proven = false;
        KeepSet keep; // the MILP's plan at that peak; empty when the enumeration's
    };
    mutable std::optional<Minimum> minimum_;
    std::int64_t inputGradientStep_ = 0;       // the memory while the input's gradient is computed, the last op
    bool exact_ = true;
    bool decomposed_ = true; // every block's neighbourhood replays on its own (no node feeds beyond the next block)
    // Where the blocks do not decompose: store-all and per-block
    // checkpointing (where valid), simulated once, the starts the MILP improves.
    std::vector<OpPlanResult> fallback_;
    bool cutByClock_ = false;
    std::string inexactReason_;
    std::int64_t replayedKeepSets_ = 0, replayedOps_ = 0;
};

// An effort as the planner's messages write it: 4e9, 123456.
std::string effortText(std::int64_t effort);

// Every combination of closed keep sets, each simulated: the reference the
// planner is tested against on small graphs. nullopt when none fits.
std::optional<OpPlanResult> exhaustiveOpPlan(const Model &model, const OpGraph &graph, std::int64_t budgetBytes,
                                             bool blockLevel = false);

} // namespace remat
