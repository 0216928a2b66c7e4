#pragma once
// Strategies by name. Adding one: a unit in core/strategies/ and a line in
// core/strategies/builtin.cpp; the CLI, the studio and the tests pick it up.
#include "core/strategy.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace remat {

class StrategyRegistry {
public:
    // The strategies remat ships, in presentation order.
    static const StrategyRegistry &builtin();

    void add(std::unique_ptr<Strategy> strategy);
    const Strategy *find(std::string_view name) const;
    // Throws InvalidArgument "unknown strategy 'x'; known: ..." when absent.
    const Strategy &get(std::string_view name) const;
    std::vector<const Strategy *> all() const;
    std::string namesJoined(std::string_view separator = ", ") const;

private:
    std::vector<std::unique_ptr<Strategy>> strategies_;
};

// Defined in core/strategies/builtin.cpp.
void registerBuiltinStrategies(StrategyRegistry &registry);

} // namespace remat
