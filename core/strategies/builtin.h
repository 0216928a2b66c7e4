#pragma once
// Factories of the built-in strategies, one per unit in this folder.
#include "core/strategy.h"

#include <memory>

namespace remat {

class StrategyRegistry;

std::unique_ptr<Strategy> makeStoreAllStrategy();
std::unique_ptr<Strategy> makeRecomputeAllStrategy();
std::unique_ptr<Strategy> makePeriodicStrategy();
std::unique_ptr<Strategy> makeCheckpointsStrategy();
std::unique_ptr<Strategy> makeRevolveStrategy();
std::unique_ptr<Strategy> makeRecursiveStrategy();
std::unique_ptr<Strategy> makeBudgetStrategy();
std::unique_ptr<Strategy> makeAutoStrategy();
std::unique_ptr<Strategy> makeDtrStrategy();
std::unique_ptr<Strategy> makeOffloadAllStrategy();
std::unique_ptr<Strategy> makeOffloadBudgetStrategy();
// Op-level models (core/strategies/op_level.cpp): op-budget, save-matmuls, attention-core, per-block.
void addOpLevelStrategies(StrategyRegistry &registry);

} // namespace remat
