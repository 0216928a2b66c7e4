#pragma once
// The machine for offloading and a chain's layer times as people type them
// (docs/cli.md, "With a link"): `remat`, `remat-studio --export-*` and the
// studio's Link dialog read the same texts through these functions, so the
// rules (a latency needs a link, a backward time needs a forward time, a
// budget is at least 1 byte) and their messages are the same everywhere.
#include "core/machine.h"
#include "core/model.h"

#include <cstdint>
#include <optional>
#include <string>

namespace remat {

// What each text is called in messages: the command line's flags by
// default; the studio's dialog names its fields instead.
struct MachineFieldNames {
    std::string link = "--link";
    std::string latency = "--latency";
    std::string deviceRate = "--device-rate";
    std::string deviceBudget = "--device-budget";
    std::string hostBudget = "--host-budget";
    std::string forwardTime = "--forward-time";
    std::string backwardTime = "--backward-time";
};

// The machine as typed; an empty text is not given.
struct MachineFlags {
    std::string link;         // "16GB/s"; "0B/s" means no offloading
    std::string latency;      // "10us"
    std::string deviceRate;   // "100TFLOP/s", for models whose costs are FLOP
    std::string deviceBudget; // "1GiB": what the planners (budget, offload-budget) plan for
    std::string hostBudget;   // "64GiB": what offload-budget may fill on the host

    bool operator==(const MachineFlags &) const = default;
};

// The machine of `fromFile` (a model file's keys) overridden by `flags`,
// resolved against `model` (core/machine.h). Nothing when neither gives a
// link; then only the device budget may be given. The device budget is the
// planners' (deviceBudgetFromFlags), not a limit on every row, and is left
// out. Throws InvalidArgument naming the field, the text and what is allowed.
std::optional<Machine> machineFromFlags(const Model &model, const MachineSpec &fromFile, const MachineFlags &flags,
                                        const MachineFieldNames &names = {});

// With no link: throws InvalidArgument when `flags` still give what only a
// link means (latency, device rate, host budget), naming the field.
void requireNoLinkDetails(const MachineFlags &flags, const MachineFieldNames &names = {});

// The device budget typed in `flags`, if any (at least 1 byte).
std::optional<std::int64_t> deviceBudgetFromFlags(const MachineFlags &flags, const MachineFieldNames &names = {});

// A byte count of at least 1 ("1GiB"), or InvalidArgument "<what> must be at least 1 byte, got '<text>'".
std::int64_t parsePositiveBytes(const std::string &text, const std::string &what);

// A chain of n layers whose forward takes `forwardTime` and backward
// `backwardTime` (default twice the forward): its costs are then seconds
// (unit "s"), what a link's transfers are timed against. Without a forward
// time, the abstract chain (costs 1 and 2). Throws InvalidArgument.
Model chainWithTimes(int n, ChainSpec spec, const std::string &forwardTime, const std::string &backwardTime,
                     const MachineFieldNames &names = {});

} // namespace remat
