#pragma once
// Models whose layers save internals, and their timelines, for the render tests.
#include "core/simulator.h"
#include "core/strategy_registry.h"

#include <memory>

namespace remat::testing {

// A chain of n layers with 1 MiB outputs; layer i saves (i % 3 + 1) x `savedUnit`
// (0: every layer saves 17 MiB, as in issue 11's 24-layer example), plus
// workspace so that every kind of memory shows up.
inline std::shared_ptr<const Model> savedChain(int n, std::int64_t savedUnit = 0) {
    constexpr std::int64_t MiB = 1 << 20;
    std::vector<ForwardSpec> specs(static_cast<std::size_t>(n) + 1);
    specs[0].bytes = MiB;
    for (int i = 1; i <= n; ++i) {
        ForwardSpec &s = specs[static_cast<std::size_t>(i)];
        s.bytes = MiB;
        s.savedBytes = savedUnit > 0 ? (i % 3 + 1) * savedUnit : 17 * MiB;
        s.forwardWorkspace = MiB / 2;
        s.backwardWorkspace = MiB / 4;
        s.inputs = {i - 1};
    }
    return std::make_shared<const Model>(Model::fromForward(std::move(specs)));
}

inline std::shared_ptr<const Timeline> replayOn(std::shared_ptr<const Model> model, const std::string &strategy,
                                                const StrategyParams &params = {}) {
    auto schedule =
        std::make_shared<const Schedule>(StrategyRegistry::builtin().get(strategy).makeSchedule(*model, params));
    return std::make_shared<const Timeline>(Simulator::replay(std::move(model), schedule).timeline);
}

} // namespace remat::testing
