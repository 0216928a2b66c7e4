// remat plan --frontier: the trade-off curve of a model file (least compute
// for every memory budget) with the named strategies on the same axes.
#include "arguments.h"
#include "commands.h"
#include "table.h"

#include "core/errors.h"
#include "core/frontier.h"
#include "core/model_io.h"
#include "core/rates.h"
#include "core/report.h"
#include "core/units.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace remat::cli {

namespace {

std::string overheadText(double cost, double storeAllCost) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%+.1f%%", storeAllCost > 0 ? (cost / storeAllCost - 1) * 100 : 0.0);
    return buf;
}

double overhead(double cost, double storeAllCost) {
    return storeAllCost > 0 ? cost / storeAllCost - 1 : 0;
}

// How far above the curve a named point lies, at its own peak (0 on it; sums
// of the same costs in another order differ in the last bits).
double aboveCurve(const Frontier &f, const NamedPoint &p) {
    const double above = p.cost - frontierCostAt(f, p.peakBytes);
    return above > 1e-9 * std::max(1.0, p.cost) ? above : 0;
}

// The recompute curve's time at a peak: its least cost on the device clock.
double recomputeMakespanAt(const Frontier &f, std::int64_t peakBytes) {
    return frontierCostAt(f, peakBytes) * f.secondsPerCost;
}

// Where offloading beats recomputation: the offload planner's least makespan
// for each peak beside the recompute curve's at the same peak.
void printOffloadCurve(std::ostream &out, const Frontier &f, const Machine &machine, const Model &model) {
    out << "\nwith offloading, " << machineLine(machine, model) << ": least makespan for each peak ("
        << f.offloadCurve.size() << " steps; recomputation's at the same peak beside it):\n\n";
    TextTable table({"peak", "peak bytes", "makespan", "recomputation", "offloading saves", "offloads", "host peak",
                     "stalls", "plan"});
    for (const auto &p : f.offloadCurve) {
        const double recompute = recomputeMakespanAt(f, p.peakBytes);
        const bool below = std::isfinite(recompute);
        table.addRow({formatBytes(p.peakBytes), std::to_string(p.peakBytes), formatSeconds(p.makespanSeconds),
                      below ? formatSeconds(recompute) : "does not fit",
                      below ? formatSeconds(recompute - p.makespanSeconds) : "all of it", std::to_string(p.offloads),
                      formatBytes(p.peakHostBytes), formatSeconds(p.stallSeconds),
                      p.label.empty() ? "offload-budget " + formatBytes(p.budgetBytes) : p.label});
    }
    table.print(out);
}

std::string ratioText(double r) {
    if (!std::isfinite(r))
        return "no plan";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", r);
    return buf;
}

// The runtime deciding (dtr) at each budget, beside the least compute there.
void printDtrCurve(std::ostream &out, const Frontier &f, const std::string &unit) {
    out << "\nthe runtime deciding (dtr, h_DTR = c/(m*s)), from its minimum " << formatBytes(f.dtrMinimumBytes)
        << " (a budget within which it runs out of memory has no row), beside the least compute at the same "
           "budget:\n\n";
    TextTable table({"budget", "dtr peak", "dtr cost" + unit, "least cost" + unit, "dtr / least", "what dtr did"});
    const std::vector<double> ratios = dtrOverOptimal(f);
    for (std::size_t k = 0; k < f.dtrCurve.size(); ++k) {
        const FrontierPoint &p = f.dtrCurve[k];
        const double least = frontierCostAt(f, p.budgetBytes);
        table.addRow({formatBytes(p.budgetBytes), formatBytes(p.peakBytes), numberText(p.cost),
                      std::isfinite(least) ? numberText(least) : "no plan", ratioText(ratios[k]), p.description});
    }
    table.print(out);
}

} // namespace

void runFrontier(const PlanOptions &options, std::ostream &out) {
    if (!options.budget.empty())
        throw InvalidArgument("--frontier plans every budget; leave out --budget " + options.budget);
    const PlanModel planned = planModel(options);
    const ModelFile &file = planned.file;
    const Model &model = file.model;
    FrontierOptions fo;
    if (!options.effort.empty()) {
        fo.effort = parseGraphEffort(options.effort, model.isChain());
    }
    if (!options.searchWork.empty())
        fo.searchWork = parseSearchWork(options.searchWork, model.isChain());
    if (!options.memorySteps.empty())
        fo.memorySteps = static_cast<int>(parseInteger("--memory-steps", options.memorySteps, 1, 1 << 20));
    if (!options.samples.empty())
        fo.samples = static_cast<int>(parseInteger("--samples", options.samples, 2, 1000));
    if (!options.machine.deviceBudget.empty())
        throw InvalidArgument("--frontier plans every budget; leave out --device-budget " +
                              options.machine.deviceBudget);
    // With a link: every point timed, and the offload planner's curve beside recomputation's.
    fo.machine = machineFor(model, file.machine, options.machine);
    const Frontier f = computeFrontier(model, fo);

    switch (options.format) {
    case Format::Json: {
        nlohmann::ordered_json doc;
        doc["model"] = modelJson(model);
        if (!options.modelFile.empty())
            doc["model"]["file"] = options.modelFile;
        doc["model"]["name"] = file.name.empty() ? planned.title : file.name;
        doc["model"]["cost_unit"] = file.model.costUnit();
        doc["store_all"] = {{"peak_bytes", f.storeAllBytes}, {"cost", numberJson(f.storeAllCost)}};
        doc["minimum_bytes"] = f.minimumBytes;
        doc["curve"] = nlohmann::ordered_json::array();
        for (const auto &p : f.curve)
            doc["curve"].push_back({{"peak_bytes", p.peakBytes},
                                    {"peak_saved_bytes", p.peakSavedBytes},
                                    {"cost", numberJson(p.cost)},
                                    {"overhead_vs_store_all", overhead(p.cost, f.storeAllCost)},
                                    {"budget_bytes", p.budgetBytes},
                                    {"named", p.label},
                                    {"description", p.description}});
        doc["named"] = nlohmann::ordered_json::array();
        for (const auto &p : f.named) {
            doc["named"].push_back({{"label", p.label},
                                    {"strategy", p.strategy},
                                    {"options", p.options},
                                    {"peak_bytes", p.peakBytes},
                                    {"peak_saved_bytes", p.peakSavedBytes},
                                    {"cost", numberJson(p.cost)},
                                    {"overhead_vs_store_all", overhead(p.cost, f.storeAllCost)},
                                    {"above_curve", numberJson(aboveCurve(f, p))}});
            if (f.timed) {
                auto &named = doc["named"].back();
                named["makespan"] = p.makespanSeconds;
                named["stall_time"] = p.stallSeconds;
                named["peak_host_bytes"] = p.peakHostBytes;
                named["transfer_bytes"] = p.transferBytes;
            }
        }
        doc["dtr_minimum_bytes"] = f.dtrMinimumBytes;
        doc["dtr_curve"] = nlohmann::ordered_json::array();
        const std::vector<double> ratios = dtrOverOptimal(f);
        for (std::size_t k = 0; k < f.dtrCurve.size(); ++k) {
            const FrontierPoint &p = f.dtrCurve[k];
            doc["dtr_curve"].push_back({{"budget_bytes", p.budgetBytes},
                                        {"peak_bytes", p.peakBytes},
                                        {"peak_saved_bytes", p.peakSavedBytes},
                                        {"cost", numberJson(p.cost)},
                                        {"least_cost", numberJson(frontierCostAt(f, p.budgetBytes))},
                                        {"over_least", numberJson(ratios[k])},
                                        {"description", p.description}});
        }
        if (f.timed) {
            doc["machine"] = machineJson(*fo.machine);
            for (auto &point : doc["curve"])
                point["makespan"] = point["cost"].get<double>() * f.secondsPerCost;
            doc["offload_curve"] = nlohmann::ordered_json::array();
            for (const auto &p : f.offloadCurve)
                doc["offload_curve"].push_back({{"peak_bytes", p.peakBytes},
                                                {"makespan", p.makespanSeconds},
                                                {"recompute_makespan", recomputeMakespanAt(f, p.peakBytes)},
                                                {"stall_time", p.stallSeconds},
                                                {"peak_host_bytes", p.peakHostBytes},
                                                {"transfer_bytes", p.transferBytes},
                                                {"offloads", p.offloads},
                                                {"cost", numberJson(p.cost)},
                                                {"budget_bytes", p.budgetBytes},
                                                {"named", p.label},
                                                {"description", p.description}});
        }
        out << doc.dump(2) << '\n';
        return;
    }
    case Format::Csv:
        out << frontierCsv(f);
        return;
    case Format::Table:
        break;
    }
    const std::string unit = file.model.costUnit().empty() ? "" : " " + file.model.costUnit();
    out << "model " << planned.title << ": " << model.layers() << " layers, "
        << (model.isChain() ? "a chain" : "a graph with skip connections") << "\n";
    out << "least compute for each peak, from " << formatBytes(f.minimumBytes) << " to store-all's "
        << formatBytes(f.storeAllBytes) << " (" << f.curve.size() << " steps):\n\n";
    TextTable curve({"peak", "peak bytes", "saved at peak", "cost" + unit, "overhead vs store-all", "plan"});
    for (const auto &p : f.curve)
        curve.addRow({formatBytes(p.peakBytes), std::to_string(p.peakBytes), formatBytes(p.peakSavedBytes),
                      numberText(p.cost), overheadText(p.cost, f.storeAllCost),
                      p.label.empty() ? "budget " + formatBytes(p.budgetBytes) : p.label});
    curve.print(out);
    out << "\nnamed strategies on the same axes:\n\n";
    TextTable named(
        {"strategy", "options", "peak", "saved at peak", "cost" + unit, "overhead vs store-all", "above the curve"});
    for (const auto &p : f.named) {
        const double above = aboveCurve(f, p);
        // Appended, not "+" + text: GCC 12's -Wrestrict misreads that at -O2.
        std::string aboveText = "on it";
        if (above > 0)
            aboveText = std::string(1, '+').append(numberText(above)).append(unit);
        named.addRow({p.label, p.options, formatBytes(p.peakBytes), formatBytes(p.peakSavedBytes), numberText(p.cost),
                      overheadText(p.cost, f.storeAllCost), aboveText});
    }
    named.print(out);
    if (!f.dtrCurve.empty())
        printDtrCurve(out, f, unit);
    if (f.timed)
        printOffloadCurve(out, f, *fo.machine, model);
}

} // namespace remat::cli
