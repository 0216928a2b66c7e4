// The link, the device's rate and the budgets from the command line, over
// what a model file says (docs/cli.md, docs/model-format.md).
#include "commands.h"

#include "core/errors.h"

namespace remat::cli {

std::optional<Machine> machineFor(const Model &model, const MachineSpec &fromFile, const MachineOptions &flags) {
    return machineFromFlags(model, fromFile, flags);
}

void applyDeviceBudget(const MachineOptions &flags, const std::string &budgetText, const MachineSpec &fromFile,
                       StrategyParams &params) {
    if (flags.deviceBudget.empty()) {
        // A model file's "device": {"budget"} when the command line gives none.
        if (budgetText.empty() && fromFile.deviceBudgetBytes)
            params.budgetBytes = fromFile.deviceBudgetBytes;
        return;
    }
    if (!budgetText.empty())
        throw InvalidArgument("give the budget once: --device-budget " + flags.deviceBudget + " or --budget " +
                              budgetText);
    params.budgetNodes.reset();
    params.budgetBytes = deviceBudgetFromFlags(flags);
}

std::string machineLine(const Machine &machine, const Model &model) {
    return "timed on " + describeMachine(machine, model) + " (docs/model.md, offloading)";
}

} // namespace remat::cli
