// remat plan --granularity op: selective checkpointing of an op-level model
// file (docs/planners.md, "Op level"): the exact plan for a byte budget, or
// with --frontier the op-level and block-level curves and the named policies.
#include "arguments.h"
#include "commands.h"
#include "fit_budget.h"
#include "table.h"

#include "core/errors.h"
#include "core/model_io.h"
#include "core/op_frontier.h"
#include "core/op_plan.h"
#include "core/op_pytorch_run.h"
#include "core/planners/graph_exact.h"
#include "core/planners/op_exact.h"
#include "core/report.h"
#include "core/simulator.h"
#include "core/units.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace remat::cli {

namespace {

OpPlannerOptions plannerOptions(const PlanOptions &options) {
    OpPlannerOptions o;
    if (!options.effort.empty())
        o.effort = parseEffort("--effort", options.effort, 1, kMaxOpEffort, "replayed ops", "4e9");
    if (!options.solverNodes.empty())
        o.solverEffort = parseEffort("--solver-nodes", options.solverNodes, 0, planners::kMaxGraphEffort,
                                     "branch-and-bound nodes", "200");
    if (!options.timeLimit.empty()) {
        char *end = nullptr;
        o.timeLimitSeconds = std::strtod(options.timeLimit.c_str(), &end);
        if (end == options.timeLimit.c_str() || *end != '\0' || !(o.timeLimitSeconds > 0) || o.timeLimitSeconds > 86400)
            throw InvalidArgument("--time-limit must be a number of seconds above 0 (at most 86400), got \"" +
                                  options.timeLimit + "\"");
    }
    return o;
}

// How a search ended: exact, or why not, and whether the clock cut it (then
// another machine may plan otherwise); the work it did.
struct Search {
    bool exact = true, cutByClock = false;
    std::string reason;
    std::int64_t effort = 0, replayedOps = 0;
    std::string proof; // the op-level MILP's word where it planned (OpPlanResult::proof)

    std::string text() const {
        std::string t = !proof.empty() ? proof
                        : exact        ? "exact: every keep set of every block searched (gap 0)"
                                       : "not proven optimal: " + reason + " (gap not bounded)";
        if (cutByClock)
            t += "; cut by the clock (--time-limit), not reproducible: another machine may plan otherwise";
        return t;
    }
    std::string work() const { return effortText(replayedOps) + " ops replayed (effort " + effortText(effort) + ")"; }
    void addTo(nlohmann::ordered_json &j) const {
        j["exact"] = exact;
        j["solver"] = text();
        j["reproducible"] = !cutByClock;
        j["effort"] = effort;
        j["replayed_ops"] = replayedOps;
    }
};

std::string percent(double fraction) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%+.1f%%", fraction * 100);
    return buf;
}

std::string nodeName(const Model &model, int i) {
    return model.label(i).empty() ? model.name(model.forwardNode(i)) : model.label(i);
}

// What python3 -m remat_torch apply needs: per block, every node in order
// with its op and whether it is kept; the re-runs per op kind it must observe.
nlohmann::ordered_json selectiveJson(const Model &model, const OpGraph &graph, const KeepSet &keep,
                                     const Summary &summary) {
    nlohmann::ordered_json blocks = nlohmann::ordered_json::array();
    std::map<std::string, int> reruns;
    for (std::size_t g = 0; g < graph.groups.size(); ++g) {
        const OpGroup &group = graph.groups[g];
        if (!group.selectable)
            continue;
        const bool stored = storesGroup(graph, keep, static_cast<int>(g));
        nlohmann::ordered_json nodes = nlohmann::ordered_json::array();
        for (int i : group.nodes) {
            const std::string &op = graph.ops[static_cast<std::size_t>(i)];
            const bool kept = keep[static_cast<std::size_t>(i)] != 0;
            nodes.push_back({{"node", nodeName(model, i)}, {"op", op}, {"keep", kept}});
            if (!stored && !kept)
                ++reruns[op];
        }
        blocks.push_back({{"module", group.module}, {"checkpointed", !stored}, {"nodes", nodes}});
    }
    nlohmann::ordered_json j;
    j["appliable"] = true;
    j["blocks"] = blocks;
    j["recomputations"] = reruns;
    j["predicted_peak_bytes"] = summary.peakBytes;
    j["predicted_cost"] = numberJson(summary.cost);
    return j;
}

void printRow(std::ostream &out, const std::string &label, const Summary &s, double recompute, const Summary &storeAll,
              const std::string &unit) {
    char line[256];
    std::snprintf(line, sizeof line, "  %-58s %12s %8s  re-run %10s%s (%s)\n", label.c_str(),
                  formatBytes(s.peakBytes).c_str(),
                  percent(double(s.peakBytes) / double(storeAll.peakBytes) - 1).c_str(), numberText(recompute).c_str(),
                  unit.c_str(), percent(storeAll.cost > 0 ? (s.cost - storeAll.cost) / storeAll.cost : 0).c_str());
    out << line;
}

void runOpFrontier(const PlanOptions &options, const OpPlannerOptions &planner, const PlanModel &planned,
                   const OpGraph &graph, const TraceHolds &holds, std::ostream &out) {
    const Model &model = planned.file.model;
    const int samples =
        options.samples.empty() ? 48 : static_cast<int>(parseInteger("--samples", options.samples, 2, 1000));
    const OpFrontier frontier = computeOpFrontier(model, graph, samples, planner);
    Search search{frontier.exact, frontier.cutByClock,  frontier.inexactReason,
                  planner.effort, frontier.replayedOps, ""};
    if (frontier.solved) {
        search.exact = frontier.provenPoints == static_cast<int>(frontier.points.size());
        char gap[64] = "";
        if (!search.exact)
            std::snprintf(gap, sizeof gap,
                          std::isinf(frontier.largestGap) ? ", some without a bound"
                                                          : ", the largest stated gap %.2f %%",
                          100 * frontier.largestGap);
        search.proof = "solved by the op-level MILP where the enumeration stops (" + frontier.inexactReason +
                       "): " + std::to_string(frontier.provenPoints) + " of " + std::to_string(frontier.points.size()) +
                       " points optimal (gap 0)" + gap;
    }
    const auto &named = frontier.named;
    const Summary &storeAll = named.front().summary;
    nlohmann::ordered_json curve = nlohmann::ordered_json::array();
    const std::string unit = model.costUnit().empty() ? "" : " " + model.costUnit();
    if (options.format != Format::Json)
        out << "model " << planned.title << ": " << graph.groups.size() - 1 << " groups, " << model.forwardCount() - 1
            << " op nodes\n"
            << "op-level plans " << search.text() << ", " << search.work() << "\n";
    const std::string inUnit = model.costUnit().empty() ? "" : " (" + model.costUnit() + ")";
    TextTable table({"budget", "op-level re-run" + inUnit, "proven", "block-level re-run" + inUnit});
    // What PyTorch holds running each plan (op_pytorch_run.h): `plan --budget`
    // plans lower where it is above the budget, so that the applied plan fits.
    int aboveInPyTorch = 0;
    std::int64_t mostAbove = 0;
    for (const OpCurvePoint &p : frontier.points) {
        const auto &o = p.opLevel, &b = p.blockLevel;
        nlohmann::ordered_json point{{"budget_bytes", p.budgetBytes}};
        std::optional<std::int64_t> inPyTorch;
        if (o) {
            inPyTorch = pytorchRun(model, graph, o->keep, holds).peakBytes;
            if (*inPyTorch > p.budgetBytes) {
                ++aboveInPyTorch;
                mostAbove = std::max(mostAbove, *inPyTorch - p.budgetBytes);
            }
        }
        point["op_level_recompute"] = o ? numberJson(o->recomputeCost) : nlohmann::ordered_json();
        point["op_level_peak_bytes"] = o ? nlohmann::ordered_json(o->predictedPeakBytes) : nlohmann::ordered_json();
        point["op_level_proof"] = o ? nlohmann::ordered_json(o->verdict()) : nlohmann::ordered_json();
        point["op_level_pytorch_peak_bytes"] = inPyTorch ? nlohmann::ordered_json(*inPyTorch) : nlohmann::ordered_json();
        point["block_level_recompute"] = b ? numberJson(b->recomputeCost) : nlohmann::ordered_json();
        curve.push_back(point);
        if (options.format != Format::Json)
            table.addRow({formatBytes(p.budgetBytes), o ? numberText(o->recomputeCost) : "-", o ? o->verdict() : "-",
                          b ? numberText(b->recomputeCost) : "no block-level plan fits"});
    }
    if (options.format != Format::Json) {
        table.print(out);
        if (aboveInPyTorch > 0)
            out << "PyTorch's run of the plan peaks above the budget at " << aboveInPyTorch << " of "
                << frontier.points.size() << " budgets (by up to " << formatBytes(mostAbove)
                << "; its selective-checkpoint cache and step hold more than the plan's own count): "
                   "`remat plan --budget` plans those lower so that the applied plan fits\n";
    }
    if (options.format == Format::Json) {
        nlohmann::ordered_json doc, points = nlohmann::ordered_json::array();
        for (const OpPolicy &c : named)
            points.push_back({{"label", c.label},
                              {"peak_bytes", c.summary.peakBytes},
                              {"cost", numberJson(c.summary.cost)},
                              {"recompute_cost", numberJson(c.recompute)}});
        doc["granularity"] = "op";
        search.addTo(doc);
        doc["store_all"] = {{"peak_bytes", storeAll.peakBytes}, {"cost", numberJson(storeAll.cost)}};
        doc["curve"] = curve;
        doc["named"] = points;
        out << doc.dump(2) << '\n';
        return;
    }
    out << "\nnamed policies (peak, against store-all; re-run cost, extra compute):\n";
    for (const OpPolicy &c : named)
        printRow(out, c.label, c.summary, c.recompute, storeAll, unit);
}

// What the planner gives for `budget`, planned lower by the excess until
// PyTorch's run of it (pytorchRunSchedule) fits, as block level does
// (plan_command.cpp, fitWhenApplied). `result` is empty when no plan fits the
// budget even by remat's count; throws when none runs within it in PyTorch.
struct AppliedOpPlan {
    std::optional<OpPlanResult> result;
    Summary applied;                // PyTorch's run of it, counted
    std::int64_t plannedWithin = 0; // the budget it was planned for
};

AppliedOpPlan planAsPyTorchRunsIt(const Model &model, const OpGraph &graph, const TraceHolds &holds,
                                  const OpPlanner &planner, std::int64_t budget) {
    AppliedOpPlan fit{planner.plan(budget), {}, budget};
    const std::int64_t least = planner.minimumPeakBytes();
    for (int attempt = 0; fit.result; ++attempt) {
        fit.applied = pytorchRun(model, graph, fit.result->keep, holds);
        if (fit.applied.peakBytes <= budget)
            return fit;
        if (fit.plannedWithin == least) {
            // In bytes where the two would read alike in MiB.
            const bool alike = formatBytes(budget) == formatBytes(fit.applied.peakBytes);
            const auto text = [&](std::int64_t b) { return alike ? std::to_string(b) + " B" : formatBytes(b); };
            throw InvalidArgument("--budget " + text(budget) +
                                  ": no op-level plan runs in PyTorch within it (its selective-checkpoint cache "
                                  "holds each checkpointed block's kept tensors until the block's re-run reaches them, "
                                  "its step "
                                  "the model's output and gradient to the end); the tightest runs at " +
                                  text(fit.applied.peakBytes) + ": --budget " + std::to_string(fit.applied.peakBytes));
        }
        // Lower (fit_budget.h), never past the least peak, and after a few
        // tries straight to it: the tightest plan is always tried, so a
        // budget at its run's peak always fits.
        const std::int64_t below =
            cli::budgetBelowPlan(fit.plannedWithin, fit.result->predictedPeakBytes, fit.applied.peakBytes, budget);
        fit.plannedWithin = attempt < 16 ? std::max(least, below) : least;
        fit.result = planner.plan(fit.plannedWithin);
    }
    return fit; // empty: below the least peak by remat's own count, which the caller says
}

// One line when PyTorch's run differs from the plan's own count, "" otherwise.
std::string appliedLine(const Summary &plan, const AppliedOpPlan &fit, std::int64_t budget) {
    if (fit.applied.peakBytes == plan.peakBytes && fit.plannedWithin == budget)
        return "";
    std::string line = "\nPyTorch's run of it peaks at " + formatBytes(fit.applied.peakBytes) +
                       " (its selective-checkpoint cache holds each checkpointed block's kept tensors until the "
                       "block's re-run reaches them, its step the model's output and gradient to the end)";
    if (fit.plannedWithin != budget)
        line += "; planned within " + formatBytes(fit.plannedWithin) + " so that it fits the budget";
    return line + "\n";
}

} // namespace

void runOpPlan(const PlanOptions &options, std::ostream &out) {
    if (options.modelFile.empty())
        throw InvalidArgument("--granularity op needs --model FILE, an op-level model "
                              "(python3 -m remat_torch trace --granularity op)");
    if (options.strategy != "budget")
        throw InvalidArgument("--granularity op plans with its own exact planner; --strategy does not apply");
    if (!(options.machine == MachineOptions{}) || !options.memorySteps.empty())
        throw InvalidArgument("--granularity op plans re-runs only: --link, --latency, --device-rate, --device-budget, "
                              "--host-budget and --memory-steps do not apply (give the budget as --budget)");
    const OpPlannerOptions searchOptions = plannerOptions(options);
    const PlanModel planned = planModel(options);
    const Model &model = planned.file.model;
    const OpGraph graph = opGraph(planned.file);
    // Read before planning: a malformed trace is refused at once, not after the search.
    const TraceHolds holds = traceHolds(planned.file);
    if (options.frontier)
        return runOpFrontier(options, searchOptions, planned, graph, holds, out);
    if (options.budget.empty())
        throw InvalidArgument("plan --granularity op needs --budget, e.g. --budget 2GiB, or --frontier");
    const std::int64_t budget = parseBytes(options.budget, "--budget");
    const auto started = std::chrono::steady_clock::now();
    const OpPlanner planner(model, graph, searchOptions);
    const AppliedOpPlan fitted = planAsPyTorchRunsIt(model, graph, holds, planner, budget);
    const auto &result = fitted.result;
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (!result)
        throw InvalidArgument(planner.noPlanMessage(options.budget));
    const Search search{result->exact,        result->cutByClock,    planner.inexactReason(),
                        searchOptions.effort, planner.replayedOps(), result->proof(planner.inexactReason())};
    const OpPolicy plan =
        countOpPolicy(model, graph, "op-level plan for " + formatBytes(budget), "op-budget", result->keep);
    const auto named = opNamedPolicies(model, graph);
    const Summary &storeAll = named.front().summary;
    const std::string unit = model.costUnit().empty() ? "" : " " + model.costUnit();
    if (options.format == Format::Json) {
        nlohmann::ordered_json doc;
        doc["model"] = {{"file", options.modelFile},
                        {"name", planned.file.name.empty() ? planned.title : planned.file.name},
                        {"cost_unit", model.costUnit()},
                        {"nodes", model.forwardCount()}};
        doc["granularity"] = "op";
        doc["budget"] = {{"bytes", budget}};
        doc["plan"] = {{"strategy", "op-level"},
                       {"peak_bytes", plan.summary.peakBytes},
                       {"cost", numberJson(plan.summary.cost)},
                       {"recompute_cost", numberJson(plan.recompute)}};
        search.addTo(doc["plan"]);
        doc["plan"]["seconds"] = seconds;
        doc["store_all"] = {{"peak_bytes", storeAll.peakBytes}, {"cost", numberJson(storeAll.cost)}};
        nlohmann::ordered_json points = nlohmann::ordered_json::array();
        for (const OpPolicy &c : named)
            points.push_back({{"label", c.label},
                              {"peak_bytes", c.summary.peakBytes},
                              {"cost", numberJson(c.summary.cost)},
                              {"recompute_cost", numberJson(c.recompute)}});
        doc["named"] = points;
        if (!planned.file.trace.empty())
            doc["trace"] = nlohmann::ordered_json::parse(planned.file.trace);
        doc["selective"] = selectiveJson(model, graph, result->keep, fitted.applied);
        if (fitted.plannedWithin != budget)
            doc["selective"]["planned_within_bytes"] = fitted.plannedWithin;
        // What verify sets beside the plain model's peak: PyTorch's run of store-all.
        doc["store_all"]["peak_bytes"] = pytorchRun(model, graph, keepEverything(graph), holds).peakBytes;
        out << doc.dump(2) << '\n';
        return;
    }
    out << "model " << planned.title << ": " << model.forwardCount() - 1 << " op nodes in " << graph.groups.size() - 1
        << " groups\n"
        << "plan: " << search.text() << "\n      " << numberText(seconds) << " s, " << search.work() << "\n\n";
    printRow(out, plan.label, plan.summary, plan.recompute, storeAll, unit);
    for (const OpPolicy &c : named)
        printRow(out, c.label, c.summary, c.recompute, storeAll, unit);
    out << appliedLine(plan.summary, fitted, budget);
    out << "\nre-run before each block's backward:\n";
    for (std::size_t g = 0; g < graph.groups.size(); ++g) {
        const OpGroup &group = graph.groups[g];
        if (!group.selectable)
            continue;
        out << "  " << group.module << ": ";
        if (storesGroup(graph, result->keep, static_cast<int>(g))) {
            out << "nothing (stored)\n";
            continue;
        }
        bool first = true;
        for (int i : group.nodes)
            if (!result->keep[static_cast<std::size_t>(i)]) {
                out << (first ? "" : ", ") << nodeName(model, i);
                first = false;
            }
        out << "\n";
    }
}

} // namespace remat::cli
