#include "core/schedule_builder.h"

#include <algorithm>

namespace remat {

std::vector<Op> insertFrees(const Model &model, const std::vector<NodeId> &computeOrder) {
    const std::size_t count = computeOrder.size();
    // Walk backwards, remembering for each node whether a read of its current
    // incarnation comes later. The first read met from behind is the last one.
    std::vector<std::uint8_t> readLater(model.nodeCount(), 0);
    std::vector<NodeId> freesReversed;
    freesReversed.reserve(count);
    std::vector<std::uint32_t> freeCount(count, 0);
    const NodeId pinnedInput = model.inputNode();
    const NodeId pinnedGradient = model.inputGradient();
    for (std::size_t t = count; t-- > 0;) {
        const NodeId x = computeOrder[t];
        const std::size_t before = freesReversed.size();
        // x itself: dead if nothing reads this incarnation.
        if (!readLater[x] && x != pinnedGradient && x != pinnedInput)
            freesReversed.push_back(x);
        readLater[x] = 0;
        const auto reads = model.reads(x);
        for (auto it = reads.rbegin(); it != reads.rend(); ++it) {
            const NodeId r = *it;
            if (!readLater[r]) {
                readLater[r] = 1;
                if (r != pinnedInput && r != pinnedGradient)
                    freesReversed.push_back(r);
            }
        }
        freeCount[t] = static_cast<std::uint32_t>(freesReversed.size() - before);
    }
    std::vector<Op> ops;
    ops.reserve(count + freesReversed.size());
    std::size_t cursor = freesReversed.size();
    for (std::size_t t = 0; t < count; ++t) {
        ops.push_back(Op::compute(computeOrder[t]));
        // Frees of op t were pushed as one block; emit it in reading order.
        const std::size_t first = cursor - freeCount[t];
        for (std::size_t k = cursor; k-- > first;)
            ops.push_back(Op::free(freesReversed[k]));
        cursor = first;
    }
    return ops;
}

} // namespace remat
