#include "core/machine.h"

#include "core/errors.h"
#include "core/rates.h"
#include "core/units.h"

#include <cmath>

namespace remat {

double Link::seconds(std::int64_t bytes) const {
    if (std::isinf(bytesPerSecond))
        return latencySeconds;
    return latencySeconds + static_cast<double>(bytes) / bytesPerSecond;
}

MachineSpec MachineSpec::overriddenBy(const MachineSpec &over) const {
    MachineSpec m = *this;
    if (over.linkBytesPerSecond)
        m.linkBytesPerSecond = over.linkBytesPerSecond;
    if (over.linkLatencySeconds)
        m.linkLatencySeconds = over.linkLatencySeconds;
    if (over.deviceFlopsPerSecond)
        m.deviceFlopsPerSecond = over.deviceFlopsPerSecond;
    if (over.deviceBudgetBytes)
        m.deviceBudgetBytes = over.deviceBudgetBytes;
    if (over.hostBudgetBytes)
        m.hostBudgetBytes = over.hostBudgetBytes;
    return m;
}

namespace {

constexpr const char *kHowToTime =
    "give a chain --forward-time (e.g. 2ms), or a model file \"units\": {\"cost\": \"ms\"} "
    "(a time) or {\"cost\": \"GFLOP\"} with the device's rate (--device-rate 100TFLOP/s or \"device\": "
    "{\"rate\": ...})";

// FLOP in one unit of cost ("GFLOP" -> 1e9), or nothing for other units.
std::optional<double> flopUnit(const std::string &unit) {
    if (unit.size() < 4 || unit.compare(unit.size() - 4, 4, "FLOP") != 0)
        return std::nullopt;
    const int power = siPrefixPower(unit.substr(0, unit.size() - 4));
    if (power < 0)
        return std::nullopt;
    return std::pow(1000.0, power);
}

} // namespace

std::optional<double> timeUnitSeconds(const std::string &unit) {
    if (unit == "s")
        return 1.0;
    if (unit == "ms")
        return 1e-3;
    if (unit == "us" || unit == "\xC2\xB5s")
        return 1e-6;
    if (unit == "ns")
        return 1e-9;
    return std::nullopt;
}

double secondsPerCostUnit(const Model &model, std::optional<double> deviceFlopsPerSecond) {
    const std::string &unit = model.costUnit();
    if (deviceFlopsPerSecond && !(*deviceFlopsPerSecond > 0 && std::isfinite(*deviceFlopsPerSecond)))
        throw InvalidArgument("the device rate must be a number of FLOP/s above 0, got " +
                              std::to_string(*deviceFlopsPerSecond));
    if (const auto seconds = timeUnitSeconds(unit)) {
        if (deviceFlopsPerSecond)
            throw InvalidArgument("the model's costs are times (" + unit +
                                  "); a device rate applies only to costs in FLOP, leave it out");
        return *seconds;
    }
    if (const auto flop = flopUnit(unit)) {
        if (!deviceFlopsPerSecond)
            throw InvalidArgument("the model's costs are in " + unit +
                                  "; timing transfers against compute needs the device's rate: give --device-rate "
                                  "(e.g. 100TFLOP/s) or \"device\": {\"rate\": \"100 TFLOP/s\"} in the model file");
        return *flop / *deviceFlopsPerSecond;
    }
    if (unit.empty())
        throw InvalidArgument(std::string("the model's costs have no unit (forward 1, backward 2 by default), so "
                                          "transfers cannot be timed against them: ") +
                              kHowToTime);
    throw InvalidArgument("the model's cost unit \"" + unit +
                          "\" is neither a time (s, ms, us, ns) nor FLOP (FLOP, kFLOP, MFLOP, GFLOP, TFLOP, PFLOP), "
                          "so transfers cannot be timed against it: " +
                          kHowToTime);
}

Machine resolveMachine(const Model &model, const MachineSpec &spec) {
    Machine m;
    if (spec.linkBytesPerSecond) {
        if (!(*spec.linkBytesPerSecond >= 0))
            throw InvalidArgument("the link's bandwidth must be 0 or more bytes per second");
        m.link.bytesPerSecond = *spec.linkBytesPerSecond;
    }
    if (spec.linkLatencySeconds) {
        if (!(*spec.linkLatencySeconds >= 0) || !std::isfinite(*spec.linkLatencySeconds))
            throw InvalidArgument("the link's latency must be a time of 0 or more");
        m.link.latencySeconds = *spec.linkLatencySeconds;
    }
    m.secondsPerCost = secondsPerCostUnit(model, spec.deviceFlopsPerSecond);
    for (const auto &[budget, what] : {std::pair{spec.deviceBudgetBytes, "device"}, {spec.hostBudgetBytes, "host"}})
        if (budget && *budget < 1)
            throw InvalidArgument(std::string("the ") + what + " budget must be at least 1 byte, got " +
                                  std::to_string(*budget));
    m.deviceBudgetBytes = spec.deviceBudgetBytes;
    m.hostBudgetBytes = spec.hostBudgetBytes;
    return m;
}

std::string describeMachine(const Machine &machine, const Model &model) {
    std::string out = machine.link.carries() ? "link " + formatBandwidth(machine.link.bytesPerSecond)
                                             : std::string("no link (0 B/s: nothing is offloaded)");
    if (machine.link.carries() && machine.link.latencySeconds > 0)
        out += " + " + formatSeconds(machine.link.latencySeconds) + " a transfer";
    const std::string unit = model.costUnit().empty() ? "unit of cost" : model.costUnit();
    if (model.costUnit() != "s")
        out += ", 1 " + unit + " = " + formatSeconds(machine.secondsPerCost);
    if (machine.deviceBudgetBytes)
        out += ", device budget " + formatBytes(*machine.deviceBudgetBytes);
    if (machine.hostBudgetBytes)
        out += ", host budget " + formatBytes(*machine.hostBudgetBytes);
    return out;
}

} // namespace remat
