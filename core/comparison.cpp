#include "core/comparison.h"

#include "core/errors.h"
#include "core/strategy_registry.h"

#include <cmath>
#include <optional>
#include <sstream>

namespace remat {

std::vector<ComparisonRow> compareStrategies(const Model &model, const std::vector<const Strategy *> &strategies,
                                             const StrategyParams &params) {
    const StrategyRegistry &registry = StrategyRegistry::builtin();
    const Strategy &storeAll = registry.get("store-all");
    const double reference = Simulator::summarize(model, storeAll.makeSchedule(model, {})).cost;
    std::optional<Machine> clock = params.machine;
    if (clock) {
        clock->deviceBudgetBytes.reset();
        clock->hostBudgetBytes.reset();
    }
    std::vector<ComparisonRow> rows;
    for (const Strategy *s : strategies) {
        ComparisonRow row;
        row.strategy = s;
        row.schedule = s->makeSchedule(model, params);
        row.summary =
            clock ? Simulator::summarize(model, row.schedule, *clock) : Simulator::summarize(model, row.schedule);
        row.costOverhead = reference > 0 ? row.summary.cost / reference - 1 : 0;
        // Store-all moves nothing and never waits: its makespan is its compute.
        if (clock && reference > 0) {
            row.makespanOverhead = row.summary.makespanSeconds / (reference * clock->secondsPerCost) - 1;
            // The same compute summed in another order differs in the last bits: no overhead.
            if (std::fabs(row.makespanOverhead) < 1e-12)
                row.makespanOverhead = 0;
        }
        rows.push_back(std::move(row));
    }
    return rows;
}

std::vector<const Strategy *> selectStrategies(const std::string &names, const StrategyParams &params,
                                               const Model *model) {
    const StrategyRegistry &registry = StrategyRegistry::builtin();
    std::vector<const Strategy *> out;
    if (names == "all") {
        for (const Strategy *s : registry.all()) {
            const bool budgetGiven = params.budgetBytes || params.budgetNodes;
            const bool linkGiven = params.machine && params.machine->link.carries();
            const bool wanted = s->runsWithDefaults() || (s->name() == "checkpoints" && params.checkpoints) ||
                                (s->name() == "budget" && budgetGiven) || (s->name() == "offload-all" && linkGiven) ||
                                (s->name() == "offload-budget" && linkGiven && params.budgetBytes);
            const bool plansModel = !model || model->isChain() || s->worksOnGraphs();
            if (wanted && plansModel)
                out.push_back(s);
        }
        return out;
    }
    std::stringstream in(names);
    std::string name;
    while (std::getline(in, name, ',')) {
        if (name.empty())
            throw InvalidArgument("strategy list '" + names + "' has an empty name; known: all, " +
                                  registry.namesJoined());
        const Strategy *s = registry.find(name);
        if (!s)
            throw InvalidArgument("unknown strategy '" + name + "'; known: all, " + registry.namesJoined());
        for (const Strategy *seen : out)
            if (seen == s)
                throw InvalidArgument("strategy '" + name + "' is listed twice");
        out.push_back(s);
    }
    if (out.empty())
        throw InvalidArgument("no strategy given; known: all, " + registry.namesJoined());
    return out;
}

// With several strategies, each option goes to the strategies that take it;
// a lone strategy is told everything, and rejects what it cannot use.
StrategyParams paramsForStrategy(const Strategy &strategy, const StrategyParams &given, bool lone) {
    if (lone)
        return given;
    StrategyParams own;
    const std::string_view name = strategy.name();
    if (name == "periodic")
        own.every = given.every;
    if (name == "checkpoints")
        own.checkpoints = given.checkpoints;
    if (name == "revolve")
        own.checkpointSlots = given.checkpointSlots;
    if (name == "budget" || name == "offload-budget") {
        own.budgetBytes = given.budgetBytes;
        own.budgetNodes = given.budgetNodes;
        own.memorySteps = given.memorySteps;
    }
    if (name == "dtr") {
        own.budgetBytes = given.budgetBytes;
        own.budgetNodes = given.budgetNodes;
        own.heuristic = given.heuristic;
    }
    // The link and the clock belong to the run, not to one strategy: every row is timed on them.
    own.machine = given.machine;
    return own;
}

} // namespace remat
