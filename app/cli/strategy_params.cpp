#include "arguments.h"
#include "commands.h"

namespace remat::cli {

StrategyParams parseStrategyParams(const StrategyOptionTexts &texts, int layers) {
    StrategyParams params;
    if (!texts.slots.empty())
        params.checkpointSlots = static_cast<int>(parseInteger("--slots", texts.slots, 1, Model::kMaxLayers + 1));
    if (!texts.budget.empty())
        parseBudget(texts.budget, params);
    if (!texts.every.empty())
        params.every = static_cast<int>(parseInteger("--every", texts.every, 1, layers));
    if (texts.checkpointsGiven)
        params.checkpoints = parseIntegerList("--checkpoints", texts.checkpoints);
    return params;
}

// With several strategies, each option goes to the strategies that take it;
// a lone strategy is told everything, and rejects what it cannot use.
StrategyParams paramsFor(const Strategy &strategy, const StrategyParams &given, bool lone) {
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

} // namespace remat::cli
