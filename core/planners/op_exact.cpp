#include "core/planners/op_exact.h"
#include "core/planners/op_neighbourhood.h"

#include "core/errors.h"
#include "core/report.h"
#include "core/schedule_builder.h"
#include "core/simulator.h"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <sstream>

namespace remat {

using op_search::measure;
using op_search::Measured;
using op_search::Neighbourhood;
using op_search::neighbourhood;
using op_search::readFromFurtherBack;

namespace {

bool dominates(const OpPlanner::Option &a, const OpPlanner::Option &b) {
    return a.held <= b.held && a.local <= b.local && a.cost <= b.cost;
}

std::vector<OpPlanner::Option> paretoPrune(std::vector<OpPlanner::Option> all) {
    std::sort(all.begin(), all.end(), [](const auto &a, const auto &b) {
        return std::tie(a.cost, a.held, a.local) < std::tie(b.cost, b.held, b.local);
    });
    std::vector<OpPlanner::Option> kept;
    for (auto &o : all)
        if (std::none_of(kept.begin(), kept.end(), [&](const auto &k) { return dominates(k, o); }))
            kept.push_back(std::move(o));
    return kept;
}

struct State {
    std::int64_t held = 0; // P: what the blocks so far hold
    std::int64_t peak = 0; // the most any op so far reached
    double cost = 0;
    int parent = -1, option = -1;
};

} // namespace

namespace {

// Which keep sets of a block are closed (op_plan.h: a kept node is read by a
// gradient or by the re-run of a consumer), over bit c for candidates[c]:
// every other node of the block but its output is always re-run, the output
// and the nodes after the block are kept.
struct ClosedRule {
    std::vector<std::uint64_t> rerunConsumers; // by candidate: its consumers among the candidates
    std::uint64_t constrained = 0;             // candidates kept only while such a consumer is re-run
    std::uint64_t free = 0;                    // the others: kept or not in any closed keep set
    bool closed(std::uint64_t mask) const {
        for (std::uint64_t bits = mask & constrained; bits != 0; bits &= bits - 1)
            if ((rerunConsumers[static_cast<std::size_t>(std::countr_zero(bits))] & ~mask) == 0)
                return false;
        return true;
    }
};

ClosedRule closedRule(const Neighbourhood &n, const std::vector<int> &candidates,
                      const std::vector<std::uint8_t> &read) {
    const std::vector<int> &nodes = n.graph.groups[static_cast<std::size_t>(n.block)].nodes;
    ClosedRule rule;
    rule.rerunConsumers.assign(candidates.size(), 0);
    for (std::size_t c = 0; c < candidates.size(); ++c) {
        const int j = candidates[c];
        bool alwaysClosed = read[static_cast<std::size_t>(j)] != 0;
        for (int consumer : n.model.consumers(j)) {
            const auto at = std::find(candidates.begin(), candidates.end(), consumer);
            if (at != candidates.end())
                rule.rerunConsumers[c] |= std::uint64_t{1} << (at - candidates.begin());
            else if (consumer != nodes.back() && std::find(nodes.begin(), nodes.end(), consumer) != nodes.end())
                alwaysClosed = true; // a node of the block that is not searched is always re-run
        }
        (alwaysClosed ? rule.free : rule.constrained) |= std::uint64_t{1} << c;
    }
    return rule;
}

// How many keep sets over `candidates` the search replays: the closed ones.
std::int64_t closedKeepSets(const ClosedRule &rule, std::size_t candidates, const std::function<bool()> &cancelled) {
    std::int64_t count = 0;
    for (std::uint64_t mask = 0; mask < (std::uint64_t{1} << candidates); ++mask) {
        if ((mask & 0xfffff) == 0 && cancelled && cancelled())
            throw Cancelled();
        count += rule.closed(mask);
    }
    return count;
}

// What one keep set of a block does to memory: `mask` over the candidates
// (all ones and `whole`: the block kept whole, not checkpointed).
struct Measurement {
    std::uint64_t mask = 0;
    bool whole = false;
    std::int64_t held = 0, local = 0;
};

struct Measurements {
    std::vector<int> candidates; // nodes of the neighbourhood whose keeping is searched
    std::vector<Measurement> all;
    std::int64_t inputGradientStep = 0; // the block kept whole: the memory while the input's gradient runs
    std::int64_t replayedOps = 0;       // simulator ops of every replay
};

KeepSet keepOnly(const Neighbourhood &n, const std::vector<int> &candidates, std::uint64_t mask) {
    const OpGroup &group = n.graph.groups[static_cast<std::size_t>(n.block)];
    KeepSet keep(static_cast<std::size_t>(n.model.forwardCount()), 1);
    for (std::size_t k = 0; k + 1 < group.nodes.size(); ++k)
        keep[static_cast<std::size_t>(group.nodes[k])] = 0;
    for (std::size_t c = 0; c < candidates.size(); ++c)
        keep[static_cast<std::size_t>(candidates[c])] = (mask >> c) & 1;
    return keep;
}

Schedule replaySchedule(const Neighbourhood &n, const KeepSet &keep) {
    return Schedule{"op-level", "", insertFrees(n.model, opComputes(n.model, n.graph, keep)), {}, {}};
}

std::int64_t opsOf(const Schedule &s) {
    return static_cast<std::int64_t>(s.ops.size());
}

KeepSet keepWhole(const Neighbourhood &n) {
    return KeepSet(static_cast<std::size_t>(n.model.forwardCount()), 1);
}

// The block kept whole, then every closed keep set over the candidates, each
// replayed once.
Measurements measureAll(const Neighbourhood &n, std::vector<int> candidates, const std::vector<std::uint8_t> &read,
                        const std::function<bool()> &cancelled) {
    const OpGroup &group = n.graph.groups[static_cast<std::size_t>(n.block)];
    Measurements out;
    const auto measureKeep = [&](const KeepSet &keep, std::uint64_t mask, bool whole) {
        const Schedule s = replaySchedule(n, keep);
        const Measured m = measure(n, s);
        out.all.push_back({mask, whole, m.held, m.local});
        out.replayedOps += opsOf(s);
        if (whole)
            out.inputGradientStep = m.inputGradientStep;
    };
    measureKeep(keepWhole(n), 0, true);
    const std::uint64_t masks = group.selectable ? std::uint64_t{1} << candidates.size() : 0;
    const ClosedRule rule = closedRule(n, candidates, read);
    for (std::uint64_t mask = 0; mask < masks; ++mask) {
        if ((mask & 0xffff) == 0 && cancelled && cancelled())
            throw Cancelled();
        if (rule.closed(mask))
            measureKeep(keepOnly(n, candidates, mask), mask, false);
    }
    out.candidates = std::move(candidates);
    return out;
}

// How far one distinct block's search can go: its candidates (the costliest
// first where not all are searched) and the replayed ops a search over m of
// them takes at most, each closed keep set counted at the longest replay (the
// output alone kept: every other node run twice).
class BlockWork {
public:
    BlockWork(const Neighbourhood &n, std::vector<int> candidates, const OpPlannerOptions &options)
        : n_(&n), all_(std::move(candidates)), read_(readByGradients(n.model)),
          outputOnly_(replaySchedule(n, keepOnly(n, {}, 0))), whole_(opsOf(replaySchedule(n, keepWhole(n)))),
          selectable_(n.graph.groups[static_cast<std::size_t>(n.block)].selectable),
          widest_(std::min(all_.size(), static_cast<std::size_t>(std::max(0, options.maxEnumerated)))),
          cancelled_(options.cancelled) {
        costliest_ = all_;
        std::stable_sort(costliest_.begin(), costliest_.end(), [&](int a, int b) {
            return n.model.cost(n.model.forwardNode(a)) > n.model.cost(n.model.forwardNode(b));
        });
        const std::vector<int> widest = this->candidates(widest_);
        need_ = ops(static_cast<double>(closedKeepSets(closedRule(n, widest, read_), widest_, cancelled_)));
    }
    std::size_t all() const { return all_.size(); }
    std::size_t widest() const { return widest_; } // the node limit's
    std::int64_t always() const { return whole_ + (selectable_ ? opsOf(outputOnly_) : 0); }
    double need() const { return need_; } // searching the widest
    double ops(double keepSets) const {
        return static_cast<double>(whole_) + (selectable_ ? keepSets * static_cast<double>(opsOf(outputOnly_)) : 0);
    }
    std::vector<int> candidates(std::size_t m) const {
        return m == all_.size() ? all_
                                : std::vector<int>(costliest_.begin(), costliest_.begin() + static_cast<long>(m));
    }
    // Whether the search over m candidates takes at most `allowance`
    // replayed ops (per keep set: at most 2^m, at least every subset of
    // those free to be kept; counted only between the two).
    bool fits(std::size_t m, double allowance) const {
        if (m == widest_)
            return need_ <= allowance;
        const ClosedRule rule = closedRule(*n_, candidates(m), read_);
        if (ops(std::ldexp(1.0, static_cast<int>(m))) <= allowance)
            return true;
        if (ops(std::ldexp(1.0, std::popcount(rule.free))) > allowance)
            return false;
        return ops(static_cast<double>(closedKeepSets(rule, m, cancelled_))) <= allowance;
    }
    const Neighbourhood &neighbourhood() const { return *n_; }
    const Schedule &outputOnly() const { return outputOnly_; }
    const std::vector<std::uint8_t> &read() const { return read_; }

private:
    const Neighbourhood *n_;
    std::vector<int> all_, costliest_;
    std::vector<std::uint8_t> read_;
    Schedule outputOnly_;
    std::int64_t whole_ = 0;
    bool selectable_ = false;
    std::size_t widest_ = 0;
    std::function<bool()> cancelled_;
    double need_ = 0;
};

// Each distinct block's replayed ops: the replays that always run, then the
// rest of the effort shared out, the blocks that need least first and what
// they leave going to the others. A function of the model and the effort,
// never of the machine; an effort that covers every block's need searches
// every block as widely as the node limit allows.
std::vector<double> shareEffort(const std::vector<BlockWork> &works, std::int64_t effort) {
    double beyond = static_cast<double>(effort);
    for (const BlockWork &w : works)
        beyond -= static_cast<double>(w.always());
    beyond = std::max(0.0, beyond);
    std::vector<std::size_t> order(works.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    const auto extra = [&](std::size_t i) { return works[i].need() - static_cast<double>(works[i].always()); };
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return extra(a) < extra(b); });
    std::vector<double> out(works.size());
    std::size_t left = works.size();
    for (std::size_t i : order) {
        const double given = std::min(extra(i), std::floor(beyond / static_cast<double>(left--)));
        out[i] = static_cast<double>(works[i].always()) + given;
        beyond -= given;
    }
    return out;
}

// The nodes of a block whose keeping is searched, and why not all are.
struct Narrowed {
    std::vector<int> candidates;
    std::string limit; // "" when every node is searched
    bool byClock = false;
};

// The most candidates whose search fits `allowance` replayed ops and, under a
// time limit, a quarter of it at the speed of this machine.
Narrowed narrow(const BlockWork &work, double allowance, const OpPlannerOptions &options) {
    Narrowed out;
    std::size_t m = work.widest();
    if (m < work.all())
        out.limit = "the node limit, " + std::to_string(options.maxEnumerated);
    for (; m > 0 && !work.fits(m, allowance); --m)
        out.limit = "the effort limit, " + effortText(options.effort) + " replayed ops";
    if (options.timeLimitSeconds > 0 && m > 0) {
        const auto now = [&] {
            return options.clock
                       ? options.clock()
                       : std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
        };
        const Neighbourhood &n = work.neighbourhood();
        const double started = now();
        for (int k = 0; k < 8; ++k)
            measure(n, work.outputOnly());
        const double perOp = (now() - started) / 8 / static_cast<double>(opsOf(work.outputOnly())) + 1e-12;
        for (; m > 0 && !work.fits(m, options.timeLimitSeconds / 4 / perOp); --m) {
            out.limit = "the time limit, " + numberText(options.timeLimitSeconds) + " s on the wall clock";
            out.byClock = true;
        }
    }
    out.candidates = work.candidates(m);
    return out;
}

} // namespace

std::string effortText(std::int64_t effort) {
    // Three significant digits or fewer in scientific notation, others in full.
    const std::string digits = std::to_string(effort);
    const std::size_t significant = digits.find_last_not_of('0') + 1;
    if (effort < 10000 || significant > 3)
        return digits;
    const std::string fraction = digits.substr(1, significant - 1);
    return digits.substr(0, 1) + (fraction.empty() ? "" : "." + fraction) + "e" + std::to_string(digits.size() - 1);
}

OpPlanner::OpPlanner(const Model &model, const OpGraph &graph, OpPlannerOptions options)
    : model_(model), graph_(graph), solverEffort_(options.blockLevel ? 0 : options.solverEffort),
      cancelled_(options.cancelled) {
    const std::size_t groups = graph.groups.size();
    options_.resize(groups);
    options_[0].push_back({model.bytes(model.inputNode()), 0, 0, {1}});
    if (const std::string skip = op_search::readBeyondNextBlock(model, graph); !skip.empty()) {
        // No block's neighbourhood holds that tensor's whole life, so there
        // is nothing to replay block by block. The op-level MILP counts the
        // whole model and plans the blocks together.
        decomposed_ = false;
        exact_ = false;
        inexactReason_ = skip + ", so the blocks are not searched one by one";
        for (const KeepSet &keep : {keepEverything(graph), keepBlockOutputs(graph)})
            if (keepSetProblem(model, graph, keep).empty()) // store-all always is
                fallback_.push_back({keep, recomputeCost(model, graph, keep),
                                     Simulator::summarize(model, opSchedule(model, graph, keep, "")).peakBytes, false});
        return;
    }
    // Blocks alike are searched once, each as widely as its share of the
    // effort allows. Keep sets tried: the whole block; then the block's
    // output with every closed subset of the candidates: every other node, or
    // the costliest ones (the rest always re-run).
    std::vector<Neighbourhood> hoods; // by group, from 1
    for (std::size_t g = 1; g < groups; ++g)
        hoods.push_back(neighbourhood(model, graph, static_cast<int>(g)));
    std::map<std::string, std::size_t> distinct; // signature: index in works
    std::vector<BlockWork> works;
    for (const Neighbourhood &n : hoods) {
        if (!distinct.emplace(n.signature, works.size()).second)
            continue;
        const OpGroup &group = n.graph.groups[static_cast<std::size_t>(n.block)];
        std::vector<int> candidates;
        if (group.selectable && !options.blockLevel)
            candidates.assign(group.nodes.begin(), group.nodes.end() - 1);
        works.emplace_back(n, std::move(candidates), options);
    }
    std::int64_t enumerationEffort = options.effort;
    if (const std::string far = readFromFurtherBack(model, graph); !far.empty()) {
        exact_ = false;
        inexactReason_ = far;
        // Its counts are not exact whatever it searches: where the MILP plans,
        // the enumeration's plans only start it, and a hundredth does that.
        if (solves())
            enumerationEffort = std::max<std::int64_t>(1, options.effort / kSeedShareOfEffort);
    }
    const std::vector<double> allowance = shareEffort(works, enumerationEffort);
    std::map<std::string, Measurements> done;
    for (std::size_t g = 1; g < groups; ++g) {
        if (options.cancelled && options.cancelled())
            throw Cancelled();
        const Neighbourhood &n = hoods[g - 1];
        const OpGroup &group = n.graph.groups[static_cast<std::size_t>(n.block)];
        auto known = done.find(n.signature);
        if (known == done.end()) {
            const std::size_t w = distinct.at(n.signature);
            Narrowed narrowed = narrow(works[w], allowance[w], options);
            if (narrowed.candidates.size() < works[w].all()) {
                if (exact_)
                    inexactReason_ = "block " + graph.groups[g].module + " has " + std::to_string(works[w].all()) +
                                     " nodes that could be kept; " +
                                     (narrowed.candidates.empty()
                                          ? std::string("none")
                                          : "the " + std::to_string(narrowed.candidates.size()) + " costliest") +
                                     " were searched (" + narrowed.limit + "), the rest always re-run";
                exact_ = false;
                cutByClock_ = cutByClock_ || narrowed.byClock;
            }
            known = done.emplace(n.signature,
                                 measureAll(n, std::move(narrowed.candidates), works[w].read(), options.cancelled))
                        .first;
            replayedKeepSets_ += static_cast<std::int64_t>(known->second.all.size());
            replayedOps_ += known->second.replayedOps;
        }
        const Measurements &measured = known->second;
        if (g == 1)
            inputGradientStep_ = measured.inputGradientStep;
        // This block's costs on the measured keep sets; the Pareto-minimal ones stay.
        std::map<std::pair<std::int64_t, std::int64_t>, Option> cheapest;
        for (const Measurement &m : measured.all) {
            Option o{m.held, m.local, 0, std::vector<std::uint8_t>(group.nodes.size(), 1)};
            if (!m.whole) {
                for (std::size_t k = 0; k + 1 < group.nodes.size(); ++k)
                    o.keep[k] = 0;
                for (std::size_t c = 0; c < measured.candidates.size(); ++c)
                    if ((m.mask >> c) & 1) {
                        const auto at = std::find(group.nodes.begin(), group.nodes.end(), measured.candidates[c]);
                        o.keep[static_cast<std::size_t>(at - group.nodes.begin())] = 1;
                    }
                for (std::size_t k = 0; k < group.nodes.size(); ++k)
                    if (!o.keep[k])
                        o.cost += n.model.cost(n.model.forwardNode(group.nodes[k]));
            }
            const auto at = cheapest.find({o.held, o.local});
            if (at == cheapest.end() || o.cost < at->second.cost)
                cheapest[{o.held, o.local}] = std::move(o);
        }
        std::vector<Option> all;
        for (auto &entry : cheapest)
            all.push_back(std::move(entry.second));
        options_[g] = paretoPrune(std::move(all));
        if (options.progress)
            options.progress(static_cast<double>(g) / static_cast<double>(groups - 1));
    }
}

namespace {

// Extends every state by every option of the next group, keeping those within
// `budget` and Pareto-minimal in (held, cost) or, minimizing the peak,
// (held, peak).
std::vector<State> extend(const std::vector<State> &states, const std::vector<OpPlanner::Option> &options,
                          std::int64_t budget, bool byPeak) {
    std::vector<State> next;
    for (std::size_t s = 0; s < states.size(); ++s)
        for (std::size_t o = 0; o < options.size(); ++o) {
            const State &from = states[s];
            const OpPlanner::Option &opt = options[o];
            const std::int64_t peak = std::max(from.peak, from.held + opt.local);
            if (peak > budget)
                continue;
            next.push_back(
                {from.held + opt.held, peak, from.cost + opt.cost, static_cast<int>(s), static_cast<int>(o)});
        }
    std::sort(next.begin(), next.end(), [&](const State &a, const State &b) {
        const double ka = byPeak ? static_cast<double>(a.peak) : a.cost,
                     kb = byPeak ? static_cast<double>(b.peak) : b.cost;
        return a.held != b.held ? a.held < b.held : ka < kb;
    });
    std::vector<State> kept;
    double best = std::numeric_limits<double>::infinity();
    for (const State &s : next) {
        const double key = byPeak ? static_cast<double>(s.peak) : s.cost;
        if (key < best) {
            kept.push_back(s);
            best = key;
        }
    }
    return kept;
}

} // namespace

std::int64_t OpPlanner::enumeratedMinimumPeak() const {
    if (!decomposed_) {
        std::int64_t best = std::numeric_limits<std::int64_t>::max();
        for (const OpPlanResult &p : fallback_)
            best = std::min(best, p.predictedPeakBytes);
        return best;
    }
    std::vector<State> states{State{}};
    for (const auto &options : options_)
        states = extend(states, options, std::numeric_limits<std::int64_t>::max(), true);
    std::int64_t best = std::numeric_limits<std::int64_t>::max();
    for (const State &s : states)
        best = std::min(best, std::max(s.peak, inputGradientStep_));
    return best;
}

std::int64_t OpPlanner::storeAllPeakBytes() const {
    return Simulator::summarize(model_, opSchedule(model_, graph_, keepEverything(graph_), "")).peakBytes;
}

std::optional<OpPlanResult> OpPlanner::enumeratedPlan(std::int64_t budgetBytes) const {
    if (!decomposed_) {
        std::optional<OpPlanResult> best;
        for (const OpPlanResult &p : fallback_)
            if (p.predictedPeakBytes <= budgetBytes && (!best || p.recomputeCost < best->recomputeCost))
                best = p;
        return best;
    }
    if (inputGradientStep_ > budgetBytes)
        return std::nullopt;
    std::vector<std::vector<State>> stages{{State{}}};
    for (const auto &options : options_) {
        stages.push_back(extend(stages.back(), options, budgetBytes, false));
        if (stages.back().empty())
            return std::nullopt;
    }
    const auto &last = stages.back();
    int at = static_cast<int>(
        std::min_element(last.begin(), last.end(), [](const State &a, const State &b) { return a.cost < b.cost; }) -
        last.begin());
    OpPlanResult r;
    r.recomputeCost = last[static_cast<std::size_t>(at)].cost;
    r.predictedPeakBytes = std::max(last[static_cast<std::size_t>(at)].peak, inputGradientStep_);
    r.exact = exact_;
    r.cutByClock = cutByClock_;
    r.keep.assign(static_cast<std::size_t>(model_.forwardCount()), 1);
    for (std::size_t g = options_.size(); g-- > 0;) {
        const State &s = stages[g + 1][static_cast<std::size_t>(at)];
        const Option &o = options_[g][static_cast<std::size_t>(s.option)];
        const auto &nodes = graph_.groups[g].nodes;
        for (std::size_t k = 0; k < nodes.size(); ++k)
            r.keep[static_cast<std::size_t>(nodes[k])] = o.keep[k];
        at = s.parent;
    }
    return r;
}

std::optional<OpPlanResult> exhaustiveOpPlan(const Model &model, const OpGraph &graph, std::int64_t budgetBytes,
                                             bool blockLevel) {
    std::vector<int> free; // nodes whose keeping is searched
    for (const OpGroup &g : graph.groups)
        if (g.selectable)
            free.insert(free.end(), g.nodes.begin(), g.nodes.end() - 1);
    if (free.size() > 24)
        throw LimitExceeded("exhaustive op-level search: " + std::to_string(free.size()) + " nodes, at most 24");
    std::optional<OpPlanResult> best;
    for (std::uint64_t mask = 0; mask < (std::uint64_t{1} << free.size()); ++mask) {
        KeepSet keep(static_cast<std::size_t>(model.forwardCount()), 1);
        for (std::size_t c = 0; c < free.size(); ++c)
            keep[static_cast<std::size_t>(free[c])] = (mask >> c) & 1;
        if (blockLevel) {
            bool wholeOrOutput = true;
            for (std::size_t g = 0; g < graph.groups.size(); ++g) {
                const auto &nodes = graph.groups[g].nodes;
                const auto kept = std::count_if(nodes.begin(), nodes.end(),
                                                [&](int i) { return keep[static_cast<std::size_t>(i)] != 0; });
                wholeOrOutput = wholeOrOutput && (kept == 1 || kept == static_cast<long>(nodes.size()));
            }
            if (!wholeOrOutput)
                continue;
        }
        if (!keepSetProblem(model, graph, keep).empty())
            continue;
        const Summary s = Simulator::summarize(model, opSchedule(model, graph, keep, ""));
        const double cost = recomputeCost(model, graph, keep);
        if (s.peakBytes <= budgetBytes && (!best || cost < best->recomputeCost))
            best = OpPlanResult{keep, cost, s.peakBytes, true};
    }
    return best;
}

} // namespace remat
