#pragma once
// The machine a schedule runs on, for offloading (docs/model.md, "Offloading
// to host"): a link between the device and host memory, how long a unit of
// the model's cost takes on the device, and the memory budgets. A Model says
// what the network computes; a Machine says how fast and in how much memory.
#include "core/model.h"

#include <cstdint>
#include <optional>
#include <string>

namespace remat {

// The device-host link: one copy stream, one transfer at a time.
struct Link {
    double bytesPerSecond = 0; // 0: no link (nothing may be offloaded); +infinity: an instant link
    double latencySeconds = 0; // paid by every transfer, before its bytes move

    bool carries() const { return bytesPerSecond > 0; }
    // Latency + bytes / bandwidth: how long moving `bytes` occupies the link.
    double seconds(std::int64_t bytes) const;
};

// What the simulator needs to time a schedule on two streams.
struct Machine {
    Link link;
    // Seconds one unit of the model's cost takes on the device's compute
    // stream (secondsPerCostUnit below); > 0.
    double secondsPerCost = 1;
    std::optional<std::int64_t> deviceBudgetBytes; // the simulator refuses a schedule that holds more
    std::optional<std::int64_t> hostBudgetBytes;   // likewise on the host
};

// The parts of a Machine as a model file or the command line gives them;
// each may be missing. Merged (flags over file) and then resolved against
// the model, which says what its costs are in.
struct MachineSpec {
    std::optional<double> linkBytesPerSecond;
    std::optional<double> linkLatencySeconds;
    std::optional<double> deviceFlopsPerSecond; // turns FLOP costs into time
    std::optional<std::int64_t> deviceBudgetBytes;
    std::optional<std::int64_t> hostBudgetBytes;

    bool hasLink() const { return linkBytesPerSecond.has_value(); }
    // `over`'s values where it has them, this spec's elsewhere.
    MachineSpec overriddenBy(const MachineSpec &over) const;
};

// Seconds in one `unit` when it is a time unit (s, ms, us, ns), else nothing.
std::optional<double> timeUnitSeconds(const std::string &unit);

// Seconds per unit of `model`'s cost: a time unit (s, ms, us, ns) says it
// directly; FLOP units (FLOP, kFLOP ... PFLOP) need the device's rate; costs
// without a unit (the abstract forward 1, backward 2) cannot be timed.
// Throws InvalidArgument saying which of these applies and what to give.
double secondsPerCostUnit(const Model &model, std::optional<double> deviceFlopsPerSecond);

// The Machine of `spec` for `model`: the link (latency 0 unless given),
// the time of a unit of cost, the budgets. Throws InvalidArgument as above.
Machine resolveMachine(const Model &model, const MachineSpec &spec);

// "link 16 GB/s + 10 us, 1 unit of cost = 1 ms": the machine in words, for table headers.
std::string describeMachine(const Machine &machine, const Model &model);

} // namespace remat
