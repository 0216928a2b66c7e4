// Selective checkpointing of op-level models (core/op_plan.h), as registry
// strategies so that the CLI, the studio's panes and the GIF exports take
// them by name like any other: op-budget (the exact op-level planner for a
// byte budget), save-matmuls (PyTorch's recipe), attention-core (Megatron's
// selective recomputation) and per-block (each block keeps only its output).
// On a model that is not op level they refuse with one line.
#include "core/errors.h"
#include "core/op_plan.h"
#include "core/planners/op_exact.h"
#include "core/strategies/builtin.h"
#include "core/strategy_registry.h"
#include "core/units.h"

#include <functional>
#include <memory>

namespace remat {

namespace {

class OpLevelStrategy final : public Strategy {
public:
    // The kept nodes for a model, its blocks and the parameters.
    using Choose = std::function<KeepSet(const Model &, const OpGraph &, const StrategyParams &)>;
    OpLevelStrategy(std::string name, std::string title, std::string summary, std::string memory, Choose choose,
                    bool usesBudget)
        : name_(std::move(name)), title_(std::move(title)), summary_(std::move(summary)), memory_(std::move(memory)),
          choose_(std::move(choose)), usesBudget_(usesBudget) {}

    std::string_view name() const override { return name_; }
    std::string_view summary() const override { return summary_; }
    std::string_view memoryClass() const override { return memory_; }
    std::string_view computeClass() const override { return "n + re-runs"; }
    // Op-level models only: never part of "all" or of sweeps over chains.
    bool runsWithDefaults() const override { return false; }
    bool worksOnGraphs() const override { return true; }
    bool needsOpLevel() const override { return true; }

protected:
    OpEstimate countOps(const Model &model, const StrategyParams &) const override {
        const double n = model.layers();
        return {2 * n, n + 1, 2 * (3 * n + 1), "at most 2n (each op re-run at most once)"};
    }
    void validate(const Model &model, const StrategyParams &params) const override {
        rejectUnused(params, false, false, false, usesBudget_);
        if (params.budgetNodes || params.memorySteps)
            throw InvalidArgument(name_ + " takes a budget in bytes (--budget 2GiB), not in nodes or memory steps");
        if (usesBudget_ && !params.budgetBytes)
            throw InvalidArgument(name_ + " needs a memory budget in bytes: --budget 2GiB");
        try {
            (void)opGraph(model);
        } catch (const InvalidArgument &e) {
            throw InvalidArgument(name_ + ": " + e.what());
        }
    }
    Schedule plan(const Model &model, const StrategyParams &params) const override {
        const OpGraph graph = opGraph(model);
        const std::string title = usesBudget_ ? title_ + " " + formatBytes(*params.budgetBytes) : title_;
        return opSchedule(model, graph, choose_(model, graph, params), title);
    }

private:
    std::string name_, title_, summary_, memory_;
    Choose choose_;
    bool usesBudget_;
};

KeepSet planForBudget(const Model &model, const OpGraph &graph, const StrategyParams &params) {
    OpPlannerOptions options;
    options.progress = params.progress;
    options.cancelled = params.cancelled;
    const OpPlanner planner(model, graph, options);
    const auto result = planner.plan(*params.budgetBytes);
    if (!result)
        throw InvalidArgument(planner.noPlanMessage(formatBytes(*params.budgetBytes)));
    return result->keep;
}

} // namespace

void addOpLevelStrategies(StrategyRegistry &registry) {
    registry.add(std::make_unique<OpLevelStrategy>(
        "op-budget", "op-level plan for",
        "op-level models: which tensors to keep and which to re-run for the least compute within --budget "
        "(exact op-level planner)",
        "<= budget", planForBudget, true));
    registry.add(std::make_unique<OpLevelStrategy>(
        "save-matmuls", "save matmuls",
        "op-level models: keep matrix-product outputs, re-run the rest of each block (PyTorch's selective "
        "checkpointing recipe)",
        "matmul outputs", [](const Model &m, const OpGraph &g, const StrategyParams &) { return keepMatmuls(m, g); },
        false));
    registry.add(std::make_unique<OpLevelStrategy>(
        "attention-core", "selective (attention core, Megatron)",
        "op-level models: re-run each block's attention core, keep the rest (Megatron's selective recomputation)",
        "all but attention core",
        [](const Model &m, const OpGraph &g, const StrategyParams &) {
            KeepSet keep = keepAllButAttentionCore(m, g);
            if (keep.empty())
                throw InvalidArgument("attention-core: no block of the model has two batched matrix products "
                                      "(an attention core)");
            return keep;
        },
        false));
    registry.add(std::make_unique<OpLevelStrategy>(
        "per-block", "per-block checkpointing",
        "op-level models: each block keeps only its output and re-runs its ops before its backward", "block outputs",
        [](const Model &, const OpGraph &g, const StrategyParams &) { return keepBlockOutputs(g); }, false));
}

} // namespace remat
