#include "core/strategies/builtin.h"
#include "core/strategy_registry.h"

namespace remat {

void registerBuiltinStrategies(StrategyRegistry &registry) {
    registry.add(makeStoreAllStrategy());
    registry.add(makeRecomputeAllStrategy());
    registry.add(makePeriodicStrategy());
    registry.add(makeCheckpointsStrategy());
    registry.add(makeRevolveStrategy());
    registry.add(makeRecursiveStrategy());
    registry.add(makeBudgetStrategy());
    registry.add(makeAutoStrategy());
    registry.add(makeDtrStrategy());
    registry.add(makeOffloadAllStrategy());
    registry.add(makeOffloadBudgetStrategy());
    addOpLevelStrategies(registry);
}

} // namespace remat
