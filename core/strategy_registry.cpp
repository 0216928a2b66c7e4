#include "core/strategy_registry.h"

#include "core/errors.h"

namespace remat {

const StrategyRegistry &StrategyRegistry::builtin() {
    static const StrategyRegistry registry = [] {
        StrategyRegistry r;
        registerBuiltinStrategies(r);
        return r;
    }();
    return registry;
}

void StrategyRegistry::add(std::unique_ptr<Strategy> strategy) {
    if (find(strategy->name()))
        throw InvalidArgument("strategy '" + std::string(strategy->name()) + "' is registered twice");
    strategies_.push_back(std::move(strategy));
}

const Strategy *StrategyRegistry::find(std::string_view name) const {
    for (const auto &s : strategies_)
        if (s->name() == name)
            return s.get();
    return nullptr;
}

const Strategy &StrategyRegistry::get(std::string_view name) const {
    if (const Strategy *s = find(name))
        return *s;
    throw InvalidArgument("unknown strategy '" + std::string(name) + "'; known: " + namesJoined());
}

std::vector<const Strategy *> StrategyRegistry::all() const {
    std::vector<const Strategy *> out;
    for (const auto &s : strategies_)
        out.push_back(s.get());
    return out;
}

std::string StrategyRegistry::namesJoined(std::string_view separator) const {
    std::string out;
    for (const auto &s : strategies_) {
        if (!out.empty())
            out += separator;
        out += s->name();
    }
    return out;
}

} // namespace remat
