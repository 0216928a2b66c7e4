#include "core/planners/graph_stage_search.h"

#include "core/errors.h"
#include "core/executor/thread_pool.h"
#include "core/planners/stage_mask.h"
#include "core/planners/stage_pressure.h"
#include "core/planners/store_all_positions.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <exception>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace remat::planners {

namespace {

using Mask = StageMask;

// A state at the start of a stage, and how it was reached.
struct Entry {
    Mask resident = 0, held = 0; // forward nodes resident, layers' internals held
    double cost = 0;             // recompute cost so far
    std::int32_t parent = -1;    // in the previous stage's states
    Mask computed = 0;           // the previous stage's recomputations (its own node aside)
    Mask recorded = 0;           // which of those, and its own node, recorded
};

struct KeyHash {
    std::size_t operator()(const std::pair<Mask, Mask> &k) const {
        return std::hash<Mask>{}(k.first * 0x9E3779B97F4A7C15ull ^ k.second);
    }
};

class WorkExhausted {};

constexpr std::int64_t kMaxStates = 8'000'000;

// A stage's states are expanded on every core when it is worth it: from
// this many layouts into the search, and with two states or more.
constexpr std::int64_t kParallelFrom = 20'000;

// What the lanes expanding one stage share. Each lane counts its layouts
// and publishes them in chunks, so a lane may stop as soon as the stage is
// sure to be past the work left; whether it is, is decided afterwards from
// the exact count of each state, which no thread count can change.
struct StageShared {
    std::int64_t limit = 0; // the layouts left for the stage
    std::atomic<std::int64_t> published{0};
    std::atomic<bool> stop{false};
    std::mutex cancelMutex; // the caller's cancel check, one thread at a time
    std::mutex errorMutex;
    std::exception_ptr error; // the first failure that is not running out of work
    bool cancelled = false;
};

class StageSearch {
public:
    StageSearch(const Model &model, BudgetUnit unit, std::int64_t budget, double upperBound, std::int64_t maxWork,
                const std::function<bool()> &cancelled, int threads)
        : model_(model), cap_(budget), upperBound_(upperBound), maxWork_(maxWork), cancelled_(cancelled),
          threads_(threads > 0 ? threads : exec::availableCores()) {
        n_ = model.layers();
        V_ = model.nodeCount();
        tolerance_ = std::isfinite(upperBound) ? 1e-9 * std::max(1.0, std::abs(upperBound)) : 0;
        const bool bytes = unit == BudgetUnit::Bytes;
        reads_.assign(V_, 0);
        savedNeed_.assign(V_, 0);
        weight_.assign(V_, 1);
        workspace_.assign(V_, 0);
        saved_.assign(n_ + 1, 0);
        cost_.assign(n_ + 1, 0);
        std::vector<int> lastReader(V_, 0);
        for (int p = 0; p < V_; ++p) {
            const NodeId id = nodeAt(p);
            if (bytes) {
                weight_[p] = model.bytes(id);
                workspace_[p] = model.workspace(id);
            }
            for (NodeId u : model.reads(id)) {
                const int q = positionOf(u);
                lastReader[q] = std::max(lastReader[q], p);
                if (q >= 1 && q <= n_)
                    reads_[p] |= bitOf(q);
            }
            for (int c : model.savedReads(id))
                savedNeed_[p] |= bitOf(c);
        }
        for (int p = 1; p <= n_; ++p) {
            cost_[p] = model.cost(nodeAt(p));
            if (bytes && model.savedBytes(p) > 0) {
                saved_[p] = model.savedBytes(p);
                records_ |= bitOf(p);
            }
        }
        // A forward node is of use up to the last stage that may read it: a
        // reader's own stage, or, for a forward reader, any stage that may
        // compute that reader again (to use it, or to record its internals).
        std::vector<int> lastUse(n_ + 1, 0), savedLastUse(n_ + 1, 0);
        for (int v = 1; v < V_; ++v)
            for (int c = 1; c <= n_; ++c)
                if (savedNeed_[v] & bitOf(c))
                    savedLastUse[c] = std::max(savedLastUse[c], v);
        for (int v = V_ - 1; v >= 1; --v)
            for (int p = 1; p <= n_; ++p)
                if (reads_[v] & bitOf(p))
                    lastUse[p] = std::max(lastUse[p], v <= n_ ? std::max({v, lastUse[v], savedLastUse[v]}) : v);
        usefulAfter_.assign(V_ + 1, 0);
        savedUsefulAfter_.assign(V_ + 1, 0);
        futureReads_.assign(V_ + 1, 0);
        futureSaved_.assign(V_ + 1, 0);
        base_.assign(V_, 0);
        for (int t = V_ - 1; t >= 1; --t) {
            futureReads_[t] = futureReads_[t + 1] | reads_[t];
            futureSaved_[t] = futureSaved_[t + 1] | savedNeed_[t];
        }
        for (int t = 1; t < V_; ++t) {
            for (int p = 1; p <= n_; ++p) {
                if (lastUse[p] > t)
                    usefulAfter_[t] |= bitOf(p);
                if (savedLastUse[p] > t)
                    savedUsefulAfter_[t] |= bitOf(p);
            }
            // What every stage holds: the input, and each gradient from its
            // stage to its last reader (constants of the class).
            base_[t] = weight_[0];
            for (int q = n_ + 1; q < t; ++q)
                if (lastReader[q] >= t)
                    base_[t] += weight_[q];
        }
        pressure_ = StagePressureBound({n_, V_, cap_, weight_, saved_, workspace_, base_, cost_, reads_, savedNeed_,
                                        futureReads_, futureSaved_});
        // Keep sets are decided costly items first: leaving one out must be
        // paid for by computing it again, so the bound cuts those branches
        // near the root, and the cheap items, which it cannot cut, are
        // decided at the leaves (docs/planners.md: 10 to 30 times less work).
        for (int p = 1; p <= n_; ++p)
            keepOrder_.push_back({false, bitOf(p)});
        for (int p = 1; p <= n_; ++p)
            if (records_ & bitOf(p))
                keepOrder_.push_back({true, bitOf(p)});
        std::stable_sort(keepOrder_.begin(), keepOrder_.end(), [&](const Item &a, const Item &b) {
            const int x = std::countr_zero(a.bit), y = std::countr_zero(b.bit);
            if (cost_[x] != cost_[y])
                return cost_[x] > cost_[y];
            return (a.internals ? saved_[x] : weight_[x]) > (b.internals ? saved_[y] : weight_[y]);
        });
    }

    StageSearchResult run() {
        StageSearchResult result;
        std::vector<Entry> current{Entry{}};
        std::vector<std::vector<Entry>> stages;
        try {
            for (int t = 1; t < V_; ++t) {
                std::vector<Entry> next = expandStage(t, current);
                stages.push_back(std::move(current));
                current = dropDominated(std::move(next));
                states_ += static_cast<std::int64_t>(current.size());
                if (current.empty())
                    break;
            }
        } catch (const WorkExhausted &) {
            result.work = maxWork_; // the layout past the bound was not evaluated
            result.states = states_;
            return result;
        }
        result.complete = true;
        result.work = work_;
        result.states = states_;
        if (current.empty()) {
            result.leastCost = leastCut_;
            return result;
        }
        const auto best = std::min_element(current.begin(), current.end(),
                                           [](const Entry &a, const Entry &b) { return a.cost < b.cost; });
        result.found = true;
        result.recomputeCost = best->cost;
        // Back from the last stage: each state names the stage that led to it.
        std::vector<std::vector<Op>> perStage;
        const Entry *e = &*best;
        for (int t = V_ - 1; t >= 1; --t) {
            std::vector<Op> ops;
            for (int p = 1; p <= n_; ++p)
                if (e->computed & bitOf(p))
                    ops.push_back((e->recorded & bitOf(p)) ? Op::record(nodeAt(p)) : Op::compute(nodeAt(p)));
            const bool own = t <= n_ && (e->recorded & bitOf(t));
            ops.push_back(own ? Op::record(nodeAt(t)) : Op::compute(nodeAt(t)));
            perStage.push_back(std::move(ops));
            e = &stages[static_cast<std::size_t>(t - 1)][static_cast<std::size_t>(e->parent)];
        }
        for (auto it = perStage.rbegin(); it != perStage.rend(); ++it)
            result.computes.insert(result.computes.end(), it->begin(), it->end());
        return result;
    }

private:
    // Every state of stage t expanded, one task each, on as many lanes as
    // pay; the states of stage t+1 are then gathered in the order of the
    // states they came from, as one lane would have found them: the same
    // states, costs and plans on any number of cores.
    std::vector<Entry> expandStage(int t, const std::vector<Entry> &current) {
        StageShared shared;
        shared.limit = maxWork_ - work_;
        const std::size_t n = current.size();
        if (!pool_ && n >= 2 && work_ >= kParallelFrom && threads_ > 1)
            pool_ = std::make_shared<exec::ThreadPool>(threads_);
        const auto lanes = static_cast<std::size_t>(pool_ ? pool_->threads() : 1);
        if (lanes_.size() != lanes) {
            lanes_.clear(); // a copy then holds no lanes of its own
            const StageSearch lane(*this);
            lanes_.reserve(lanes);
            while (lanes_.size() < lanes)
                lanes_.push_back(lane);
        }
        std::vector<std::vector<Entry>> found(n);
        std::vector<std::int64_t> workOf(n, 0);
        auto task = [&](std::int64_t i, int lane) {
            if (shared.stop.load(std::memory_order_relaxed))
                return; // the stage is over: out of work, cancelled or failed
            StageSearch &s = lanes_[static_cast<std::size_t>(lane)];
            s.shared_ = &shared;
            s.states_ = states_;
            try {
                workOf[static_cast<std::size_t>(i)] = s.expandOne(t, current, i, found[static_cast<std::size_t>(i)]);
            } catch (const WorkExhausted &) {
                shared.stop.store(true, std::memory_order_relaxed);
            } catch (...) {
                const std::lock_guard<std::mutex> lock(shared.errorMutex);
                if (!shared.error)
                    shared.error = std::current_exception();
                shared.stop.store(true, std::memory_order_relaxed);
            }
        };
        if (pool_)
            pool_->run(static_cast<std::int64_t>(n), task);
        else
            for (std::size_t i = 0; i < n; ++i)
                task(static_cast<std::int64_t>(i), 0);
        if (shared.error)
            std::rethrow_exception(shared.error);
        if (shared.cancelled)
            throw Cancelled();
        if (shared.stop.load())
            throw WorkExhausted{};
        std::int64_t stageWork = 0;
        for (std::int64_t w : workOf)
            stageWork += w;
        if (stageWork > shared.limit)
            throw WorkExhausted{};
        work_ += stageWork;
        for (const StageSearch &lane : lanes_)
            leastCut_ = std::min(leastCut_, lane.leastCut_);
        std::vector<Entry> next;
        index_.clear();
        for (const std::vector<Entry> &list : found)
            for (const Entry &e : list)
                gather(next, e);
        return next;
    }

    // One state of stage t (a lane's task): the states it leads to, each
    // the cheapest way it found there; returns the layouts it evaluated.
    std::int64_t expandOne(int t, const std::vector<Entry> &current, std::int64_t i, std::vector<Entry> &out) {
        stage_ = t;
        from_ = &current[static_cast<std::size_t>(i)];
        fromIndex_ = static_cast<std::int32_t>(i);
        next_.clear();
        if (index_.bucket_count() > 4096)
            index_ = {};
        else
            index_.clear();
        stateWork_ = 0;
        expand();
        out = std::move(next_);
        next_ = {};
        return stateWork_;
    }

    // A layout evaluated: past the stage's work, or told to stop, the lane
    // stops; every 4096 it publishes its count and asks whether to cancel.
    void tick() {
        ++stateWork_;
        if (stateWork_ > shared_->limit)
            throw WorkExhausted{};
        if ((stateWork_ & 4095) != 0)
            return;
        if (shared_->published.fetch_add(4096, std::memory_order_relaxed) + 4096 > shared_->limit ||
            shared_->stop.load(std::memory_order_relaxed))
            throw WorkExhausted{};
        if (cancelled_) {
            const std::lock_guard<std::mutex> lock(shared_->cancelMutex);
            if (!shared_->cancelled && cancelled_())
                shared_->cancelled = true;
            if (shared_->cancelled)
                throw WorkExhausted{}; // expandStage turns it into Cancelled
        }
    }

    NodeId nodeAt(int p) const { return nodeAtPosition(model_, p); }
    int positionOf(NodeId id) const { return planners::positionOf(model_, id); }
    std::int64_t weightOf(Mask m) const { return sumOf(m, weight_); }
    std::int64_t savedOf(Mask m) const { return sumOf(m, saved_); }
    double costOf(Mask m) const {
        double c = 0;
        for (; m; m &= m - 1)
            c += cost_[std::countr_zero(m)];
        return c;
    }
    // Every bound cut is what the plans of that branch cost at least: the
    // least of them is a lower bound for the class when nothing is found.
    bool beaten(double cost) {
        if (cost < upperBound_ - tolerance_)
            return false;
        leastCut_ = std::min(leastCut_, cost);
        return true;
    }

    // What a state at the start of stage t must still recompute, at least:
    // every node a later stage reads that is not resident, every layer whose
    // internals a later backward reads and that are not held, and what
    // computing those reads that is not resident.
    Mask mustRecompute(int t, Mask resident, Mask held) const {
        if (t >= V_)
            return 0;
        const Mask before = upTo(std::min(t - 1, n_));
        return withReads((futureReads_[t] & before & ~resident) | (futureSaved_[t] & before & ~held), resident);
    }

    // The nodes of `nodes` and, transitively, what computing them reads that
    // is not in `present`.
    Mask withReads(Mask nodes, Mask present) const {
        for (Mask todo = nodes; todo;) {
            const int p = 63 - std::countl_zero(todo);
            todo &= ~bitOf(p);
            const Mask add = reads_[p] & ~present & ~nodes;
            nodes |= add;
            todo |= add;
        }
        return nodes;
    }

    // Whether a state at the start of stage t, reached for `sofar`, cannot
    // get below the bound: what it must recompute, then what memory forces
    // it to compute again besides (the dearer bound only where the cheap one
    // does not cut).
    bool cut(double sofar, int t, Mask resident, Mask held) {
        const Mask must = mustRecompute(t, resident, held);
        const double again = sofar + costOf(must);
        if (beaten(again))
            return true;
        return t < V_ && pressure_.pressed() && beaten(again + pressure_.least(t, resident, held, must));
    }

    // Stage t from one state: which forward nodes to recompute (from the
    // last position down, each adding its reads), then which to keep.
    void expand() {
        const int t = stage_;
        forward_ = t <= n_;
        rerecord_ = forward_ ? 0 : savedNeed_[t] & ~from_->held;
        resident_ = from_->resident & ~rerecord_;
        decide(forward_ ? t - 1 : n_, reads_[t] | rerecord_, 0, 0, 0, 0, 0);
    }

    void decide(int p, Mask required, Mask computed, Mask recorded, Mask extras, Mask dropped, double cost) {
        tick();
        // At the stage's own computation, what it reads, the nodes computed
        // only to be kept and every internals recorded are all there.
        const int t = stage_;
        const Mask atEnd = reads_[t] | extras | (forward_ ? bitOf(t) : 0);
        if (base_[t] + weightOf(atEnd) + (forward_ ? 0 : weight_[t]) + workspace_[t] + savedOf(recorded) +
                savedOf(from_->held & savedNeed_[t]) >
            cap_)
            return;
        // The most the stage may keep without computing more: a node not yet
        // decided and not resident is kept, or its internals recorded, only
        // by computing it here, at its full cost, which is what leaving it
        // to a later stage adds to what cut() counts at most (the reads it needs
        // are resident or computed here too).
        // What the positions left must compute whatever is decided there:
        // the nodes required and neither resident nor computed yet, and
        // what computing them reads that is not there either. Counted now,
        // and kept at most, so that the branches they make are cut here.
        const Mask forced = withReads(required & ~resident_ & ~computed & upTo(p), resident_ | computed);
        const Mask mostKept = (resident_ & ~dropped) | computed | forced | (forward_ ? bitOf(t) : 0);
        const Mask mostHeld = from_->held | recorded | (forced & records_) | (forward_ ? records_ & bitOf(t) : 0);
        if (cut(from_->cost + cost + costOf(forced), t + 1, mostKept, mostHeld))
            return;
        if (p == 0) {
            if (forward_ && (records_ & bitOf(stage_))) {
                keepSets(required, computed, recorded | bitOf(stage_), extras, dropped, cost);
                keepSets(required, computed, recorded, extras, dropped, cost);
            } else {
                keepSets(required, computed, recorded, extras, dropped, cost);
            }
            return;
        }
        const Mask b = bitOf(p);
        const bool resident = resident_ & b;
        const bool mayRecord = (records_ & b) && (savedUsefulAfter_[stage_] & b) && !(from_->held & b);
        auto compute = [&](Mask more, Mask extra, Mask drop) {
            const Mask req = (required | more) | reads_[p];
            const double c = cost + cost_[p];
            if (rerecord_ & b) {
                decide(p - 1, req, computed | b, recorded | b, extra, drop, c);
                return;
            }
            decide(p - 1, req, computed | b, recorded, extra, drop, c);
            if (mayRecord)
                decide(p - 1, req, computed | b, recorded | b, extra, drop, c);
        };
        if (rerecord_ & b) {
            compute(0, extras, dropped | (from_->resident & b));
            return;
        }
        const bool useful = usefulAfter_[stage_] & b;
        if (required & b) {
            if (resident) {
                decide(p - 1, required, computed, recorded, extras, dropped, cost);
                compute(0, extras, dropped | b); // freed at the start, computed again before its reader
            } else {
                compute(0, extras, dropped);
            }
            return;
        }
        decide(p - 1, required, computed, recorded, extras, dropped, cost);
        // Computed to be kept, so that a read of it may go (keepSets): one
        // that reads only the input, always there, and needs no workspace
        // can wait until needed.
        if (useful && (resident || reads_[p] != 0 || workspace_[p] > 0))
            compute(0, extras | b, dropped | (resident ? b : 0));
    }

    // The stage's computations are fixed; every keep set that fits and
    // cannot take one more node or internals leads to a state of stage t+1.
    void keepSets(Mask required, Mask computed, Mask recorded, Mask extras, Mask dropped, double cost) {
        const int t = stage_;
        // A resident node freed at the start and computed again, not to
        // record its internals, lowers the memory only of computations before
        // its own: with none, keeping it is the same layout for less.
        for (Mask m = dropped & computed & ~recorded; m; m &= m - 1)
            if (!(computed & upTo(std::countr_zero(m) - 1)))
                return;
        layout_.required = required;
        layout_.computed = computed;
        layout_.recorded = recorded;
        layout_.startResident = resident_ & ~dropped;
        layout_.order.clear();
        for (Mask m = computed; m; m &= m - 1)
            layout_.order.push_back(std::countr_zero(m));
        layout_.order.push_back(t);
        // Each node present is freed right after its last reader in the stage
        // (or its own computation), unless kept.
        layout_.freesAfter.assign(layout_.order.size(), 0);
        const Mask present = layout_.startResident | computed | (forward_ ? bitOf(t) : 0);
        for (Mask m = present; m; m &= m - 1) {
            const int i = std::countr_zero(m);
            int last = -1;
            for (std::size_t k = 0; k < layout_.order.size(); ++k)
                if ((reads_[layout_.order[k]] & bitOf(i)) || ((computed & bitOf(i)) && layout_.order[k] == i) ||
                    (layout_.order[k] == t && i == t))
                    last = static_cast<int>(k);
            if (last >= 0)
                layout_.freesAfter[static_cast<std::size_t>(last)] |= bitOf(i);
        }
        items_.clear();
        const Mask nodes = present & usefulAfter_[t] & ~extras;
        const Mask internals = (from_->held | recorded) & savedUsefulAfter_[t];
        for (const Item &x : keepOrder_)
            if ((x.internals ? internals : nodes) & x.bit)
                items_.push_back(x);
        // What the items from i on hold, for the most a subtree may keep.
        laterNodes_.assign(items_.size() + 1, 0);
        laterHeld_.assign(items_.size() + 1, 0);
        for (std::size_t i = items_.size(); i-- > 0;) {
            laterNodes_[i] = laterNodes_[i + 1] | (items_[i].internals ? 0 : items_[i].bit);
            laterHeld_[i] = laterHeld_[i + 1] | (items_[i].internals ? items_[i].bit : 0);
        }
        pendingCost_ = cost;
        extras_ = extras;
        layout_.dropped = dropped;
        excluded_.clear();
        enumerate(0, extras, 0);
    }

    bool fits(Mask keep, Mask keepHeld) {
        tick();
        const int t = stage_;
        const Mask start = layout_.startResident & (layout_.required | keep);
        const Mask heldStart = from_->held & (savedNeed_[t] | keepHeld);
        std::int64_t memory = base_[t] + weightOf(start) + savedOf(heldStart);
        for (std::size_t k = 0; k < layout_.order.size(); ++k) {
            const int p = layout_.order[k];
            memory += weight_[p];
            if (p <= n_ && (layout_.recorded & bitOf(p)))
                memory += saved_[p];
            if (memory + workspace_[p] > cap_)
                return false;
            memory -= weightOf(layout_.freesAfter[k] & ~keep);
        }
        return true;
    }

    struct Item {
        bool internals;
        Mask bit;
    };

    void enumerate(std::size_t i, Mask keep, Mask keepHeld) {
        if (!fits(keep, keepHeld))
            return;
        const Mask allKeep = keep | laterNodes_[i], allHeld = keepHeld | laterHeld_[i];
        // Keeping less only adds to what must be computed again: the most
        // this subtree may keep bounds every state it leads to.
        if (cut(from_->cost + pendingCost_, stage_ + 1, allKeep, allHeld))
            return;
        if (lettingAReadGo(allKeep) && fits(allKeep, allHeld)) {
            for (const Item &x : excluded_) {
                const Mask more = allKeep | (x.internals ? 0 : x.bit);
                if (lettingAReadGo(more) && fits(more, allHeld | (x.internals ? x.bit : 0)))
                    return; // not maximal: a larger keep set fits
            }
            emit(allKeep, allHeld);
            return;
        }
        if (i == items_.size())
            return;
        const Item item = items_[i];
        enumerate(i + 1, keep | (item.internals ? 0 : item.bit), keepHeld | (item.internals ? item.bit : 0));
        excluded_.push_back(item);
        enumerate(i + 1, keep, keepHeld);
        excluded_.pop_back();
    }

    // A node computed only to be kept is worth it where a node it reads is
    // not kept: with every read kept, computing it when it is needed costs
    // the same and holds less until then (where a later stage lets a read
    // go, the node is computed there instead). Not so with a workspace,
    // which the later computation would need beside what that stage holds.
    bool lettingAReadGo(Mask keep) const {
        for (Mask m = extras_ & ~layout_.dropped; m; m &= m - 1) {
            const int p = std::countr_zero(m);
            if (workspace_[p] == 0 && (reads_[p] & ~keep) == 0)
                return false;
        }
        return true;
    }

    void emit(Mask keep, Mask keepHeld) {
        const double cost = from_->cost + pendingCost_;
        if (cut(cost, stage_ + 1, keep, keepHeld))
            return;
        // The states kept are bounded too (about 100 bytes each with their
        // index): a search that would hold more stops as out of work
        // (gather).
        gather(next_, Entry{keep, keepHeld, cost, fromIndex_, layout_.computed, layout_.recorded});
    }

    // A state of the next stage into `next`: the first way found there, or a
    // strictly cheaper one.
    void gather(std::vector<Entry> &next, const Entry &e) {
        const auto [it, fresh] = index_.try_emplace({e.resident, e.held}, static_cast<std::int32_t>(next.size()));
        if (fresh) {
            if (states_ + static_cast<std::int64_t>(next.size()) >= kMaxStates)
                throw WorkExhausted{};
            next.push_back(e);
        } else if (e.cost < next[static_cast<std::size_t>(it->second)].cost) {
            next[static_cast<std::size_t>(it->second)] = e;
        }
    }

    // A state is dropped when another holds a strict superset for no more
    // cost (give or take the rounding of sums taken in another order). Every
    // chain of such supersets ends in a state that is kept.
    static std::vector<Entry> dropDominated(std::vector<Entry> entries) {
        // Beyond, the quadratic check would cost more than the work counted
        // pays for: keep them all (exact, only slower).
        constexpr std::size_t kCheckedUpTo = 4000;
        if (entries.size() > kCheckedUpTo)
            return entries;
        std::vector<Entry> kept;
        for (const Entry &e : entries) {
            const double within = e.cost + 1e-12 * std::max(1.0, std::abs(e.cost));
            const bool dominated = std::any_of(entries.begin(), entries.end(), [&](const Entry &k) {
                return k.cost <= within && (k.resident & e.resident) == e.resident && (k.held & e.held) == e.held &&
                       (k.resident != e.resident || k.held != e.held);
            });
            if (!dominated)
                kept.push_back(e);
        }
        return kept;
    }

    const Model &model_;
    std::int64_t cap_;
    double upperBound_, tolerance_ = 0;
    std::int64_t maxWork_;
    const std::function<bool()> &cancelled_;
    int n_ = 0, V_ = 0;
    std::vector<Mask> reads_, savedNeed_, usefulAfter_, savedUsefulAfter_, futureReads_, futureSaved_;
    std::vector<std::int64_t> weight_, workspace_, saved_, base_;
    std::vector<double> cost_;
    Mask records_ = 0;
    StagePressureBound pressure_{StagePressureBound::Positions{}};

    // The stage being expanded.
    int stage_ = 0;
    bool forward_ = false;
    const Entry *from_ = nullptr;
    std::int32_t fromIndex_ = 0;
    Mask rerecord_ = 0, resident_ = 0;
    struct Layout {
        Mask required = 0, computed = 0, recorded = 0, startResident = 0, dropped = 0;
        std::vector<int> order;
        std::vector<Mask> freesAfter;
    } layout_;
    std::vector<Item> keepOrder_, items_, excluded_;
    std::vector<Mask> laterNodes_, laterHeld_;
    double pendingCost_ = 0;
    Mask extras_ = 0;
    std::vector<Entry> next_;
    std::unordered_map<std::pair<Mask, Mask>, std::int32_t, KeyHash> index_;
    std::int64_t work_ = 0, states_ = 0, stateWork_ = 0;
    double leastCut_ = std::numeric_limits<double>::infinity();

    // The lanes: copies of this search, each with its own scratch.
    int threads_ = 1;
    std::shared_ptr<exec::ThreadPool> pool_;
    std::vector<StageSearch> lanes_;
    StageShared *shared_ = nullptr;
};

} // namespace

StageSearchResult searchGraphStages(const Model &model, BudgetUnit unit, std::int64_t budget, double upperBound,
                                    std::int64_t maxWork, const std::function<bool()> &cancelled, int threads) {
    if (unit == BudgetUnit::Slots)
        throw InvalidArgument("--slots applies to chains; give this graph's budget in bytes or nodes");
    if (threads < 0 || threads > exec::kMaxThreads)
        throw InvalidArgument("the stage search's threads must be 0 (every core) to " +
                              std::to_string(exec::kMaxThreads) + ", got " + std::to_string(threads));
    if (model.layers() > kMaxStageSearchLayers)
        throw LimitExceeded("the exact stage search takes up to " + std::to_string(kMaxStageSearchLayers) +
                            " layers, got " + std::to_string(model.layers()));
    return StageSearch(model, unit, budget, upperBound, maxWork, cancelled, threads).run();
}

} // namespace remat::planners
