#include "core/machine_flags.h"

#include "core/errors.h"
#include "core/rates.h"
#include "core/units.h"

#include <utility>

namespace remat {

std::int64_t parsePositiveBytes(const std::string &text, const std::string &what) {
    const std::int64_t bytes = parseBytes(text, what);
    if (bytes < 1)
        throw InvalidArgument(what + " must be at least 1 byte, got '" + text + "'");
    return bytes;
}

std::optional<std::int64_t> deviceBudgetFromFlags(const MachineFlags &flags, const MachineFieldNames &names) {
    if (flags.deviceBudget.empty())
        return std::nullopt;
    return parsePositiveBytes(flags.deviceBudget, names.deviceBudget);
}

void requireNoLinkDetails(const MachineFlags &flags, const MachineFieldNames &names) {
    for (const auto &[text, name] : {std::pair{&flags.latency, &names.latency},
                                     {&flags.deviceRate, &names.deviceRate},
                                     {&flags.hostBudget, &names.hostBudget}})
        if (!text->empty())
            throw InvalidArgument(*name + " describes the link for offloading; give " + names.link + " too (e.g. " +
                                  names.link + " 16GB/s)");
}

std::optional<Machine> machineFromFlags(const Model &model, const MachineSpec &fromFile, const MachineFlags &flags,
                                        const MachineFieldNames &names) {
    MachineSpec given;
    if (!flags.link.empty())
        given.linkBytesPerSecond = parseBandwidth(flags.link, names.link);
    if (!flags.latency.empty())
        given.linkLatencySeconds = parseSeconds(flags.latency, names.latency);
    if (!flags.deviceRate.empty())
        given.deviceFlopsPerSecond = parseFlopRate(flags.deviceRate, names.deviceRate);
    if (!flags.hostBudget.empty())
        given.hostBudgetBytes = parsePositiveBytes(flags.hostBudget, names.hostBudget);
    const MachineSpec spec = fromFile.overriddenBy(given);
    if (!spec.hasLink()) {
        requireNoLinkDetails(flags, names);
        return std::nullopt;
    }
    MachineSpec timing = spec;
    timing.deviceBudgetBytes.reset();
    return resolveMachine(model, timing);
}

Model chainWithTimes(int n, ChainSpec spec, const std::string &forwardTime, const std::string &backwardTime,
                     const MachineFieldNames &names) {
    if (!backwardTime.empty() && forwardTime.empty())
        throw InvalidArgument(names.backwardTime + " needs " + names.forwardTime +
                              " (the backward defaults to twice the forward)");
    if (forwardTime.empty())
        return Model::chain(n, spec);
    spec.forwardCost = parseSeconds(forwardTime, names.forwardTime);
    if (!(spec.forwardCost > 0))
        throw InvalidArgument(names.forwardTime + " must be a time above 0, got '" + forwardTime + "'");
    spec.backwardCost = backwardTime.empty() ? 2 * spec.forwardCost : parseSeconds(backwardTime, names.backwardTime);
    Model model = Model::chain(n, spec);
    model.setCostUnit("s");
    return model;
}

} // namespace remat
