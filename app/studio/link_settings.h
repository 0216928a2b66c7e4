#pragma once
// The studio's machine for offloading (docs/studio.md, "Offloading"): the
// texts of the Link and budgets dialog, read by core/machine_flags.h exactly
// as `remat simulate` reads its flags, so a bad value gets the CLI's message
// with the dialog's field name. With a link set every pane is timed on a
// compute and a copy stream; a uniform chain then gets a size per activation
// and a time per layer, so that copies and compute have a common clock.
#include "core/machine_flags.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace remat::studio {

struct LinkSettings {
    MachineFlags machine; // link, latency, device rate, device and host budgets; no link: off
    // Uniform chains only (a model file gives its own sizes and costs).
    std::string nodeBytes;    // every a_i, e.g. "64MiB"
    std::string forwardTime;  // one layer's forward, e.g. "2ms"
    std::string backwardTime; // "" : twice the forward

    bool on() const { return !machine.link.empty(); }
    bool operator==(const LinkSettings &) const = default;

    // What an offload strategy gets when it is picked with no link set, shown
    // in the toolbar and the status bar: a PCIe 4 x16-like link and
    // activations big enough for their copies to take about as long as a layer.
    static LinkSettings defaults();
    // The dialog's names for the fields, in its messages.
    static MachineFieldNames fieldNames();
};

// The machine of `settings` for `model` (whose file gave `fromFile`), and the
// device budget offload-budget plans for. Nothing when the link is off.
// Throws InvalidArgument naming the dialog's field.
struct ResolvedLink {
    std::optional<Machine> machine;
    std::optional<std::int64_t> deviceBudget;
};
ResolvedLink resolveLink(const Model &model, const MachineSpec &fromFile, const LinkSettings &settings);

// The uniform chain of `layers` layers for `settings`: sizes and times in
// seconds with a link, the abstract chain (1 byte, costs 1 and 2) without.
// Throws InvalidArgument naming the dialog's field.
Model chainFor(int layers, const LinkSettings &settings);

// "link 16 GB/s + 10 us · 64 MiB per a_i · forward 2 ms" for the toolbar; "" when off.
std::string describeLink(const LinkSettings &settings, bool chain);

} // namespace remat::studio
