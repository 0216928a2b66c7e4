// The link, the device's rate and the budgets from the command line, over
// what a model file says (docs/cli.md, docs/model-format.md).
#include "commands.h"

#include "core/errors.h"
#include "core/rates.h"
#include "core/units.h"

namespace remat::cli {

namespace {

std::int64_t positiveBytes(const std::string &text, const char *option) {
    const std::int64_t bytes = parseBytes(text, option);
    if (bytes < 1)
        throw InvalidArgument(std::string(option) + " must be at least 1 byte, got '" + text + "'");
    return bytes;
}

} // namespace

std::optional<Machine> machineFor(const Model &model, const MachineSpec &fromFile, const MachineOptions &flags) {
    MachineSpec given;
    if (!flags.link.empty())
        given.linkBytesPerSecond = parseBandwidth(flags.link, "--link");
    if (!flags.latency.empty())
        given.linkLatencySeconds = parseSeconds(flags.latency, "--latency");
    if (!flags.deviceRate.empty())
        given.deviceFlopsPerSecond = parseFlopRate(flags.deviceRate, "--device-rate");
    if (!flags.hostBudget.empty())
        given.hostBudgetBytes = positiveBytes(flags.hostBudget, "--host-budget");
    const MachineSpec spec = fromFile.overriddenBy(given);
    if (!spec.hasLink()) {
        for (const auto &[text, option] : {std::pair{flags.latency, "--latency"},
                                           {flags.deviceRate, "--device-rate"},
                                           {flags.hostBudget, "--host-budget"}})
            if (!text.empty())
                throw InvalidArgument(std::string(option) + " describes the link for offloading; give --link too "
                                                            "(e.g. --link 16GB/s)");
        return std::nullopt;
    }
    // The device budget is the planners' (applyDeviceBudget), not a limit on every row.
    MachineSpec timing = spec;
    timing.deviceBudgetBytes.reset();
    return resolveMachine(model, timing);
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
    params.budgetBytes = positiveBytes(flags.deviceBudget, "--device-budget");
}

std::string machineLine(const Machine &machine, const Model &model) {
    return "timed on " + describeMachine(machine, model) + " (docs/model.md, offloading)";
}

} // namespace remat::cli
