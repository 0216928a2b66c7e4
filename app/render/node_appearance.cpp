#include "app/render/node_appearance.h"

#include "app/render/runtime_narration.h"

namespace remat::render {

std::vector<std::uint8_t> checkpointMask(const Timeline &timeline) {
    std::vector<std::uint8_t> mask(static_cast<std::size_t>(timeline.model().forwardCount()), 0);
    mask[0] = 1;
    for (const int c : timeline.schedule().checkpoints)
        if (c >= 0 && c < static_cast<int>(mask.size()))
            mask[static_cast<std::size_t>(c)] = 1;
    return mask;
}

NodeAppearance appearanceOf(const Timeline &timeline, const std::vector<std::uint8_t> &checkpoints,
                            const StepState &state, NodeId node) {
    const Model &model = timeline.model();
    NodeAppearance a;
    a.resident = state.resident[node] != 0;
    a.computeCount = state.computeCount[node];
    a.checkpoint = !model.isBackward(node) && checkpoints[node] != 0;
    const bool inputNode = node == model.inputNode(); // resident from the start, never computed
    bool current = false;
    if (state.step >= 0) {
        const Op op = timeline.op(state.step);
        current = op.node == node && op.kind == OpKind::Compute;
        a.justFreed = op.node == node && op.kind == OpKind::Free;
        // Evicted to make room for this op (or by it): marked while the op is on screen.
        if (!a.resident && !model.isBackward(node))
            for (const RuntimeEvent *e : evictionsFor(timeline, state.step))
                a.evicted = a.evicted || (!e->saved && e->node == node);
    }
    if (a.resident)
        a.fill = current                                           ? NodeFill::Current
                 : (a.computeCount > 1 && !model.isBackward(node)) ? NodeFill::Recomputed
                                                                   : NodeFill::Resident;
    else if (state.placeOf(node) == Place::Host)
        a.fill = NodeFill::OnHost;
    else
        a.fill = (a.computeCount > 0 || inputNode) ? NodeFill::Freed : NodeFill::NotComputed;
    return a;
}

const char *fillName(NodeFill fill) {
    switch (fill) {
    case NodeFill::NotComputed:
        return "not yet computed";
    case NodeFill::Resident:
        return "resident in memory";
    case NodeFill::Recomputed:
        return "resident, recomputed";
    case NodeFill::Current:
        return "being computed now";
    case NodeFill::Freed:
        return "freed";
    case NodeFill::OnHost:
        return "on host (offloaded)";
    }
    return "";
}

} // namespace remat::render
