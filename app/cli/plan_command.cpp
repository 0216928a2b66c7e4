// remat plan: the least-cost schedule of a model file within a memory budget,
// with the checkpoints it keeps and its cost against store-all.
#include "arguments.h"
#include "commands.h"
#include "fit_budget.h"

#include "core/errors.h"
#include "core/model_io.h"
#include "core/planners/graph_exact.h"
#include "core/rates.h"
#include "core/report.h"
#include "core/simulator.h"
#include "core/strategy_registry.h"
#include "core/torch_plan.h"
#include "core/units.h"

#include <cstdio>

namespace remat::cli {

namespace {

std::string nodeName(const Model &model, int i) {
    const std::string &label = model.label(i);
    return label.empty() ? "a_" + std::to_string(i) : label + " (a_" + std::to_string(i) + ")";
}

std::string signedPercent(double fraction) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%+.1f%%", fraction * 100);
    return buf;
}

std::string strategyNames() {
    std::string names;
    for (const auto *s : StrategyRegistry::builtin().all())
        names += (names.empty() ? "" : ", ") + std::string(s->name());
    return names;
}

// What python3 -m remat_torch apply needs (docs/pytorch.md): the checkpointed
// segments by node and module name, or why the plan cannot run in PyTorch.
// A budget plan of a traced model is a promise about PyTorch's run of it,
// whose checkpointed segments keep their inputs: where that run (torchPlan's
// schedule) is above the budget, plan again below it by the excess until it
// fits. Returns the plan PyTorch runs within the budget, or says why none.
ComparisonRow fitWhenApplied(const Model &model, const Strategy &strategy, const StrategyParams &params,
                             ComparisonRow plan, const ModelFile &file) {
    const std::int64_t budget = *params.budgetBytes;
    const ComparisonRow asked = plan;
    bool askedAppliable = true;
    std::int64_t planned = budget;
    for (int attempt = 0; attempt < 32; ++attempt) {
        const TorchPlan torch = torchPlan(model, plan.schedule, file.modules, file.chained);
        if (attempt == 0)
            askedAppliable = torch.appliable;
        if (torch.appliable) {
            const std::int64_t applied = Simulator::summarize(model, torch.schedule).peakBytes;
            if (applied <= budget) {
                if (planned != budget)
                    plan.schedule.description += "; planned within " + formatBytes(planned) +
                                                 " so that PyTorch's run of it (segments keep their inputs) peaks "
                                                 "at " +
                                                 formatBytes(applied) + ", within the budget";
                return plan;
            }
            planned = cli::budgetBelowPlan(planned, plan.summary.peakBytes, applied, budget);
        } else {
            planned -= std::max<std::int64_t>(budget / 64, 1); // it needs nested checkpoints: look lower
        }
        StrategyParams lower = params;
        lower.budgetBytes = planned;
        try {
            plan = compareStrategies(model, {&strategy}, lower).front();
        } catch (const InvalidArgument &) {
            break;
        }
    }
    if (!askedAppliable)
        return asked; // the output says why PyTorch cannot run it
    throw InvalidArgument("budget " + formatBytes(budget) +
                          ": no plan of the budget planner runs in PyTorch within it (checkpointed segments keep "
                          "their inputs there); give a larger budget");
}

nlohmann::ordered_json torchPlanJson(const Model &model, const TorchPlan &torch,
                                     const std::vector<std::vector<std::string>> &modules) {
    nlohmann::ordered_json j;
    j["appliable"] = torch.appliable;
    if (!torch.appliable)
        j["reason"] = torch.reason;
    nlohmann::ordered_json again = nlohmann::ordered_json::array();
    for (int i : torch.recomputedMoreThanOnce)
        again.push_back(model.label(i));
    j["recomputed_more_than_once"] = again;
    j["needs_nesting"] = !torch.recomputedMoreThanOnce.empty();
    if (!torch.appliable)
        return j;
    j["matches_plan"] = torch.matchesPlan;
    nlohmann::ordered_json segments = nlohmann::ordered_json::array();
    for (const TorchSegment &s : torch.segments) {
        nlohmann::ordered_json nodes = nlohmann::ordered_json::array(), names = nlohmann::ordered_json::array();
        for (int i = s.first; i <= s.last; ++i) {
            nodes.push_back(model.label(i));
            for (const std::string &m : modules[i])
                names.push_back(m);
        }
        // A node inside a segment whose one reader is the segment's next node: apply hands the model's code a
        // stand-in for its output, since a caller's argument tuple (a Sequential's input) would otherwise keep
        // it alive until that caller returns, while the plan frees it once the next node has run.
        nlohmann::ordered_json internal = nlohmann::ordered_json::array();
        for (int i = s.first; i < s.last; ++i) {
            const auto readers = model.consumers(i);
            if (readers.size() == 1 && readers[0] == i + 1)
                for (const std::string &m : modules[i])
                    internal.push_back(m);
        }
        segments.push_back({{"first", model.label(s.first)},
                            {"last", model.label(s.last)},
                            {"nodes", nodes},
                            {"modules", names},
                            {"internal_outputs", internal}});
    }
    j["segments"] = segments;
    const Summary summary = Simulator::summarize(model, torch.schedule);
    j["predicted_peak_bytes"] = summary.peakBytes;
    j["predicted_cost"] = numberJson(summary.cost);
    nlohmann::ordered_json evaluations = nlohmann::ordered_json::array();
    for (int i = 1; i <= model.layers(); ++i) {
        nlohmann::ordered_json names = nlohmann::ordered_json::array();
        for (const std::string &m : modules[i])
            names.push_back(m);
        evaluations.push_back(
            {{"node", model.label(i)}, {"modules", names}, {"evaluations", torch.forwardEvaluations[i]}});
    }
    j["forward_evaluations"] = evaluations;
    return j;
}

void printTorchPlan(std::ostream &out, const Model &model, const TorchPlan &torch) {
    if (!torch.appliable) {
        out << "PyTorch: not appliable: " << torch.reason << "\n";
        return;
    }
    out << "PyTorch (--json | python3 -m remat_torch apply): " << torch.segments.size()
        << (torch.segments.size() == 1 ? " checkpointed segment" : " checkpointed segments");
    for (std::size_t k = 0; k < torch.segments.size(); ++k) {
        const TorchSegment &s = torch.segments[k];
        out << (k ? ", " : ": ") << model.label(s.first);
        if (s.last != s.first)
            out << ".." << model.label(s.last);
    }
    out << "\n";
    if (!torch.matchesPlan)
        out << "  PyTorch runs these segments its own way (it keeps a segment's last output that the next node "
               "saved, re-runs a segment whole before the backward of its last node): remat counts that at a peak of "
            << formatBytes(Simulator::summarize(model, torch.schedule).peakBytes) << "\n";
}

} // namespace

PlanModel planModel(const PlanOptions &options) {
    if (options.modelFile.empty() == options.n.empty())
        throw InvalidArgument("plan needs --model FILE (docs/model-format.md) or a chain: --n N");
    PlanModel m;
    if (!options.n.empty()) {
        m.file.model = buildChain(options.n, options.model);
        m.title = "chain --n " + options.n;
        return m;
    }
    m.file = loadModelFile(options.modelFile);
    m.title = (m.file.name.empty() ? options.modelFile : m.file.name) + " (" + options.modelFile + ")";
    return m;
}

void runPlan(const PlanOptions &options, std::ostream &out) {
    if (options.granularity == "op") {
        if (!options.searchWork.empty())
            throw InvalidArgument("--search-work bounds the graph planner's exact stage search (block level); at op "
                                  "level --effort and --solver-nodes bound the search");
        return runOpPlan(options, out);
    }
    if (options.granularity != "block")
        throw InvalidArgument("--granularity must be block or op, got \"" + options.granularity + "\"");
    // The chain planners are exact and need no bound: a bound given here would be silently ignored.
    if (!options.solverNodes.empty())
        throw InvalidArgument("--solver-nodes bounds the op-level MILP only (--granularity op); on graphs --effort "
                              "is the graph MILP's branch-and-bound nodes");
    if (!options.timeLimit.empty())
        throw InvalidArgument("--time-limit bounds the op-level search only (--granularity op); block-level plans "
                              "are bounded by --effort on graphs, and exact on chains");
    if (options.frontier)
        return runFrontier(options, out);
    if (!options.samples.empty())
        throw InvalidArgument("--samples applies to --frontier only");
    if (options.format == Format::Csv)
        throw InvalidArgument("plan prints CSV with --frontier only; use --json for one budget");
    const StrategyRegistry &registry = StrategyRegistry::builtin();
    const Strategy *strategy = registry.find(options.strategy);
    if (!strategy)
        throw InvalidArgument("unknown strategy \"" + options.strategy + "\" for plan; known: " + strategyNames());
    const PlanModel planned = planModel(options);
    const ModelFile &file = planned.file;
    const Model &model = file.model;
    StrategyParams params = parseStrategyParams(options.params, model);
    if (!options.budget.empty())
        parseBudget(options.budget, params, model);
    if (!options.effort.empty()) {
        params.effort = parseGraphEffort(options.effort, model.isChain());
    }
    if (!options.searchWork.empty())
        params.searchWork = parseSearchWork(options.searchWork, model.isChain());
    const bool budgetPlanner = options.strategy == "budget";
    // A model file's device budget is the budget planner's when none is given.
    applyDeviceBudget(options.machine, options.budget, budgetPlanner ? file.machine : MachineSpec{}, params);
    if (budgetPlanner && !params.budgetBytes && !params.budgetNodes && !params.checkpointSlots)
        throw InvalidArgument(
            "plan needs --budget, e.g. --budget 2GiB (bytes) or --budget 12 (nodes), or --frontier for every budget");
    if (!options.memorySteps.empty())
        params.memorySteps = static_cast<int>(parseInteger("--memory-steps", options.memorySteps, 1, 1 << 20));
    params.machine = machineFor(model, file.machine, options.machine);

    // With a link the budget planner may also offload (offload-budget, docs/planners.md).
    if (params.machine && budgetPlanner)
        strategy = &registry.get("offload-budget");
    auto rows = compareStrategies(model, {strategy}, params);
    StrategyParams storeAllParams;
    storeAllParams.machine = params.machine;
    auto reference = compareStrategies(model, {&registry.get("store-all")}, storeAllParams);
    if (params.machine) {
        // The plan fits the machine: the simulator checks both budgets.
        Machine limits = *params.machine;
        limits.deviceBudgetBytes = params.budgetBytes;
        Simulator::summarize(model, rows.front().schedule, limits);
    }
    ComparisonRow plan = rows.front();
    if (budgetPlanner && params.budgetBytes && !params.machine && !file.modules.empty())
        plan = fitWhenApplied(model, *strategy, params, std::move(plan), file);
    const ComparisonRow &storeAll = reference.front();
    const double memorySaved =
        storeAll.summary.peakBytes > 0 ? 1 - double(plan.summary.peakBytes) / double(storeAll.summary.peakBytes) : 0;

    if (options.format == Format::Json) {
        nlohmann::ordered_json doc;
        doc["model"] = modelJson(model);
        if (!options.modelFile.empty())
            doc["model"]["file"] = options.modelFile;
        doc["model"]["name"] = file.name.empty() ? planned.title : file.name;
        doc["model"]["cost_unit"] = file.model.costUnit();
        if (params.budgetBytes || params.budgetNodes)
            doc["budget"] = params.budgetBytes ? nlohmann::ordered_json{{"bytes", *params.budgetBytes}}
                                               : nlohmann::ordered_json{{"nodes", *params.budgetNodes}};
        if (params.machine)
            doc["machine"] = machineJson(*params.machine);
        doc["plan"] = summaryJson(plan);
        nlohmann::ordered_json names = nlohmann::ordered_json::array();
        for (int c : plan.schedule.checkpoints)
            names.push_back(model.label(c));
        doc["plan"]["checkpoint_names"] = names;
        doc["store_all"] = summaryJson(storeAll);
        doc["memory_saved_vs_store_all"] = memorySaved;
        if (!file.trace.empty())
            doc["trace"] = nlohmann::ordered_json::parse(file.trace);
        doc["apply"] = torchPlanJson(model, torchPlan(model, plan.schedule, file.modules, file.chained), file.modules);
        out << doc.dump(2) << '\n';
        return;
    }
    out << "model " << planned.title << ": " << model.layers() << " layers, "
        << (model.isChain() ? "a chain" : "a graph with skip connections") << "\n";
    if (params.machine)
        out << machineLine(*params.machine, model) << "\n";
    out << "plan: " << plan.schedule.description << "\n";
    out << "checkpoints kept from the forward pass (" << plan.schedule.checkpoints.size() << "):";
    if (plan.schedule.checkpoints.empty())
        out << " none besides the input";
    for (std::size_t k = 0; k < plan.schedule.checkpoints.size(); ++k)
        out << (k ? ", " : " ") << nodeName(model, plan.schedule.checkpoints[k]);
    out << "\n\n";
    std::vector<ComparisonRow> table;
    table.push_back(plan);
    table.push_back(storeAll);
    printComparisonTable(out, table, false, model.layers(), model.hasSavedBytes(), model.costUnit());
    const std::string unit = file.model.costUnit().empty() ? "" : " " + file.model.costUnit();
    out << "\nagainst store-all: peak " << formatBytes(plan.summary.peakBytes) << " instead of "
        << formatBytes(storeAll.summary.peakBytes) << " (" << signedPercent(-memorySaved) << "), cost "
        << numberText(plan.summary.cost) << unit << " instead of " << numberText(storeAll.summary.cost) << unit << " ("
        << signedPercent(plan.costOverhead) << ")\n";
    if (params.machine)
        out << "makespan " << formatSeconds(plan.summary.makespanSeconds) << " instead of "
            << formatSeconds(storeAll.summary.makespanSeconds) << " (" << signedPercent(plan.makespanOverhead)
            << "): " << plan.summary.offloads << " offload(s), " << formatBytes(plan.summary.transferBytes)
            << " over the link, " << formatSeconds(plan.summary.stallSeconds) << " of stalls, host peak "
            << formatBytes(plan.summary.peakHostBytes) << "\n";
    if (!file.modules.empty())
        printTorchPlan(out, model, torchPlan(model, plan.schedule, file.modules, file.chained));
}

} // namespace remat::cli
