#include "app/render/memory_kinds.h"

namespace remat::render {

const char *kindName(MemoryKind kind) {
    switch (kind) {
    case MemoryKind::LayerOutputs:
        return "layer outputs";
    case MemoryKind::SavedInternals:
        return "saved internals (for its backward)";
    case MemoryKind::Gradients:
        return "gradients";
    case MemoryKind::Workspace:
        return "workspace";
    }
    return "";
}

QColor kindColour(MemoryKind kind, const Palette &palette) {
    switch (kind) {
    case MemoryKind::LayerOutputs:
        return palette.resident;
    case MemoryKind::SavedInternals:
        // Magenta: apart from every node fill, the checkpoint ring and the badge.
        return palette.isDark() ? QColor(0xf0, 0x6c, 0xc8) : QColor(0xc8, 0x2a, 0x9a);
    case MemoryKind::Gradients:
        return palette.isDark() ? QColor(0x5c, 0xb0, 0xff) : QColor(0x1e, 0x88, 0xe5);
    case MemoryKind::Workspace:
        return palette.arrow;
    }
    return palette.arrow;
}

MemoryBreakdown::MemoryBreakdown(const Timeline &timeline) {
    const Model &model = timeline.model();
    bytes_.resize(static_cast<std::size_t>(timeline.steps()));
    StepState state = timeline.stateAt(-1);
    // Running sums of what is held after each op; the workspace belongs to the op alone.
    Bytes held{};
    held[static_cast<std::size_t>(MemoryKind::LayerOutputs)] = model.bytes(model.inputNode());
    auto kindOf = [&](NodeId node) {
        return static_cast<std::size_t>(model.isBackward(node) ? MemoryKind::Gradients : MemoryKind::LayerOutputs);
    };
    const auto saved = static_cast<std::size_t>(MemoryKind::SavedInternals);
    for (std::int64_t step = 0; step < timeline.steps(); ++step) {
        const Op op = timeline.op(step);
        const bool wasResident = state.resident[op.node] != 0;
        const bool heldSaved = !model.isBackward(op.node) && state.holdsSaved(model.indexOf(op.node));
        timeline.advance(state);
        std::int64_t workspace = 0;
        switch (op.kind) {
        case OpKind::Compute:
            if (!wasResident)
                held[kindOf(op.node)] += model.bytes(op.node);
            if (op.records && !heldSaved)
                held[saved] += model.savedBytes(model.indexOf(op.node));
            workspace = model.workspace(op.node);
            break;
        case OpKind::Free:
            if (wasResident)
                held[kindOf(op.node)] -= model.bytes(op.node);
            break;
        case OpKind::FreeSaved:
            if (heldSaved)
                held[saved] -= model.savedBytes(model.indexOf(op.node));
            break;
        case OpKind::Offload: // the device copy stays until its free
            break;
        case OpKind::Prefetch: // the device buffer is held from the issue on
            if (!wasResident)
                held[kindOf(op.node)] += model.bytes(op.node);
            break;
        }
        Bytes &now = bytes_[static_cast<std::size_t>(step)];
        now = held;
        now[static_cast<std::size_t>(MemoryKind::Workspace)] = workspace;
    }
}

std::int64_t MemoryBreakdown::stackedUpTo(std::int64_t step, MemoryKind kind) const {
    std::int64_t sum = 0;
    for (std::size_t k = 0; k <= static_cast<std::size_t>(kind); ++k)
        sum += at(step)[k];
    return sum;
}

} // namespace remat::render
