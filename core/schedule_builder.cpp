#include "core/schedule_builder.h"

#include <algorithm>
#include <limits>

namespace remat {

namespace {

// Liveness over nodes and over saved internals: the internals s_i of layer i
// get the pseudo id nodeCount + i, so one backward scan frees both.
std::vector<Op> freesAsEarlyAsPossible(const Model &model, const std::vector<Op> &computes) {
    const std::size_t count = computes.size();
    const NodeId nodes = static_cast<NodeId>(model.nodeCount());
    const bool withSaved = model.hasSavedBytes();
    std::vector<std::uint8_t> readLater(nodes + (withSaved ? model.forwardCount() : 0), 0);
    std::vector<NodeId> freesReversed; // ids >= nodes are saved internals
    freesReversed.reserve(count);
    std::vector<std::uint32_t> freeCount(count, 0);
    const NodeId pinnedInput = model.inputNode();
    const NodeId pinnedGradient = model.inputGradient();
    auto markRead = [&](NodeId r) {
        if (!readLater[r]) {
            readLater[r] = 1;
            if (r != pinnedInput && r != pinnedGradient)
                freesReversed.push_back(r);
        }
    };
    for (std::size_t t = count; t-- > 0;) {
        const NodeId x = computes[t].node;
        const std::size_t before = freesReversed.size();
        switch (computes[t].kind) {
        case OpKind::Offload:
            // Copying to host reads the device copy.
            markRead(x);
            freeCount[t] = static_cast<std::uint32_t>(freesReversed.size() - before);
            continue;
        case OpKind::Free:
            // A free the plan placed itself (an offloaded node's device copy,
            // held while its copy overlaps compute): no other free for the
            // reads before it.
            readLater[x] = 1;
            continue;
        case OpKind::Prefetch:
        case OpKind::Compute:
            break;
        case OpKind::FreeSaved:
            continue;
        }
        // x itself (computed, or brought back by a prefetch): dead if nothing reads this incarnation.
        if (!readLater[x] && x != pinnedGradient && x != pinnedInput)
            freesReversed.push_back(x);
        readLater[x] = 0;
        if (computes[t].kind == OpKind::Prefetch) {
            freeCount[t] = static_cast<std::uint32_t>(freesReversed.size() - before);
            continue;
        }
        if (computes[t].records) {
            const NodeId s = nodes + x;
            if (!readLater[s])
                freesReversed.push_back(s);
            readLater[s] = 0;
        }
        if (withSaved) {
            const auto savedReads = model.savedReads(x);
            for (auto it = savedReads.rbegin(); it != savedReads.rend(); ++it)
                markRead(nodes + static_cast<NodeId>(*it));
        }
        const auto reads = model.reads(x);
        for (auto it = reads.rbegin(); it != reads.rend(); ++it)
            markRead(*it);
        freeCount[t] = static_cast<std::uint32_t>(freesReversed.size() - before);
    }
    std::vector<Op> ops;
    ops.reserve(count + freesReversed.size());
    std::size_t cursor = freesReversed.size();
    for (std::size_t t = 0; t < count; ++t) {
        ops.push_back(computes[t]);
        // Frees of op t were pushed as one block; emit it in reading order.
        const std::size_t first = cursor - freeCount[t];
        for (std::size_t k = cursor; k-- > first;) {
            const NodeId id = freesReversed[k];
            ops.push_back(id < nodes ? Op::free(id) : Op::freeSaved(id - nodes));
        }
        cursor = first;
    }
    return ops;
}

// PyTorch's meaning of a checkpointed segment (see the header): which runs
// record, and the re-runs a backward needs.
std::vector<Op> withRecording(const Model &model, const std::vector<NodeId> &order, int discardThrough) {
    constexpr std::size_t never = std::numeric_limits<std::size_t>::max();
    const int f = model.forwardCount();
    std::vector<std::size_t> backwardAt(f, never);
    for (std::size_t t = 0; t < order.size(); ++t)
        if (model.isBackward(order[t]))
            backwardAt[model.indexOf(order[t])] = t;
    // The first backward that consumes s_c, and how many consume it.
    std::vector<std::size_t> firstConsumer(f, never);
    std::vector<int> consumersLeft(f, 0);
    for (int c = 1; c < f; ++c)
        for (int p : model.inputs(c)) {
            firstConsumer[c] = std::min(firstConsumer[c], backwardAt[p]);
            ++consumersLeft[c];
        }
    std::vector<std::size_t> nextRun(order.size(), never);
    std::vector<std::size_t> seenAt(model.nodeCount(), never);
    for (std::size_t t = order.size(); t-- > 0;) {
        nextRun[t] = seenAt[order[t]];
        seenAt[order[t]] = t;
    }

    std::vector<Op> computes;
    computes.reserve(order.size() + f);
    std::vector<std::uint8_t> ran(f, 0), held(f, 0);
    for (std::size_t t = 0; t < order.size(); ++t) {
        const NodeId x = order[t];
        const int i = model.indexOf(x);
        if (model.isBackward(x)) {
            const auto needs = model.savedReads(x);
            for (int c : needs)
                if (!held[c]) {
                    computes.push_back(Op::record(model.forwardNode(c)));
                    held[c] = 1;
                }
            computes.push_back(Op::compute(x));
            for (int c : needs)
                if (--consumersLeft[c] == 0)
                    held[c] = 0;
            continue;
        }
        const bool firstRunDiscards = !ran[i] && i <= discardThrough;
        ran[i] = 1;
        const bool record = model.savedBytes(i) > 0 && !firstRunDiscards && !held[i] && t < firstConsumer[i] &&
                            (nextRun[t] == never || nextRun[t] > firstConsumer[i]);
        if (record)
            held[i] = 1;
        computes.push_back(record ? Op::record(x) : Op::compute(x));
    }
    return computes;
}

} // namespace

std::vector<NodeId> storeAllOrder(const Model &model) {
    std::vector<NodeId> order;
    order.reserve(2 * static_cast<std::size_t>(model.forwardCount()));
    for (int i = 1; i < model.forwardCount(); ++i)
        order.push_back(model.forwardNode(i));
    for (int i = model.forwardCount() - 1; i >= 0; --i)
        order.push_back(model.backwardNode(i));
    return order;
}

std::vector<Op> computeOps(const Model &model, const std::vector<NodeId> &computeOrder, int discardFirstRunsThrough) {
    if (model.hasSavedBytes())
        return withRecording(model, computeOrder, discardFirstRunsThrough);
    std::vector<Op> computes;
    computes.reserve(computeOrder.size());
    for (NodeId x : computeOrder)
        computes.push_back(Op::compute(x));
    return computes;
}

std::vector<Op> insertFrees(const Model &model, const std::vector<NodeId> &computeOrder, int discardFirstRunsThrough) {
    return freesAsEarlyAsPossible(model, computeOps(model, computeOrder, discardFirstRunsThrough));
}

std::vector<Op> insertFrees(const Model &model, const std::vector<Op> &computes) {
    return freesAsEarlyAsPossible(model, computes);
}

int lastCheckpoint(const std::vector<int> &checkpoints) {
    return checkpoints.empty() ? 0 : *std::max_element(checkpoints.begin(), checkpoints.end());
}

std::vector<int> keptIntoBackward(const Model &model, const std::vector<Op> &ops) {
    // Kept on the device, or on host by an offload.
    std::vector<std::uint8_t> resident(model.forwardCount(), 0), onHost(model.forwardCount(), 0);
    for (const Op &op : ops) {
        if (model.isBackward(op.node) && op.kind == OpKind::Compute)
            break;
        if (op.kind == OpKind::Compute)
            resident[op.node] = 1;
        else if (op.kind == OpKind::Offload)
            onHost[op.node] = 1;
        else if (op.kind == OpKind::Free)
            resident[op.node] = onHost[op.node];
    }
    std::vector<int> kept;
    // The output is always held for the loss: not a choice of the plan.
    for (int i = 1; i + 1 < model.forwardCount(); ++i)
        if (resident[i])
            kept.push_back(i);
    return kept;
}

} // namespace remat
