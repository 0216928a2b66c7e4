#include "core/comparison.h"

#include "core/errors.h"
#include "core/strategy_registry.h"

#include <sstream>

namespace remat {

std::vector<ComparisonRow> compareStrategies(const Model &model, const std::vector<const Strategy *> &strategies,
                                             const StrategyParams &params) {
    const StrategyRegistry &registry = StrategyRegistry::builtin();
    const Strategy &storeAll = registry.get("store-all");
    const double reference = Simulator::summarize(model, storeAll.makeSchedule(model, {})).cost;
    std::vector<ComparisonRow> rows;
    for (const Strategy *s : strategies) {
        ComparisonRow row;
        row.strategy = s;
        row.schedule = s->makeSchedule(model, params);
        row.summary = Simulator::summarize(model, row.schedule);
        row.costOverhead = reference > 0 ? row.summary.cost / reference - 1 : 0;
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
            const bool wanted = s->runsWithDefaults() || (s->name() == "checkpoints" && params.checkpoints) ||
                                (s->name() == "budget" && budgetGiven);
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
    if (name == "budget") {
        own.budgetBytes = given.budgetBytes;
        own.budgetNodes = given.budgetNodes;
    }
    return own;
}

} // namespace remat
