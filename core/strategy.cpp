#include "core/strategy.h"

#include "core/errors.h"

#include <cmath>
#include <cstdio>

namespace remat {

namespace {
std::string scientific(double v) {
    char buf[64];
    if (v < 1e9)
        std::snprintf(buf, sizeof buf, "%.0f", v);
    else
        std::snprintf(buf, sizeof buf, "%.1e", v);
    return buf;
}
} // namespace

Schedule Strategy::makeSchedule(const Model &model, const StrategyParams &params) const {
    const OpEstimate e = estimate(model, params);
    if (e.ops > kMaxOps)
        throw LimitExceeded(std::string(name()) + " at n = " + std::to_string(model.layers()) + " needs " +
                            scientific(e.forwardEvaluations) + " forward evaluations (" + e.formula + ") and about " +
                            scientific(e.ops) + " ops with the frees; the limit is " + scientific(kMaxOps) +
                            " ops. Use a smaller n or a strategy that recomputes less.");
    Schedule s = plan(model, params);
    s.strategy = std::string(name());
    return s;
}

OpEstimate Strategy::estimate(const Model &model, const StrategyParams &params) const {
    validate(model, params);
    return countOps(model, params);
}

void Strategy::requireChain(const Model &model) const {
    if (!model.isChain())
        throw InvalidArgument(std::string(name()) + " works on chains; this model is a graph with skip connections");
}

void Strategy::requireLink(const StrategyParams &params, bool carrying) const {
    if (!params.machine)
        throw InvalidArgument(std::string(name()) +
                              " moves activations between device and host: give the link (e.g. --link 16GB/s) and "
                              "the time of the model's costs (--forward-time for a chain; docs/model.md)");
    if (carrying && !params.machine->link.carries())
        throw InvalidArgument(std::string(name()) + " needs a link faster than 0 B/s (a link of 0 B/s means no "
                                                    "offloading)");
}

void Strategy::rejectUnused(const StrategyParams &params, bool usesEvery, bool usesCheckpoints, bool usesSlots,
                            bool usesBudget, bool usesHeuristic) const {
    if (params.every && !usesEvery)
        throw InvalidArgument("--every applies to periodic, not to " + std::string(name()));
    if (params.checkpoints && !usesCheckpoints)
        throw InvalidArgument("--checkpoints applies to checkpoints, not to " + std::string(name()));
    if (params.checkpointSlots && !usesSlots)
        throw InvalidArgument("--slots applies to revolve and budget, not to " + std::string(name()));
    if ((params.budgetBytes || params.budgetNodes || params.memorySteps) && !usesBudget)
        throw InvalidArgument("--budget applies to budget and dtr, not to " + std::string(name()));
    if (params.heuristic && !usesHeuristic)
        throw InvalidArgument("--heuristic applies to dtr, not to " + std::string(name()));
    if (params.effort && name() != "budget")
        throw InvalidArgument("--effort applies to budget on graphs, not to " + std::string(name()));
}

} // namespace remat
