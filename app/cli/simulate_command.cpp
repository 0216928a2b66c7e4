#include "arguments.h"
#include "commands.h"
#include "table.h"

#include "core/comparison.h"
#include "core/errors.h"
#include "core/model_io.h"
#include "core/rates.h"
#include "core/report.h"
#include "core/units.h"

#include <cstdio>
#include <memory>
#include <optional>

namespace remat::cli {

namespace {

std::string percent(double overhead) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%+.1f%%", overhead * 100);
    return buf;
}

} // namespace

Model buildChain(const std::string &nText, const ModelOptions &options) {
    const int n = static_cast<int>(parseInteger("--n", nText, 1, Model::kMaxLayers));
    ChainSpec spec;
    spec.nodeBytes = parsePositiveBytes(options.nodeBytes, "--node-bytes");
    spec.savedBytes = parseBytes(options.savedBytes, "--saved-bytes");
    if (spec.savedBytes < 0)
        throw InvalidArgument("--saved-bytes must be 0 or more bytes, got '" + options.savedBytes + "'");
    // With --forward-time the costs are seconds: what the link's transfers are timed against.
    return chainWithTimes(n, spec, options.forwardTime, options.backwardTime);
}

void parseBudget(const std::string &text, StrategyParams &params, const Model &model) {
    const bool plainNumber = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
    if (!plainNumber) {
        params.budgetBytes = parseBytes(text, "--budget");
        return;
    }
    const std::int64_t amount = parseInteger("--budget", text, 1, std::int64_t{1} << 40);
    // A bare number counts nodes, which only means something where every node is one unit.
    if (!model.sizesInNodes())
        throw InvalidArgument("--budget " + text + " is a bare number, and this model's sizes are bytes: write " +
                              text + "B or " + formatBytes(amount) + " (a count of nodes applies to unit-size chains)");
    params.budgetNodes = amount;
}

void printComparisonTable(std::ostream &out, const std::vector<ComparisonRow> &rows, bool withN, int n, bool withSaved,
                          const std::string &costUnit) {
    // Costs that are times read as times ("100 ms", not "0.1"); others name their unit in the header.
    const std::optional<double> costSeconds = timeUnitSeconds(costUnit);
    const std::string costHeader = costSeconds || costUnit.empty() ? "cost" : "cost (" + costUnit + ")";
    std::vector<std::string> header{"strategy",      "peak nodes",     "peak bytes",
                                    "forward evals", "recomputations", "backward ops",
                                    "ops",           costHeader,       "overhead vs store-all",
                                    "memory",        "compute"};
    // Inserted after "peak bytes": the peak split into layer outputs (and
    // gradients) and saved internals.
    constexpr std::ptrdiff_t kAfterPeakBytes = 3;
    if (withSaved)
        header.insert(header.begin() + kAfterPeakBytes, {"outputs at peak", "saved at peak"});
    // Timed rows (a link): the host and the two streams, after the cost's overhead.
    const bool timed = !rows.empty() && rows.front().summary.timed;
    const auto afterOverhead = static_cast<std::ptrdiff_t>(header.size()) - 2;
    if (timed)
        header.insert(header.begin() + afterOverhead, {"host peak bytes", "transfer bytes", "compute time",
                                                       "stall time", "makespan", "makespan vs store-all"});
    if (withN)
        header.insert(header.begin(), "n");
    TextTable table(header);
    for (const auto &r : rows) {
        std::vector<std::string> cells{std::string(r.strategy->name()),
                                       std::to_string(r.summary.peakNodes),
                                       std::to_string(r.summary.peakBytes),
                                       std::to_string(r.summary.forwardEvaluations),
                                       std::to_string(r.summary.recomputations),
                                       std::to_string(r.summary.backwardOps),
                                       std::to_string(r.summary.ops),
                                       costSeconds ? formatSeconds(r.summary.cost * *costSeconds)
                                                   : numberText(r.summary.cost),
                                       percent(r.costOverhead),
                                       std::string(r.strategy->memoryClass()),
                                       std::string(r.strategy->computeClass())};
        if (withSaved) {
            const Summary &p = r.summary;
            cells.insert(cells.begin() + kAfterPeakBytes,
                         {std::to_string(p.peakBytes - p.peakSavedBytes - p.peakWorkspaceBytes),
                          std::to_string(p.peakSavedBytes)});
        }
        if (timed) {
            const Summary &p = r.summary;
            cells.insert(cells.begin() + afterOverhead,
                         {std::to_string(p.peakHostBytes), std::to_string(p.transferBytes),
                          formatSeconds(p.computeSeconds), formatSeconds(p.stallSeconds),
                          formatSeconds(p.makespanSeconds), percent(r.makespanOverhead)});
        }
        if (withN)
            cells.insert(cells.begin(), std::to_string(n));
        table.addRow(std::move(cells));
    }
    table.print(out);
}

void runSimulate(const SimulateOptions &options, std::ostream &out) {
    if (options.timeline && options.format != Format::Csv)
        throw InvalidArgument("--timeline needs --csv (the timeline is one CSV line per op)");
    std::optional<ModelFile> file;
    if (!options.modelFile.empty())
        file = loadModelFile(options.modelFile);
    const auto model = std::make_shared<const Model>(file ? file->model : buildChain(options.n, options.model));
    StrategyParams params = parseStrategyParams(options.params, *model);
    const MachineSpec fileMachine = file ? file->machine : MachineSpec{};
    applyDeviceBudget(options.machine, options.params.budget, fileMachine, params);
    params.machine = machineFor(*model, fileMachine, options.machine);
    const auto strategies = selectStrategies(options.strategy, params, model.get());
    std::vector<ComparisonRow> rows;
    for (const Strategy *s : strategies)
        rows.push_back(
            std::move(compareStrategies(*model, {s}, paramsForStrategy(*s, params, strategies.size() == 1)).front()));

    const int n = model->layers();
    if (options.timeline) {
        writeTimelineCsvHeader(out, params.machine.has_value());
        for (auto &row : rows) {
            auto schedule = std::make_shared<const Schedule>(std::move(row.schedule));
            const auto replay = params.machine ? Simulator::replay(model, schedule, *params.machine)
                                               : Simulator::replay(model, schedule);
            writeTimelineCsv(out, std::string(row.strategy->name()), replay.timeline);
        }
        return;
    }
    switch (options.format) {
    case Format::Json: {
        nlohmann::ordered_json doc;
        doc["n"] = n;
        doc["model"] = modelJson(*model);
        if (params.machine)
            doc["machine"] = machineJson(*params.machine);
        doc["strategies"] = nlohmann::ordered_json::array();
        for (const auto &r : rows)
            doc["strategies"].push_back(summaryJson(r));
        out << doc.dump(2) << '\n';
        break;
    }
    case Format::Csv:
        writeSummaryCsvHeader(out, false, params.machine.has_value());
        for (const auto &r : rows)
            writeSummaryCsvRow(out, r, n, false);
        break;
    case Format::Table:
        if (file)
            out << "model " << (file->name.empty() ? options.modelFile : file->name) << " (" << options.modelFile
                << "): " << n << " layers, " << (model->isChain() ? "a chain" : "a graph with skip connections")
                << (model->costUnit().empty() ? "" : ", cost in " + model->costUnit()) << "\n\n";
        else
            out << "chain of n = " << n << " layers, " << formatBytes(model->bytes(0)) << " per node"
                << (model->hasSavedBytes() ? ", " + formatBytes(model->savedBytes(1)) + " saved internals per layer"
                                           : std::string())
                << (model->costUnit() == "s" ? ", forward " + formatSeconds(model->cost(model->forwardNode(1))) +
                                                   ", backward " + formatSeconds(model->cost(model->backwardNode(1)))
                                             : std::string(", forward cost 1, backward cost 2"))
                << " (docs/model.md)\n\n";
        if (params.machine)
            out << machineLine(*params.machine, *model) << "\n\n";
        printComparisonTable(out, rows, false, n, model->hasSavedBytes(), model->costUnit());
        break;
    }
}

} // namespace remat::cli
