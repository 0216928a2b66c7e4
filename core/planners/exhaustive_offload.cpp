#include "core/planners/exhaustive_offload.h"

#include "core/errors.h"

#include <algorithm>
#include <array>
#include <queue>
#include <string>
#include <unordered_map>
#include <vector>

namespace remat::planners {

namespace {

// The discrete part of a state. Forward node i has bit i in `host` (a host
// copy exists) and in `prefetched` (that copy is being brought back, not yet
// waited for); a node with its bit in both `resident` and `host` has a
// transfer whose end still matters (an offload not yet waited for by a free,
// or a prefetch not yet waited for by a read or a free).
struct State {
    std::uint32_t resident = 0; // bit x: node x on the device
    std::uint32_t host = 0;
    std::uint32_t prefetched = 0;
    std::uint32_t done = 0; // bit i: b_i computed
    std::uint64_t key() const {
        return std::uint64_t{resident} | std::uint64_t{host} << 16 | std::uint64_t{prefetched} << 24 |
               std::uint64_t{done} << 32;
    }
};

struct Label {
    State state;
    double compute = 0, link = 0;
    std::array<double, kMaxOffloadSearchForwardNodes> ends{}; // by forward node, where pending
    std::int32_t parent = -1;
    Op op = Op::compute(0);
    bool dead = false;
};

bool dominates(const Label &a, const Label &b) {
    if (a.compute > b.compute || a.link > b.link)
        return false;
    const std::uint32_t pending = b.state.resident & b.state.host;
    for (int i = 0; i < kMaxOffloadSearchForwardNodes; ++i)
        if ((pending >> i & 1u) && a.ends[static_cast<std::size_t>(i)] > b.ends[static_cast<std::size_t>(i)])
            return false;
    return true;
}

class Search {
public:
    Search(const Model &model, std::int64_t budget, const Machine &machine)
        : model_(model), budget_(budget), machine_(machine), f_(model.forwardCount()), nodes_(model.nodeCount()) {
        readMask_.assign(static_cast<std::size_t>(nodes_), 0);
        for (int x = 0; x < nodes_; ++x)
            for (NodeId r : model.reads(static_cast<NodeId>(x)))
                readMask_[static_cast<std::size_t>(x)] |= 1u << r;
    }

    std::optional<FastestSchedule> run() {
        Label start;
        start.state.resident = 1u << model_.inputNode();
        if (model_.bytes(model_.inputNode()) > budget_)
            return std::nullopt;
        offer(start);
        const std::uint32_t allDone = (1u << f_) - 1;
        while (!queue_.empty()) {
            const auto [bound, index] = queue_.top();
            queue_.pop();
            if (labels_[static_cast<std::size_t>(index)].dead)
                continue;
            const Label label = labels_[static_cast<std::size_t>(index)];
            if (label.state.done == allDone && (label.state.host & ~label.state.prefetched) == 0)
                return rebuild(index, std::max(label.compute, label.link));
            expand(label, index);
        }
        return std::nullopt;
    }

private:
    double seconds(NodeId x) const { return model_.cost(x) * machine_.secondsPerCost; }
    bool forward(int x) const { return x < f_; }

    // Admissible: every gradient not done must still run, and so must each a_i
    // its gradient reads that is neither on the device nor on host.
    double bound(const Label &l) const {
        double left = 0;
        for (int i = 0; i < f_; ++i)
            if (!(l.state.done >> i & 1u)) {
                left += seconds(model_.backwardNode(i));
                if (!((l.state.resident | l.state.host) >> i & 1u))
                    left += seconds(model_.forwardNode(i));
            }
        return std::max(l.link, l.compute + left);
    }

    std::int64_t deviceBytes(std::uint32_t resident) const {
        std::int64_t sum = 0;
        for (int x = 0; x < nodes_; ++x)
            if (resident >> x & 1u)
                sum += model_.bytes(static_cast<NodeId>(x));
        return sum;
    }

    void offer(Label next) {
        const std::uint32_t pending = next.state.resident & next.state.host;
        for (int i = 0; i < kMaxOffloadSearchForwardNodes; ++i)
            if (!(pending >> i & 1u))
                next.ends[static_cast<std::size_t>(i)] = 0;
        auto &same = byState_[next.state.key()];
        for (std::int32_t k : same)
            if (!labels_[static_cast<std::size_t>(k)].dead && dominates(labels_[static_cast<std::size_t>(k)], next))
                return;
        for (std::int32_t k : same)
            if (!labels_[static_cast<std::size_t>(k)].dead && dominates(next, labels_[static_cast<std::size_t>(k)]))
                labels_[static_cast<std::size_t>(k)].dead = true;
        const auto index = static_cast<std::int32_t>(labels_.size());
        labels_.push_back(next);
        same.push_back(index);
        queue_.push({bound(next), index});
    }

    // Waits for x's pending transfer (when it has one) and lets a prefetched copy go.
    static void touch(Label &l, int x) {
        const std::uint32_t bit = 1u << x;
        if ((l.state.resident & l.state.host) & bit) {
            if (l.state.prefetched & bit) {
                l.compute = std::max(l.compute, l.ends[static_cast<std::size_t>(x)]);
                l.state.prefetched &= ~bit;
                l.state.host &= ~bit;
            }
        }
    }

    void expand(const Label &from, std::int32_t index) {
        const State &s = from.state;
        const std::int64_t held = deviceBytes(s.resident);
        auto child = [&](Op op) {
            Label l = from;
            l.parent = index;
            l.op = op;
            return l;
        };
        for (int x = 0; x < nodes_; ++x) {
            const NodeId id = static_cast<NodeId>(x);
            const std::uint32_t bit = 1u << x;
            if (s.resident & bit) {
                if (id != model_.inputNode() && id != model_.inputGradient()) {
                    Label l = child(Op::free(id));
                    if (forward(x) && (s.host & bit)) {
                        // A prefetched copy is waited for; an offload must finish before its source goes.
                        l.compute = std::max(l.compute, from.ends[static_cast<std::size_t>(x)]);
                        if (s.prefetched & bit) {
                            l.state.prefetched &= ~bit;
                            l.state.host &= ~bit;
                        }
                    }
                    l.state.resident &= ~bit;
                    offer(l);
                }
                if (forward(x) && id != model_.inputNode() && !((s.host & ~s.prefetched) & bit)) {
                    Label l = child(Op::offload(id));
                    touch(l, x);
                    transfer(l, x);
                    l.state.host |= bit;
                    offer(l);
                }
                continue;
            }
            if (forward(x) && (s.host & bit)) {
                if (held + model_.bytes(id) <= budget_) {
                    Label l = child(Op::prefetch(id));
                    transfer(l, x);
                    l.state.resident |= bit;
                    l.state.prefetched |= bit;
                    offer(l);
                }
                continue; // a node on host is brought back, never recomputed
            }
            if (id == model_.inputNode())
                continue;
            const bool backward = !forward(x);
            if (backward && (s.done >> model_.indexOf(id) & 1u))
                continue;
            const std::uint32_t reads = readMask_[static_cast<std::size_t>(x)];
            if ((s.resident & reads) != reads)
                continue;
            if (held + model_.bytes(id) + model_.workspace(id) > budget_)
                continue;
            Label l = child(Op::compute(id));
            for (int r = 0; r < f_; ++r)
                if (reads >> r & 1u)
                    touch(l, r);
            l.compute += seconds(id);
            l.state.resident |= bit;
            if (backward)
                l.state.done |= 1u << model_.indexOf(id);
            offer(l);
        }
    }

    // Issues a transfer of x at the compute clock: FIFO on the one link.
    void transfer(Label &l, int x) const {
        const double start = std::max(l.compute, l.link);
        l.link = start + machine_.link.seconds(model_.bytes(static_cast<NodeId>(x)));
        l.ends[static_cast<std::size_t>(x)] = l.link;
    }

    FastestSchedule rebuild(std::int32_t goal, double makespan) const {
        FastestSchedule out;
        out.makespanSeconds = makespan;
        std::vector<Op> reversed;
        for (std::int32_t k = goal; labels_[static_cast<std::size_t>(k)].parent >= 0;
             k = labels_[static_cast<std::size_t>(k)].parent)
            reversed.push_back(labels_[static_cast<std::size_t>(k)].op);
        out.schedule.strategy = "exhaustive";
        out.schedule.description = "fastest schedule by exhaustive search";
        out.schedule.ops.assign(reversed.rbegin(), reversed.rend());
        return out;
    }

    const Model &model_;
    std::int64_t budget_;
    const Machine &machine_;
    int f_, nodes_;
    std::vector<std::uint32_t> readMask_;
    std::vector<Label> labels_;
    std::unordered_map<std::uint64_t, std::vector<std::int32_t>> byState_;
    using Entry = std::pair<double, std::int32_t>;
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue_;
};

} // namespace

std::optional<FastestSchedule> fastestSchedule(const Model &model, std::int64_t deviceBudgetBytes,
                                               const Machine &machine) {
    if (model.forwardCount() > kMaxOffloadSearchForwardNodes)
        throw LimitExceeded("the offload search takes models of up to " +
                            std::to_string(kMaxOffloadSearchForwardNodes) + " forward nodes, got " +
                            std::to_string(model.forwardCount()));
    if (model.hasSavedBytes())
        throw InvalidArgument("the offload search takes models without saved internals");
    if (!(machine.secondsPerCost > 0))
        throw InvalidArgument("the offload search needs the time of a unit of cost");
    return Search(model, deviceBudgetBytes, machine).run();
}

} // namespace remat::planners
