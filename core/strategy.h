#pragma once
// A strategy turns a Model and its parameters into a Schedule. Each strategy is
// one small unit under core/strategies/, registered in the StrategyRegistry.
#include "core/machine.h"
#include "core/model.h"
#include "core/schedule.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace remat {

// Everything a user may set for some strategy; each strategy reads what it
// needs and rejects what it cannot use. Planners add their knobs here.
struct StrategyParams {
    std::optional<int> every;                    // periodic: checkpoint every k-th node
    std::optional<std::vector<int>> checkpoints; // checkpoints: explicit forward nodes
    std::optional<int> checkpointSlots;          // revolve, budget: checkpoint slots (a_0 included)
    std::optional<std::int64_t> budgetBytes;     // budget: peak bytes the simulator may count
    std::optional<std::int64_t> budgetNodes;     // budget: peak resident nodes the simulator may count
    std::optional<int> memorySteps;              // budget: discretization of a byte budget (default 512)
    std::optional<std::string> heuristic;        // dtr: which tensor to evict ("dtr" or "cost-per-byte")
    std::optional<std::int64_t> effort;          // budget on graphs: branch-and-bound nodes of the MILP
    std::optional<std::int64_t> searchWork;      // budget on graphs: stage layouts of the exact stage search
    int searchThreads = 0;                       // budget on graphs: the stage search's cores (0: every core)
    // offload-all, offload-budget: the device-host link and the time of a
    // unit of cost (and the host budget offload-budget plans for). The
    // device budget of offload-budget is budgetBytes, as for budget.
    std::optional<Machine> machine;
    // Long planners (budget) report progress in [0, 1] and stop with Cancelled
    // when `cancelled` returns true. Both may be empty.
    std::function<void(double)> progress;
    std::function<bool()> cancelled;
};

// Analytic size of a schedule, known before it is built.
struct OpEstimate {
    double forwardEvaluations = 0;
    double backwardOps = 0;
    double ops = 0;      // upper bound on all ops, frees included
    std::string formula; // how forwardEvaluations follows from n, in words
};

class Strategy {
public:
    // Longest schedule any strategy may build: 8 bytes per op, so the schedule
    // itself stays under 2 GiB. Checked before anything is allocated.
    static constexpr double kMaxOps = 200'000'000;

    virtual ~Strategy() = default;
    virtual std::string_view name() const = 0;
    virtual std::string_view summary() const = 0;      // one line for --help and menus
    virtual std::string_view memoryClass() const = 0;  // e.g. "O(sqrt n)"
    virtual std::string_view computeClass() const = 0; // e.g. "O(n)"
    // True when the strategy needs no parameter from the user (it runs in "all").
    virtual bool runsWithDefaults() const { return true; }
    // True when the strategy plans graphs with skip connections, not only chains.
    virtual bool worksOnGraphs() const { return false; }
    // True when its schedules move activations to host and back: it needs
    // StrategyParams::machine with a link (docs/model.md, offloading).
    virtual bool usesLink() const { return false; }
    // True when it plans only op-level models (Model::isOpLevel): the
    // selective-checkpointing strategies of core/strategies/op_level.cpp.
    virtual bool needsOpLevel() const { return false; }

    // Validates parameters, refuses schedules over kMaxOps, then plans.
    // Throws InvalidArgument or LimitExceeded with a message for the user.
    Schedule makeSchedule(const Model &model, const StrategyParams &params) const;

    // Validates the parameters (throws like makeSchedule), then returns the
    // analytic size of the schedule without building it.
    OpEstimate estimate(const Model &model, const StrategyParams &params) const;

protected:
    // The analytic size for parameters that passed validate().
    virtual OpEstimate countOps(const Model &model, const StrategyParams &params) const = 0;
    // Throws InvalidArgument for parameters this strategy cannot use.
    virtual void validate(const Model &model, const StrategyParams &params) const = 0;
    virtual Schedule plan(const Model &model, const StrategyParams &params) const = 0;

    // Helpers for strategies.
    void requireChain(const Model &model) const;
    // Throws InvalidArgument unless params.machine is given (and, with
    // `carrying`, its link moves more than 0 B/s).
    void requireLink(const StrategyParams &params, bool carrying) const;
    void rejectUnused(const StrategyParams &params, bool usesEvery, bool usesCheckpoints, bool usesSlots = false,
                      bool usesBudget = false, bool usesHeuristic = false) const;
};

} // namespace remat
