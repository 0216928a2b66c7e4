#pragma once
// The chain the offload pictures are tested on (docs/export.md, the lecture
// GIF): n activations of 64 MiB, 2 ms a layer forward (4 ms backward), on a
// link of `link` + 10 us, read as `remat simulate --link` reads it.
#include "core/machine_flags.h"
#include "core/strategy.h"

#include <memory>
#include <string>

namespace remat::testing {

struct TimedChain {
    std::shared_ptr<const Model> model;
    StrategyParams params; // params.machine: the link
};

inline TimedChain timedChain(int n, const std::string &link) {
    ChainSpec spec;
    spec.nodeBytes = std::int64_t{64} << 20;
    TimedChain out{std::make_shared<const Model>(chainWithTimes(n, spec, "2ms", "")), {}};
    MachineFlags flags;
    flags.link = link;
    flags.latency = "10us";
    out.params.machine = machineFromFlags(*out.model, {}, flags);
    return out;
}

} // namespace remat::testing
