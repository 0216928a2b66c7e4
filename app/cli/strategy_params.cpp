#include "arguments.h"
#include "commands.h"

namespace remat::cli {

StrategyParams parseStrategyParams(const StrategyOptionTexts &texts, const Model &model) {
    const int layers = model.layers();
    StrategyParams params;
    if (!texts.slots.empty())
        params.checkpointSlots = static_cast<int>(parseInteger("--slots", texts.slots, 1, Model::kMaxLayers + 1));
    if (!texts.budget.empty())
        parseBudget(texts.budget, params, model);
    if (!texts.every.empty())
        params.every = static_cast<int>(parseInteger("--every", texts.every, 1, layers));
    if (!texts.heuristic.empty())
        params.heuristic = texts.heuristic;
    if (texts.checkpointsGiven)
        params.checkpoints = parseIntegerList("--checkpoints", texts.checkpoints);
    return params;
}

} // namespace remat::cli
