// remat plan: the least-cost schedule of a model file within a memory budget,
// with the checkpoints it keeps and its cost against store-all.
#include "arguments.h"
#include "commands.h"

#include "core/errors.h"
#include "core/model_io.h"
#include "core/rates.h"
#include "core/report.h"
#include "core/simulator.h"
#include "core/strategy_registry.h"
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

} // namespace

void runPlan(const PlanOptions &options, std::ostream &out) {
    if (options.modelFile.empty())
        throw InvalidArgument("plan needs --model FILE (see docs/model-format.md)");
    if (options.frontier)
        return runFrontier(options, out);
    if (!options.samples.empty())
        throw InvalidArgument("--samples applies to --frontier only");
    if (options.format == Format::Csv)
        throw InvalidArgument("plan prints CSV with --frontier only; use --json for one budget");
    const ModelFile file = loadModelFile(options.modelFile);
    const Model &model = file.model;
    StrategyParams params;
    if (!options.budget.empty())
        parseBudget(options.budget, params);
    applyDeviceBudget(options.machine, options.budget, file.machine, params);
    if (!params.budgetBytes && !params.budgetNodes)
        throw InvalidArgument("plan needs --budget, e.g. --budget 2GiB (bytes) or --budget 12 (nodes), or "
                              "--frontier for every budget");
    if (!options.memorySteps.empty())
        params.memorySteps = static_cast<int>(parseInteger("--memory-steps", options.memorySteps, 1, 1 << 20));
    // With a link the planner may also offload (offload-budget, docs/planners.md).
    params.machine = machineFor(model, file.machine, options.machine);

    const StrategyRegistry &registry = StrategyRegistry::builtin();
    auto rows = compareStrategies(model, {&registry.get(params.machine ? "offload-budget" : "budget")}, params);
    StrategyParams storeAllParams;
    storeAllParams.machine = params.machine;
    auto reference = compareStrategies(model, {&registry.get("store-all")}, storeAllParams);
    if (params.machine) {
        // The plan fits the machine: the simulator checks both budgets.
        Machine limits = *params.machine;
        limits.deviceBudgetBytes = params.budgetBytes;
        Simulator::summarize(model, rows.front().schedule, limits);
    }
    const ComparisonRow &plan = rows.front();
    const ComparisonRow &storeAll = reference.front();
    const double memorySaved =
        storeAll.summary.peakBytes > 0 ? 1 - double(plan.summary.peakBytes) / double(storeAll.summary.peakBytes) : 0;

    if (options.format == Format::Json) {
        nlohmann::ordered_json doc;
        doc["model"] = modelJson(model);
        doc["model"]["file"] = options.modelFile;
        doc["model"]["name"] = file.name;
        doc["model"]["cost_unit"] = file.model.costUnit();
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
        out << doc.dump(2) << '\n';
        return;
    }
    out << "model " << (file.name.empty() ? options.modelFile : file.name) << " (" << options.modelFile
        << "): " << model.layers() << " layers, " << (model.isChain() ? "a chain" : "a graph with skip connections")
        << "\n";
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
    printComparisonTable(out, table, false, model.layers(), model.hasSavedBytes());
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
}

} // namespace remat::cli
