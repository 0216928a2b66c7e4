#include "core/planners/exhaustive.h"

#include "core/errors.h"
#include "core/planners/store_all_positions.h"

#include <queue>
#include <string>
#include <unordered_map>
#include <unordered_set>

namespace remat::planners {

namespace {

struct State {
    std::uint32_t resident;  // bit x: node x resident (2 * 12 nodes at most)
    std::uint32_t done;      // bit i: b_i computed
    std::uint32_t saved = 0; // bit i: the internals s_i of layer F_i held
    // ScheduleClass::StoreAllOrderStages: the position of the next node to
    // compute for the first time, and of the last one computed since.
    std::uint32_t frontier = 0, last = 0;
    std::uint64_t key() const {
        return std::uint64_t{resident} | std::uint64_t{done} << 24 | std::uint64_t{saved} << 36 |
               std::uint64_t{frontier} << 48 | std::uint64_t{last} << 54;
    }
    static State of(std::uint64_t key) {
        return {static_cast<std::uint32_t>(key & 0xffffffu), static_cast<std::uint32_t>(key >> 24 & 0xfffu),
                static_cast<std::uint32_t>(key >> 36 & 0xfffu), static_cast<std::uint32_t>(key >> 48 & 0x3fu),
                static_cast<std::uint32_t>(key >> 54 & 0x3fu)};
    }
};

struct Visit {
    double cost;
    std::uint64_t previous;
    Op op;
};

} // namespace

std::optional<ExhaustiveResult> cheapestSchedule(const Model &model, std::int64_t budget, Measure measure,
                                                 ScheduleClass scheduleClass) {
    const int f = model.forwardCount();
    if (f > kMaxExhaustiveForwardNodes)
        throw LimitExceeded("exhaustive search takes models of up to " + std::to_string(kMaxExhaustiveForwardNodes) +
                            " forward nodes, got " + std::to_string(f));
    const int nodes = model.nodeCount();
    auto weight = [&](NodeId x) { return measure == Measure::Bytes ? model.bytes(x) : std::int64_t{1}; };
    auto workspace = [&](NodeId x) { return measure == Measure::Bytes ? model.workspace(x) : std::int64_t{0}; };
    std::vector<std::uint32_t> readMask(nodes, 0), savedReadMask(nodes, 0);
    for (int x = 0; x < nodes; ++x) {
        for (NodeId r : model.reads(static_cast<NodeId>(x)))
            readMask[x] |= 1u << r;
        for (int c : model.savedReads(static_cast<NodeId>(x)))
            savedReadMask[x] |= 1u << c;
    }
    // Saved internals weigh their bytes; they are not nodes.
    auto savedWeight = [&](int i) { return measure == Measure::Bytes ? model.savedBytes(i) : std::int64_t{0}; };
    const std::uint32_t allDone = (f == 32 ? 0u : (1u << f)) - 1;
    const NodeId inputGradient = model.inputGradient();

    // A* lower bound on what is left: every gradient not yet computed, and the
    // forward node a_i of each such b_i when it is not resident now, must be
    // computed at least once more. It never overestimates and drops by at most
    // an op's cost per op, so the first goal taken from the queue is cheapest.
    auto remaining = [&](const State &s) {
        double h = 0;
        for (int i = 0; i < f; ++i)
            if (!(s.done >> i & 1u)) {
                const NodeId b = model.backwardNode(i);
                h += model.cost(b);
                // b_i reads one forward node, a_i, so no node is counted twice.
                const NodeId a = model.forwardNode(i);
                if (!(s.resident >> a & 1u))
                    h += model.cost(a);
            }
        return h;
    };
    const bool staged = scheduleClass == ScheduleClass::StoreAllOrderStages;
    // Positions in store-all's order: a_0..a_n, then b_n..b_0.
    auto position = [&](NodeId id) {
        return static_cast<std::uint32_t>(planners::positionOf(model, id));
    };
    // Whether the class allows computing `id` now, and the stage fields after it.
    auto stagedMove = [&](const State &s, NodeId id, State &next) {
        if (!staged)
            return true;
        const std::uint32_t p = position(id);
        if (p == s.frontier) {
            next.frontier = s.frontier + 1;
            next.last = 0;
            return true;
        }
        if (model.isBackward(id) || p > s.frontier || p <= s.last || (s.resident >> id & 1u))
            return false;
        next.last = p;
        return true;
    };
    const State start{1u << model.inputNode(), 0, 0, staged ? 1u : 0u, 0};
    if (weight(model.inputNode()) > budget)
        return std::nullopt;
    std::unordered_map<std::uint64_t, Visit> best;
    using Entry = std::pair<double, std::uint64_t>;
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> frontier;
    best[start.key()] = {0, start.key(), Op::compute(0)};
    frontier.push({remaining(start), start.key()});
    std::unordered_set<std::uint64_t> closed;
    std::optional<std::uint64_t> goal;
    while (!frontier.empty()) {
        const std::uint64_t key = frontier.top().second;
        frontier.pop();
        const State s = State::of(key);
        const double cost = best[key].cost;
        if (closed.count(key))
            continue;
        closed.insert(key);
        if (s.done == allDone) {
            goal = key;
            break;
        }
        std::int64_t resident = 0;
        for (int x = 0; x < nodes; ++x)
            if (s.resident >> x & 1u)
                resident += weight(static_cast<NodeId>(x));
        for (int i = 0; i < f; ++i)
            if (s.saved >> i & 1u)
                resident += savedWeight(i);
        auto relax = [&](State next, double c, Op op) {
            auto [it, fresh] = best.try_emplace(next.key(), Visit{c, key, op});
            if (!fresh && c >= it->second.cost)
                return;
            it->second = {c, key, op};
            frontier.push({c + remaining(next), next.key()});
        };
        for (int i = 1; i < f; ++i) {
            const std::uint32_t bit = 1u << i;
            if (s.saved & bit) {
                State next = s;
                next.saved &= ~bit;
                relax(next, cost, Op::freeSaved(model.forwardNode(i)));
                continue;
            }
            // A recording run of F_i, also while a_i is resident (re-run only to record).
            const NodeId a = model.forwardNode(i);
            State next = s;
            next.resident |= 1u << a;
            next.saved |= bit;
            if (savedWeight(i) > 0 && (s.resident & readMask[a]) == readMask[a] &&
                resident + ((s.resident >> a & 1u) ? 0 : weight(a)) + savedWeight(i) + workspace(a) <= budget &&
                stagedMove(s, a, next))
                relax(next, cost + model.cost(a), Op::record(a));
        }
        for (int x = 0; x < nodes; ++x) {
            const NodeId id = static_cast<NodeId>(x);
            const std::uint32_t bit = 1u << x;
            if (s.resident & bit) {
                // Free anything but the pinned a_0 and b_0.
                if (id != model.inputNode() && id != inputGradient) {
                    State next = s;
                    next.resident &= ~bit;
                    relax(next, cost, Op::free(id));
                }
                continue;
            }
            if (id == model.inputNode())
                continue;
            const bool backward = model.isBackward(id);
            if (backward && (s.done >> model.indexOf(id) & 1u))
                continue;
            if ((s.resident & readMask[x]) != readMask[x] || (s.saved & savedReadMask[x]) != savedReadMask[x])
                continue;
            if (resident + weight(id) + workspace(id) > budget)
                continue;
            State next = s;
            next.resident |= bit;
            if (backward)
                next.done |= 1u << model.indexOf(id);
            if (stagedMove(s, id, next))
                relax(next, cost + model.cost(id), Op::compute(id));
        }
    }
    if (!goal)
        return std::nullopt;
    ExhaustiveResult result;
    result.cost = best[*goal].cost;
    std::vector<Op> reversed;
    for (std::uint64_t key = *goal; key != start.key(); key = best[key].previous)
        reversed.push_back(best[key].op);
    result.schedule.strategy = "exhaustive";
    result.schedule.description = "cheapest schedule by exhaustive search";
    result.schedule.ops.assign(reversed.rbegin(), reversed.rend());
    return result;
}

} // namespace remat::planners
