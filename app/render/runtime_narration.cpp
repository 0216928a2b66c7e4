#include "app/render/runtime_narration.h"

#include "core/units.h"

namespace remat::render {

namespace {

std::string held(const Model &model, const RuntimeEvent &e) {
    if (e.countsNodes)
        return std::to_string(e.heldNodes) + (e.heldNodes == 1 ? " node" : " nodes");
    return formatSize(e.heldBytes, model.sizesInNodes());
}

std::string victim(const Model &model, const RuntimeEvent &e) {
    return e.saved ? "s_" + std::to_string(model.indexOf(e.node)) : model.name(e.node);
}

std::string plural(std::int64_t n, const char *one, const char *many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

// "a_5 (cost 1, size 1, idle 7 ops: lowest h_DTR)" or "a_5 (cost 1, size 1: lowest c/m)": the terms the
// heuristic that chose it weighs, and its name.
std::string terms(const Model &model, const RuntimeEvent &e) {
    const std::string size = e.countsNodes ? std::to_string(e.size) : formatSize(e.size, model.sizesInNodes());
    const std::string weighed = "cost " + formatCost(e.cost, model.costUnit()) + ", size " + size;
    if (!e.weighsIdle)
        return victim(model, e) + " (" + weighed + ": lowest c/m)";
    return victim(model, e) + " (" + weighed + ", idle " + plural(e.idleOps, "op", "ops") + ": lowest h_DTR)";
}

// "memory full at 6 nodes: evicted a_5 (...)[, then a_3 (...)]"
std::string evictionLine(const Model &model, const std::vector<const RuntimeEvent *> &evictions, bool current) {
    std::string out = "memory full at " + held(model, *evictions.front()) + (current ? ": evicting " : ": evicted ");
    for (std::size_t k = 0; k < evictions.size(); ++k)
        out += (k == 0 ? "" : ", then ") + terms(model, *evictions[k]);
    return out;
}

// The op at which the same node (or the same internals) was last evicted
// before `e`, or -1 when it was freed because no op of the step read it then.
std::int64_t evictedAt(const Schedule &schedule, const RuntimeEvent &e) {
    for (auto k = static_cast<std::size_t>(&e - schedule.events.data()); k-- > 0;) {
        const RuntimeEvent &before = schedule.events[k];
        if (before.node == e.node && before.saved == e.saved)
            return before.kind == RuntimeEvent::Kind::Evict ? before.op : -1;
    }
    return -1;
}

std::string rematLine(const Model &model, const RuntimeEvent &e) {
    if (e.saved)
        return "re-running layer " + std::to_string(model.indexOf(e.node)) + " recording s_" +
               std::to_string(model.indexOf(e.node)) + " for " + model.name(e.neededBy);
    return "rematerializing " + model.name(e.node) + " for " + model.name(e.neededBy) +
           (e.depth > 1 ? " (depth " + std::to_string(e.depth) + ")" : "");
}

std::string capitalized(std::string s) {
    if (!s.empty() && s[0] >= 'a' && s[0] <= 'z')
        s[0] = static_cast<char>(s[0] - 'a' + 'A');
    return s;
}

std::string narrateRemat(const Model &model, const Schedule &schedule, const RuntimeEvent &e) {
    const std::int64_t at = evictedAt(schedule, e);
    const std::string gone = at >= 0 ? "evicted at op " + std::to_string(at + 1) + " when memory was full"
                                     : "freed once no op of the step read it";
    const std::string by = model.name(e.neededBy);
    if (e.saved) {
        const int i = model.indexOf(e.node);
        return "Re-running layer " + std::to_string(i) + " recording its internals s_" + std::to_string(i) +
               " on demand: " + by + " needs them, and they were " + gone + ".";
    }
    std::string out = "Rematerializing " + model.name(e.node) + " on demand: " + by + " needs it";
    if (e.depth > 1)
        out += " (depth " + std::to_string(e.depth) + ": evicted inputs come back first)";
    return out + ", and it was " + gone + ".";
}

} // namespace

std::vector<const RuntimeEvent *> evictionsFor(const Timeline &timeline, std::int64_t step) {
    std::vector<const RuntimeEvent *> out;
    const Schedule &schedule = timeline.schedule();
    if (step < 0 || schedule.events.empty())
        return out;
    std::int64_t t = timeline.op(step).kind == OpKind::Compute ? step - 1 : step;
    for (; t >= 0 && timeline.op(t).kind != OpKind::Compute; --t)
        if (const RuntimeEvent *e = eventAt(schedule, t); e && e->kind == RuntimeEvent::Kind::Evict)
            out.insert(out.begin(), e);
    return out;
}

std::optional<std::string> narrateRuntimeEvent(const Timeline &timeline, const StepState &state,
                                               const std::string &opNarration) {
    if (state.step < 0)
        return std::nullopt;
    const Model &model = timeline.model();
    const Schedule &schedule = timeline.schedule();
    if (const RuntimeEvent *e = eventAt(schedule, state.step); e && e->kind == RuntimeEvent::Kind::Rematerialize)
        return narrateRemat(model, schedule, *e);
    const std::vector<const RuntimeEvent *> evictions = evictionsFor(timeline, state.step);
    if (evictions.empty())
        return std::nullopt;
    const bool current = timeline.op(state.step).kind != OpKind::Compute;
    std::string out = capitalized(evictionLine(model, evictions, current)) + ".";
    if (current)
        return out + " The runtime recomputes it if an op needs it again.";
    return out + " " + opNarration;
}

std::string runtimeStatus(const Timeline &timeline, std::int64_t step) {
    if (step < 0)
        return "";
    const Schedule &schedule = timeline.schedule();
    if (const RuntimeEvent *e = eventAt(schedule, step); e && e->kind == RuntimeEvent::Kind::Rematerialize)
        return rematLine(timeline.model(), *e);
    const std::vector<const RuntimeEvent *> evictions = evictionsFor(timeline, step);
    if (evictions.empty())
        return "";
    // A frame's status line is short: what went first, why after.
    const Model &model = timeline.model();
    const bool current = timeline.op(step).kind != OpKind::Compute;
    std::string out = current ? "evicting " : "evicted ";
    for (std::size_t k = 0; k < evictions.size(); ++k)
        out += (k == 0 ? "" : ", then ") + terms(model, *evictions[k]);
    return out + ", memory full at " + held(model, *evictions.front());
}

} // namespace remat::render
