// remat plan --frontier: the trade-off curve of a model file (least compute
// for every memory budget) with the named strategies on the same axes.
#include "arguments.h"
#include "commands.h"
#include "table.h"

#include "core/errors.h"
#include "core/frontier.h"
#include "core/model_io.h"
#include "core/report.h"
#include "core/units.h"

#include <algorithm>
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

} // namespace

void runFrontier(const PlanOptions &options, std::ostream &out) {
    if (!options.budget.empty())
        throw InvalidArgument("--frontier plans every budget; leave out --budget " + options.budget);
    const ModelFile file = loadModelFile(options.modelFile);
    const Model &model = file.model;
    FrontierOptions fo;
    if (!options.memorySteps.empty())
        fo.memorySteps = static_cast<int>(parseInteger("--memory-steps", options.memorySteps, 1, 1 << 20));
    if (!options.samples.empty())
        fo.samples = static_cast<int>(parseInteger("--samples", options.samples, 2, 1000));
    const Frontier f = computeFrontier(model, fo);

    switch (options.format) {
    case Format::Json: {
        nlohmann::ordered_json doc;
        doc["model"] = modelJson(model);
        doc["model"]["file"] = options.modelFile;
        doc["model"]["name"] = file.name;
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
        for (const auto &p : f.named)
            doc["named"].push_back({{"label", p.label},
                                    {"strategy", p.strategy},
                                    {"options", p.options},
                                    {"peak_bytes", p.peakBytes},
                                    {"peak_saved_bytes", p.peakSavedBytes},
                                    {"cost", numberJson(p.cost)},
                                    {"overhead_vs_store_all", overhead(p.cost, f.storeAllCost)},
                                    {"above_curve", numberJson(aboveCurve(f, p))}});
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
    out << "model " << (file.name.empty() ? options.modelFile : file.name) << " (" << options.modelFile
        << "): " << model.layers() << " layers, " << (model.isChain() ? "a chain" : "a graph with skip connections")
        << "\n";
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
        named.addRow({p.label, p.options, formatBytes(p.peakBytes), formatBytes(p.peakSavedBytes), numberText(p.cost),
                      overheadText(p.cost, f.storeAllCost), above > 0 ? "+" + numberText(above) + unit : "on it"});
    }
    named.print(out);
}

} // namespace remat::cli
