#include "app/studio/link_settings.h"

#include "core/errors.h"

namespace remat::studio {

LinkSettings LinkSettings::defaults() {
    LinkSettings s;
    s.machine.link = "16GB/s";
    s.machine.latency = "10us";
    s.nodeBytes = "64MiB";
    s.forwardTime = "2ms";
    return s;
}

MachineFieldNames LinkSettings::fieldNames() {
    MachineFieldNames names;
    names.link = "Link bandwidth";
    names.latency = "Latency";
    names.deviceRate = "Device rate";
    names.deviceBudget = "Device budget";
    names.hostBudget = "Host budget";
    names.forwardTime = "Forward time";
    names.backwardTime = "Backward time";
    return names;
}

ResolvedLink resolveLink(const Model &model, const MachineSpec &fromFile, const LinkSettings &settings) {
    const MachineFieldNames names = LinkSettings::fieldNames();
    ResolvedLink out;
    out.machine = machineFromFlags(model, fromFile, settings.machine, names);
    out.deviceBudget = deviceBudgetFromFlags(settings.machine, names);
    if (!out.deviceBudget)
        out.deviceBudget = fromFile.deviceBudgetBytes;
    return out;
}

Model chainFor(int layers, const LinkSettings &settings) {
    if (!settings.on())
        return Model::chain(layers);
    const MachineFieldNames names = LinkSettings::fieldNames();
    ChainSpec spec;
    if (!settings.nodeBytes.empty())
        spec.nodeBytes = parsePositiveBytes(settings.nodeBytes, "Activation size");
    if (settings.forwardTime.empty())
        throw InvalidArgument(names.forwardTime + " is needed with a link: a uniform chain's costs have no unit, and "
                                                  "copies are timed in seconds (e.g. 2ms)");
    return chainWithTimes(layers, spec, settings.forwardTime, settings.backwardTime, names);
}

std::string describeLink(const LinkSettings &settings, bool chain) {
    if (!settings.on())
        return {};
    std::string text = "link " + settings.machine.link;
    if (!settings.machine.latency.empty())
        text += " + " + settings.machine.latency;
    if (chain) {
        if (!settings.nodeBytes.empty())
            text += " \u00B7 " + settings.nodeBytes + " per a_i";
        text += " \u00B7 forward " + settings.forwardTime;
        if (!settings.backwardTime.empty())
            text += ", backward " + settings.backwardTime;
    }
    if (!settings.machine.deviceBudget.empty())
        text += " \u00B7 device \u2264 " + settings.machine.deviceBudget;
    if (!settings.machine.hostBudget.empty())
        text += " \u00B7 host \u2264 " + settings.machine.hostBudget;
    return text;
}

} // namespace remat::studio
