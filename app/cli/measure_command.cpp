// `remat measure`: runs strategies for real on the CPU (Eigen) or on CUDA and
// sets what was measured beside what the simulator predicted.
#include "arguments.h"
#include "commands.h"
#include "table.h"

#include "core/comparison.h"
#include "core/errors.h"
#include "core/executor/cpu_backend.h"
#include "core/executor/executor.h"
#include "core/executor/network.h"
#include "core/executor/process_memory.h"
#include "core/executor/thread_pool.h"
#include "core/executor/transformer_backend.h"
#include "core/rates.h"
#include "core/report.h"
#include "core/strategy_registry.h"
#include "core/units.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#ifdef REMAT_HAVE_CUDA
#include "gpu/cuda_backend.h"
#include "gpu/cuda_transformer_backend.h"
#endif

namespace remat::cli {

namespace {

using exec::Backend;
using exec::Gradients;
using exec::Measurement;
using exec::NetworkParameters;
using exec::NetworkShape;
using exec::TransformerShape;

struct Row {
    const Strategy *strategy = nullptr;
    Schedule schedule;
    Measurement measurement;
    double maxGradDiff = 0;
    bool bitwiseEqual = true;
};

// The network measured: its model (from the code that allocates its
// buffers), its constant bytes, how to describe it and how to build a backend.
struct Network {
    Model model;
    std::int64_t parameterBytes = 0;
    std::string shapeText;   // "n = 64, width 1024, batch 256", for "does not fit" messages
    std::string sizeOptions; // the options that make it smaller
    std::string description; // one line of the table's header
    nlohmann::ordered_json json;
    std::function<std::unique_ptr<Backend>(const std::string &backend, int threads)> makeBackend;
    std::function<nlohmann::ordered_json(const Gradients &)> gradientSummary; // null: none
    double flopPerCost = 0; // FLOP in one unit of the model's cost: the GEMMs of a forward
};

// What the device offers before anything is allocated.
struct Target {
    std::string backend;
    std::string device;
    std::optional<std::int64_t> freeBytes; // device memory (CUDA) or MemAvailable (CPU)
};

Target probeBackend(const std::string &name) {
    if (name == "cpu")
        return {"cpu", "", exec::availableHostBytes()};
    if (name == "cuda") {
#ifdef REMAT_HAVE_CUDA
        const gpu::DeviceInfo info = gpu::queryDevice(); // throws "CUDA not available: ..."
        return {"cuda", info.name, info.freeBytes};
#else
        throw DeviceUnavailable("CUDA not available: this remat was built without the CUDA backend "
                                "(nvcc was not found when it was configured)");
#endif
    }
    throw InvalidArgument("--backend must be cpu or cuda, got '" + name + "'");
}

Network mlpNetwork(const MeasureCommandOptions &options) {
    for (const auto &[flag, value] : {std::pair{"--layers", &options.layers}, std::pair{"--hidden", &options.hidden},
                                      std::pair{"--heads", &options.heads}, std::pair{"--seq", &options.seq}})
        if (!value->empty())
            throw InvalidArgument(std::string(flag) + " is an option of --network transformer; the tanh network "
                                                      "(--network mlp) takes --n, --width and --batch");
    NetworkShape shape;
    shape.layers = static_cast<int>(parseInteger("--n", options.n.empty() ? "64" : options.n, 1, Model::kMaxLayers));
    shape.width = static_cast<int>(
        parseInteger("--width", options.width.empty() ? "1024" : options.width, 1, NetworkShape::kMaxWidth));
    shape.batch = static_cast<int>(
        parseInteger("--batch", options.batch.empty() ? "256" : options.batch, 1, NetworkShape::kMaxBatch));
    Network net{exec::networkModel(shape), shape.parameterBytes(), {}, "--n, --width or --batch", {}, {}, {}, {}};
    net.shapeText = "n = " + std::to_string(shape.layers) + ", width " + std::to_string(shape.width) + ", batch " +
                    std::to_string(shape.batch);
    net.description = "network: " + net.shapeText + ", fp32; " + formatBytes(shape.nodeBytes()) + " per node";
    net.json = {{"n", shape.layers},
                {"width", shape.width},
                {"batch", shape.batch},
                {"dtype", "fp32"},
                {"node_bytes", shape.nodeBytes()},
                {"parameter_bytes", shape.parameterBytes()}};
    net.flopPerCost = 2.0 * shape.width * shape.width * shape.batch; // cost 1 = one w x w x b GEMM
    net.makeBackend = [shape](const std::string &name, int threads) -> std::unique_ptr<Backend> {
        auto params = std::make_shared<const NetworkParameters>(NetworkParameters::generate(shape));
#ifdef REMAT_HAVE_CUDA
        if (name == "cuda")
            return gpu::makeCudaBackend(std::move(params));
#endif
        (void)name;
        return std::make_unique<exec::CpuBackend>(std::move(params), exec::cpu::selectedIsa(), threads);
    };
    return net;
}

Network transformerNetwork(const MeasureCommandOptions &options) {
    if (!options.n.empty() || !options.width.empty())
        throw InvalidArgument(std::string(options.n.empty() ? "--width" : "--n") +
                              " is an option of --network mlp; the transformer takes --layers, --hidden, --heads, "
                              "--seq and --batch");
    TransformerShape shape;
    const auto value = [](const std::string &text, const char *fallback) { return text.empty() ? fallback : text; };
    shape.layers = static_cast<int>(parseInteger("--layers", value(options.layers, "4"), 1, Model::kMaxLayers));
    shape.hidden =
        static_cast<int>(parseInteger("--hidden", value(options.hidden, "256"), 1, TransformerShape::kMaxHidden));
    shape.heads = static_cast<int>(parseInteger("--heads", value(options.heads, "4"), 1, TransformerShape::kMaxHidden));
    shape.seq = static_cast<int>(parseInteger("--seq", value(options.seq, "128"), 1, TransformerShape::kMaxSeq));
    shape.batch = static_cast<int>(parseInteger("--batch", value(options.batch, "4"), 1, TransformerShape::kMaxBatch));
    if (shape.hidden % shape.heads != 0)
        throw InvalidArgument("--hidden " + std::to_string(shape.hidden) + " is not divisible by --heads " +
                              std::to_string(shape.heads) + ": every head takes hidden / heads features");
    Network net{exec::transformerModel(shape),
                shape.parameterBytes(),
                "transformer " + shape.describe(),
                "--layers, --hidden, --seq or --batch",
                {},
                {},
                {},
                {}};
    const std::int64_t saved = exec::savedBytes(shape);
    net.description = "network: transformer, " + shape.describe() +
                      ", fp32, pre-LN (GPT-2), no dropout, no mask; per layer " + formatBytes(shape.nodeBytes()) +
                      " output + " + formatBytes(saved) + " saved when recording";
    nlohmann::ordered_json buffers = nlohmann::ordered_json::array();
    for (const exec::SavedBuffer &b : exec::savedBuffers(shape))
        buffers.push_back({{"name", b.name}, {"bytes", 4 * b.floats}, {"why", b.why}});
    net.json = {{"type", "transformer"},
                {"layers", shape.layers},
                {"hidden", shape.hidden},
                {"heads", shape.heads},
                {"seq", shape.seq},
                {"batch", shape.batch},
                {"dtype", "fp32"},
                {"node_bytes", shape.nodeBytes()},
                {"saved_bytes_per_layer", saved},
                {"saved_buffers", std::move(buffers)},
                {"forward_workspace_bytes", 4 * exec::forwardWorkspaceFloats(shape)},
                {"backward_workspace_bytes", 4 * exec::backwardWorkspaceFloats(shape)},
                {"parameter_bytes", shape.parameterBytes()}};
    net.flopPerCost = 1e9; // costs in GFLOP
    net.makeBackend = [shape](const std::string &name, int threads) -> std::unique_ptr<Backend> {
        auto params = std::make_shared<const exec::TransformerParameters>(exec::TransformerParameters::generate(shape));
#ifdef REMAT_HAVE_CUDA
        if (name == "cuda")
            return gpu::makeCudaTransformerBackend(std::move(params));
#endif
        (void)name;
        return std::make_unique<exec::TransformerCpuBackend>(std::move(params), exec::cpu::selectedIsa(), threads);
    };
    // Per layer and tensor: L2 norm and sum, enough for a reference to check its own gradients against.
    net.gradientSummary = [shape](const Gradients &g) {
        nlohmann::ordered_json out = nlohmann::ordered_json::array();
        std::vector<float> matrices = g.weights, vectors = g.biases;
        for (int layer = 1; layer <= shape.layers; ++layer) {
            const auto t = exec::layerTensors(matrices.data(), vectors.data(), shape.hidden, layer);
            const std::int64_t h = shape.hidden;
            const std::pair<const float *, std::int64_t> spans[12] = {
                {t.qkvWeight, 3 * h * h}, {t.projWeight, h * h}, {t.fc1Weight, 4 * h * h}, {t.fc2Weight, 4 * h * h},
                {t.ln1Gamma, h},          {t.ln1Beta, h},        {t.qkvBias, 3 * h},       {t.projBias, h},
                {t.ln2Gamma, h},          {t.ln2Beta, h},        {t.fc1Bias, 4 * h},       {t.fc2Bias, h}};
            for (int k = 0; k < 12; ++k) {
                double squares = 0, sum = 0;
                for (std::int64_t j = 0; j < spans[k].second; ++j) {
                    squares += double{spans[k].first[j]} * spans[k].first[j];
                    sum += spans[k].first[j];
                }
                out.push_back({{"layer", layer},
                               {"tensor", exec::kLayerTensorNames[k]},
                               {"l2", std::sqrt(squares)},
                               {"sum", sum}});
            }
        }
        return out;
    };
    return net;
}

Network makeNetwork(const MeasureCommandOptions &options) {
    if (options.network == "mlp")
        return mlpNetwork(options);
    if (options.network == "transformer")
        return transformerNetwork(options);
    throw InvalidArgument("--network must be mlp or transformer, got '" + options.network + "'");
}

void requireFits(const char *what, std::int64_t needed, std::optional<std::int64_t> available, const Network &net) {
    if (available && needed > *available)
        throw LimitExceeded(std::string(what) + " needs " + formatBytes(needed) + " for " + net.shapeText +
                            " but only " + formatBytes(*available) + " is available; choose a smaller " +
                            net.sizeOptions);
}

// --threads: every core this process may use unless given; the CPU's alone.
int threadCount(const MeasureCommandOptions &options) {
    if (options.threads.empty())
        return exec::availableCores();
    if (options.backend == "cuda")
        throw InvalidArgument("--threads sets the CPU backend's threads; --backend cuda computes on the GPU");
    return static_cast<int>(parseInteger("--threads", options.threads, 1, exec::kMaxThreads));
}

std::string seconds(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g", s);
    return buf;
}

std::string ratio(double r) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", r);
    return buf;
}

std::string optionalBytes(const std::optional<std::int64_t> &b) {
    return b ? std::to_string(*b) : "n/a";
}

nlohmann::ordered_json optionalJson(const std::optional<std::int64_t> &b) {
    return b ? nlohmann::ordered_json(*b) : nlohmann::ordered_json(nullptr);
}

// The machine offload strategies are planned and predicted on, from the same
// flags as `remat simulate` (docs/cli.md, measure): --link and --latency; the
// time of a unit of cost from --device-rate (the network's FLOP per unit over
// the rate). Without --link, an offload strategy named in --strategy is run
// on an instant link: its memory does not depend on the link, and no time is
// predicted (`timed` false). Nothing without --link and offload strategies.
struct MeasureMachine {
    std::optional<Machine> machine;
    bool timed = false; // the flags gave a link and a rate: predicted times mean something
};

MeasureMachine measureMachine(const MeasureCommandOptions &options, const Network &net) {
    const MachineOptions &flags = options.machine;
    MeasureMachine out;
    if (flags.link.empty()) {
        requireNoLinkDetails(flags);
        if (options.strategy != "all")
            for (const Strategy *s : selectStrategies(options.strategy, {}, &net.model))
                if (s->usesLink())
                    out.machine = exec::instantLinkMachine();
        return out;
    }
    Machine m;
    m.link.bytesPerSecond = parseBandwidth(flags.link, "--link");
    if (!flags.latency.empty())
        m.link.latencySeconds = parseSeconds(flags.latency, "--latency");
    if (flags.deviceRate.empty())
        throw InvalidArgument("--link " + flags.link +
                              " times transfers against compute: give the device's rate too, e.g. --device-rate "
                              "50GFLOP/s (one unit of this network's cost is " +
                              std::to_string(static_cast<std::int64_t>(net.flopPerCost)) + " FLOP)");
    m.secondsPerCost = net.flopPerCost / parseFlopRate(flags.deviceRate, "--device-rate");
    if (!flags.hostBudget.empty())
        m.hostBudgetBytes = parsePositiveBytes(flags.hostBudget, "--host-budget");
    out.machine = m;
    out.timed = true;
    return out;
}

} // namespace

void runMeasure(const MeasureCommandOptions &options, std::ostream &out) {
    const Network net = makeNetwork(options);
    const Model &model = net.model;
    const int repeats = static_cast<int>(parseInteger("--repeat", options.repeat, 1, 1000));
    const int threads = threadCount(options);

    StrategyParams params = parseStrategyParams(options.params, model);
    const MeasureMachine machine = measureMachine(options, net);
    params.machine = machine.machine;
    applyDeviceBudget(options.machine, options.params.budget, MachineSpec{}, params);
    const auto strategies = selectStrategies(options.strategy, params, &model);

    // Plan every schedule (cheap) before a single buffer exists.
    std::vector<Row> rows;
    std::int64_t worstPeak = 0, worstHostPeak = 0;
    for (const Strategy *s : strategies) {
        Row row;
        row.strategy = s;
        row.schedule = s->makeSchedule(model, paramsForStrategy(*s, params, strategies.size() == 1));
        row.measurement.predicted = machine.machine ? Simulator::summarize(model, row.schedule, *machine.machine)
                                                    : Simulator::summarize(model, row.schedule);
        worstPeak = std::max(worstPeak, row.measurement.predicted.peakBytes);
        worstHostPeak = std::max(worstHostPeak, row.measurement.predicted.peakHostBytes);
        rows.push_back(std::move(row));
    }
    const Strategy &storeAll = StrategyRegistry::builtin().get("store-all");
    const Schedule storeAllSchedule = storeAll.makeSchedule(model, {});
    worstPeak = std::max(worstPeak, Simulator::summarize(model, storeAllSchedule).peakBytes);

    // Refuse absurd sizes before allocating: the host holds the parameters,
    // the gradients twice (the store-all reference and the latest) and, on the
    // CPU, the activations too.
    const Target target = probeBackend(options.backend);
    const std::int64_t gradientBytes = net.parameterBytes / 2;
    const bool onCpu = target.backend == "cpu";
    const std::int64_t hostNeed = net.parameterBytes + 2 * gradientBytes + (onCpu ? worstPeak : 0) + worstHostPeak;
    requireFits("the host", hostNeed, onCpu ? target.freeBytes : exec::availableHostBytes(), net);
    if (!onCpu)
        requireFits("the GPU", net.parameterBytes + worstPeak, target.freeBytes, net);

    const std::unique_ptr<Backend> backend = net.makeBackend(target.backend, threads);

    // The reference gradients: store-all on the same backend.
    Gradients reference, latest;
    {
        exec::Executor executor(*backend, model, storeAllSchedule);
        executor.runStep();
        backend->readGradients(reference);
    }
    const exec::MeasureOptions measureOptions{repeats};
    for (Row &row : rows) {
        row.measurement = exec::measure(*backend, model, row.schedule, measureOptions, {}, machine.machine);
        backend->readGradients(latest);
        row.maxGradDiff = latest.maxAbsDiff(reference);
        row.bitwiseEqual = latest.bitwiseEqual(reference);
    }

    if (options.verify)
        for (const Row &row : rows) {
            const std::string name(row.strategy->name());
            if (row.measurement.measuredPeakBytes != row.measurement.predicted.peakBytes)
                throw Error("verification failed: " + name + " measured a peak of " +
                            std::to_string(row.measurement.measuredPeakBytes) + " bytes, the simulator predicted " +
                            std::to_string(row.measurement.predicted.peakBytes));
            if (row.measurement.measuredHostPeakBytes != row.measurement.predicted.peakHostBytes)
                throw Error("verification failed: " + name + " measured a host peak of " +
                            std::to_string(row.measurement.measuredHostPeakBytes) +
                            " bytes, the simulator predicted " +
                            std::to_string(row.measurement.predicted.peakHostBytes));
#ifdef REMAT_HAVE_CUDA
            // The backend's count above equals the prediction by construction;
            // the pool's own high-water mark is what the GPU really held.
            if (target.backend == "cuda")
                if (const auto why = gpu::poolPeakMismatch(model, row.measurement.predicted.peakBytes,
                                                           row.measurement.allocatorPeakBytes))
                    throw Error("verification failed: " + name + ": " + *why);
#endif
            if (!row.bitwiseEqual)
                throw Error("verification failed: " + name + " gradients differ from store-all's by up to " +
                            std::to_string(row.maxGradDiff));
        }

    bool anyTransfers = false;
    for (const Row &row : rows)
        anyTransfers = anyTransfers || hasTransfers(row.schedule);

    // Ratios against store-all, when it is among the rows.
    const Row *base = nullptr;
    for (const Row &row : rows)
        if (row.strategy == &storeAll)
            base = &row;

    if (options.format == Format::Json) {
        nlohmann::ordered_json doc;
        doc["backend"] = target.backend;
        doc["device"] = backend->deviceName();
        doc["network"] = net.json;
        doc["repeat"] = repeats;
        doc["threads"] = onCpu ? nlohmann::ordered_json(threads) : nlohmann::ordered_json(nullptr);
        doc["kernel_scratch_bytes"] = optionalJson(backend->kernelScratchBytes());
        doc["verified"] = options.verify;
        if (machine.machine)
            doc["link"] = machine.timed ? nlohmann::ordered_json(describeMachine(*machine.machine, model))
                                        : nlohmann::ordered_json("instant (no --link given; memory only)");
        doc["strategies"] = nlohmann::ordered_json::array();
        for (const Row &row : rows) {
            const Measurement &m = row.measurement;
            nlohmann::ordered_json j;
            j["strategy"] = std::string(row.strategy->name());
            j["description"] = row.schedule.description;
            j["predicted_peak_bytes"] = m.predicted.peakBytes;
            j["measured_peak_bytes"] = m.measuredPeakBytes;
            j["allocator_peak_bytes"] = optionalJson(m.allocatorPeakBytes);
            j["device_peak_bytes"] = optionalJson(m.devicePeakBytes);
            j["seconds_per_step"] = m.medianSeconds;
            j["seconds_all_steps"] = m.seconds;
            if (model.hasSavedBytes()) { // what the peak is made of: layer outputs and gradients, internals, workspace
                j["predicted_peak_saved_bytes"] = m.predicted.peakSavedBytes;
                j["predicted_peak_workspace_bytes"] = m.predicted.peakWorkspaceBytes;
            }
            if (anyTransfers) { // offloading: the host arena and the link
                j["predicted_peak_host_bytes"] = m.predicted.peakHostBytes;
                j["measured_peak_host_bytes"] = m.measuredHostPeakBytes;
                j["transfer_bytes"] = m.predicted.transferBytes;
                j["offloads"] = m.predicted.offloads;
                j["prefetches"] = m.predicted.prefetches;
                j["predicted_makespan"] = machine.timed ? numberJson(m.predicted.makespanSeconds) : nullptr;
                j["predicted_stall_time"] = machine.timed ? numberJson(m.predicted.stallSeconds) : nullptr;
            }
            j["forward_evaluations"] = m.predicted.forwardEvaluations;
            j["predicted_cost"] = numberJson(m.predicted.cost);
            if (base) {
                j["time_ratio_vs_store_all"] = m.medianSeconds / base->measurement.medianSeconds;
                j["cost_ratio_vs_store_all"] = m.predicted.cost / base->measurement.predicted.cost;
            }
            j["max_grad_diff_vs_store_all"] = row.maxGradDiff;
            j["gradients_bitwise_equal_to_store_all"] = row.bitwiseEqual;
            doc["strategies"].push_back(std::move(j));
        }
        if (net.gradientSummary)
            doc["gradients"] = net.gradientSummary(reference);
        out << doc.dump(2) << '\n';
        return;
    }

    out << "backend " << target.backend << ": " << backend->deviceName() << '\n'
        << net.description << "; parameters and gradients " << formatBytes(backend->parameterBytes());
    if (const auto scratch = backend->kernelScratchBytes())
        out << ", kernel scratch " << formatBytes(*scratch);
    out << " (constant, not in the peaks)\n"
        << "median of " << repeats << " step(s); peaks in bytes of activations and workspace: measured = the "
        << "backend's count of requested sizes, allocator = the CUDA pool's high-water mark, device = growth seen by "
        << "the driver or OS\n";
    if (anyTransfers)
        out << "offloading: host peaks in bytes of the host arena's copies; "
            << (machine.timed ? describeMachine(*machine.machine, model)
                              : std::string("instant link (no --link given: memory only, no predicted time)"))
            << '\n';
    out << '\n';
    std::vector<std::string> header{"strategy",    "predicted peak", "measured peak", "allocator peak",
                                    "device peak", "forward evals",  "s/step",        "max grad diff"};
    if (base) {
        header.insert(header.begin() + 7, "time ratio");
        header.insert(header.begin() + 8, "cost ratio");
    }
    if (anyTransfers) {
        header.insert(header.begin() + 5, "predicted host peak");
        header.insert(header.begin() + 6, "measured host peak");
        if (machine.timed)
            header.insert(header.begin() + 7, "predicted makespan");
    }
    TextTable table(header);
    for (const Row &row : rows) {
        const Measurement &m = row.measurement;
        std::vector<std::string> cells{std::string(row.strategy->name()),
                                       std::to_string(m.predicted.peakBytes),
                                       std::to_string(m.measuredPeakBytes),
                                       optionalBytes(m.allocatorPeakBytes),
                                       optionalBytes(m.devicePeakBytes),
                                       std::to_string(m.predicted.forwardEvaluations),
                                       seconds(m.medianSeconds),
                                       row.bitwiseEqual ? "0 (bitwise)" : seconds(row.maxGradDiff)};
        if (base) {
            cells.insert(cells.begin() + 7, ratio(m.medianSeconds / base->measurement.medianSeconds));
            cells.insert(cells.begin() + 8, ratio(m.predicted.cost / base->measurement.predicted.cost));
        }
        if (anyTransfers) {
            cells.insert(cells.begin() + 5, std::to_string(m.predicted.peakHostBytes));
            cells.insert(cells.begin() + 6, std::to_string(m.measuredHostPeakBytes));
            if (machine.timed)
                cells.insert(cells.begin() + 7, formatSeconds(m.predicted.makespanSeconds));
        }
        table.addRow(std::move(cells));
    }
    table.print(out);
}

} // namespace remat::cli
