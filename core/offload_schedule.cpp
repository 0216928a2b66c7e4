#include "core/offload_schedule.h"

#include "core/errors.h"
#include "core/schedule_builder.h"

#include <algorithm>

namespace remat {

std::vector<Op> withOffloads(const Model &model, const std::vector<Op> &computes,
                             const std::vector<std::uint8_t> &offloaded) {
    const std::size_t count = computes.size();
    // Where each offloaded node is computed, and the first backward op that reads it.
    constexpr std::size_t none = static_cast<std::size_t>(-1);
    std::vector<std::size_t> computedAt(offloaded.size(), none), firstBackwardRead(offloaded.size(), none);
    for (std::size_t t = 0; t < count; ++t) {
        const NodeId x = computes[t].node;
        if (!model.isBackward(x) && offloaded[x]) {
            if (computedAt[x] != none)
                throw InvalidArgument(model.name(x) + " is computed twice; only a node computed once is offloaded");
            computedAt[x] = t;
        }
        if (model.isBackward(x))
            for (NodeId r : model.reads(x))
                if (!model.isBackward(r) && offloaded[r] && firstBackwardRead[r] == none)
                    firstBackwardRead[r] = t;
    }
    // The last forward read of each offloaded node before its backward reader.
    std::vector<std::size_t> lastRead(computedAt);
    for (std::size_t t = 0; t < count; ++t)
        for (NodeId r : model.reads(computes[t].node))
            if (!model.isBackward(r) && offloaded[r] && t > computedAt[r] && t < firstBackwardRead[r])
                lastRead[r] = t;
    // Transfers to insert after op t (offloads) and before op t (prefetches).
    std::vector<std::vector<NodeId>> offloadAfter(count), prefetchBefore(count);
    for (std::size_t i = 0; i < offloaded.size(); ++i) {
        if (!offloaded[i] || i == model.inputNode())
            continue;
        if (computedAt[i] == none || firstBackwardRead[i] == none)
            continue; // never computed, or never read by the backward pass: nothing to move
        const std::size_t reader = firstBackwardRead[i];
        // One compute op ahead, but never before a read of the device copy.
        const std::size_t at = std::max(reader - 1, lastRead[i] + 1);
        // Freed and brought back with no compute op in between: moving it would gain nothing.
        if (at <= lastRead[i] + 1)
            continue;
        offloadAfter[computedAt[i]].push_back(static_cast<NodeId>(i));
        prefetchBefore[at].push_back(static_cast<NodeId>(i));
    }
    std::vector<Op> ops;
    ops.reserve(count + 2 * offloaded.size());
    for (std::size_t t = 0; t < count; ++t) {
        for (NodeId x : prefetchBefore[t])
            ops.push_back(Op::prefetch(x));
        ops.push_back(computes[t]);
        for (NodeId x : offloadAfter[t])
            ops.push_back(Op::offload(x));
    }
    return insertFrees(model, ops);
}

} // namespace remat
