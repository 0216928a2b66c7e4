#pragma once
// What the bytes held at each step are made of, by kind, as PyTorch's memory
// profiler categorises them: layer outputs (activations a_i), saved internals
// (what a recording run of a layer keeps for its backward), gradients (b_i)
// and the running op's workspace. Computed once per timeline by walking it op
// by op (Timeline::advance, O(ops)); the kinds add up to Timeline::bytesAt.
#include "app/render/palette.h"
#include "core/timeline.h"

#include <QColor>

#include <array>
#include <cstdint>
#include <vector>

namespace remat::render {

enum class MemoryKind : std::uint8_t { LayerOutputs, SavedInternals, Gradients, Workspace };
inline constexpr int kMemoryKindCount = 4;
inline constexpr std::array<MemoryKind, kMemoryKindCount> kMemoryKinds = {
    MemoryKind::LayerOutputs, MemoryKind::SavedInternals, MemoryKind::Gradients, MemoryKind::Workspace};

// "layer outputs", "saved internals (for its backward)", "gradients", "workspace".
const char *kindName(MemoryKind kind);
// The colour of a kind in every picture: layer outputs purple like resident
// nodes, saved internals the colour of the schedule picture's saved bar.
QColor kindColour(MemoryKind kind, const Palette &palette);

class MemoryBreakdown {
public:
    using Bytes = std::array<std::int64_t, kMemoryKindCount>; // indexed by MemoryKind

    explicit MemoryBreakdown(const Timeline &timeline);

    std::int64_t steps() const { return static_cast<std::int64_t>(bytes_.size()); }
    // Bytes of each kind held while op `step` runs.
    const Bytes &at(std::int64_t step) const { return bytes_[static_cast<std::size_t>(step)]; }
    std::int64_t at(std::int64_t step, MemoryKind kind) const { return at(step)[static_cast<std::size_t>(kind)]; }
    // The kinds up to and including `kind`, stacked in kMemoryKinds order.
    std::int64_t stackedUpTo(std::int64_t step, MemoryKind kind) const;

private:
    std::vector<Bytes> bytes_;
};

} // namespace remat::render
