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
#include "core/report.h"
#include "core/strategy_registry.h"
#include "core/units.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#ifdef REMAT_HAVE_CUDA
#include "gpu/cuda_backend.h"
#endif

namespace remat::cli {

namespace {

using exec::Backend;
using exec::Gradients;
using exec::Measurement;
using exec::NetworkParameters;
using exec::NetworkShape;

struct Row {
    const Strategy *strategy = nullptr;
    Schedule schedule;
    Measurement measurement;
    double maxGradDiff = 0;
    bool bitwiseEqual = true;
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

std::unique_ptr<Backend> makeBackend(const std::string &name, std::shared_ptr<const NetworkParameters> params) {
#ifdef REMAT_HAVE_CUDA
    if (name == "cuda")
        return gpu::makeCudaBackend(std::move(params));
#endif
    (void)name;
    return std::make_unique<exec::CpuBackend>(std::move(params));
}

void requireFits(const char *what, std::int64_t needed, std::optional<std::int64_t> available,
                 const NetworkShape &shape) {
    if (available && needed > *available)
        throw LimitExceeded(std::string(what) + " needs " + formatBytes(needed) +
                            " for n = " + std::to_string(shape.layers) + ", width " + std::to_string(shape.width) +
                            ", batch " + std::to_string(shape.batch) + " but only " + formatBytes(*available) +
                            " is available; choose a smaller --n, --width or --batch");
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

} // namespace

void runMeasure(const MeasureCommandOptions &options, std::ostream &out) {
    NetworkShape shape;
    shape.layers = static_cast<int>(parseInteger("--n", options.n, 1, Model::kMaxLayers));
    shape.width = static_cast<int>(parseInteger("--width", options.width, 1, NetworkShape::kMaxWidth));
    shape.batch = static_cast<int>(parseInteger("--batch", options.batch, 1, NetworkShape::kMaxBatch));
    const int repeats = static_cast<int>(parseInteger("--repeat", options.repeat, 1, 1000));
    const Model model = exec::networkModel(shape);

    const StrategyParams params = parseStrategyParams(options.params, model.layers());
    const auto strategies = selectStrategies(options.strategy, params, &model);

    // Plan every schedule (cheap) before a single buffer exists.
    std::vector<Row> rows;
    std::int64_t worstPeak = 0;
    for (const Strategy *s : strategies) {
        Row row;
        row.strategy = s;
        row.schedule = s->makeSchedule(model, paramsForStrategy(*s, params, strategies.size() == 1));
        row.measurement.predicted = Simulator::summarize(model, row.schedule);
        worstPeak = std::max(worstPeak, row.measurement.predicted.peakBytes);
        rows.push_back(std::move(row));
    }
    const Strategy &storeAll = StrategyRegistry::builtin().get("store-all");
    const Schedule storeAllSchedule = storeAll.makeSchedule(model, {});
    worstPeak = std::max(worstPeak, Simulator::summarize(model, storeAllSchedule).peakBytes);

    // Refuse absurd sizes before allocating: the host holds the parameters,
    // the gradients twice (the store-all reference and the latest) and, on the
    // CPU, the activations too.
    const Target target = probeBackend(options.backend);
    const std::int64_t gradientBytes = shape.parameterBytes() / 2;
    const bool onCpu = target.backend == "cpu";
    const std::int64_t hostNeed = shape.parameterBytes() + 2 * gradientBytes + (onCpu ? worstPeak : 0);
    requireFits("the host", hostNeed, onCpu ? target.freeBytes : exec::availableHostBytes(), shape);
    if (!onCpu)
        requireFits("the GPU", shape.parameterBytes() + worstPeak, target.freeBytes, shape);

    const auto parameters = std::make_shared<const NetworkParameters>(NetworkParameters::generate(shape));
    const std::unique_ptr<Backend> backend = makeBackend(target.backend, parameters);

    // The reference gradients: store-all on the same backend.
    Gradients reference, latest;
    {
        exec::Executor executor(*backend, model, storeAllSchedule);
        executor.runStep();
        backend->readGradients(reference);
    }
    const exec::MeasureOptions measureOptions{repeats};
    for (Row &row : rows) {
        row.measurement = exec::measure(*backend, model, row.schedule, measureOptions);
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
#ifdef REMAT_HAVE_CUDA
            // The backend's count above equals the prediction by construction;
            // the pool's own high-water mark is what the GPU really held.
            if (target.backend == "cuda")
                if (const auto why = gpu::poolPeakMismatch(shape, row.measurement.predicted.peakBytes,
                                                           row.measurement.allocatorPeakBytes))
                    throw Error("verification failed: " + name + ": " + *why);
#endif
            if (!row.bitwiseEqual)
                throw Error("verification failed: " + name + " gradients differ from store-all's by up to " +
                            std::to_string(row.maxGradDiff));
        }

    // Ratios against store-all, when it is among the rows.
    const Row *base = nullptr;
    for (const Row &row : rows)
        if (row.strategy == &storeAll)
            base = &row;

    if (options.format == Format::Json) {
        nlohmann::ordered_json doc;
        doc["backend"] = target.backend;
        doc["device"] = backend->deviceName();
        doc["network"] = {{"n", shape.layers},
                          {"width", shape.width},
                          {"batch", shape.batch},
                          {"dtype", "fp32"},
                          {"node_bytes", shape.nodeBytes()},
                          {"parameter_bytes", backend->parameterBytes()}};
        doc["repeat"] = repeats;
        doc["verified"] = options.verify;
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
        out << doc.dump(2) << '\n';
        return;
    }

    out << "backend " << target.backend << ": " << backend->deviceName() << "\nnetwork: n = " << shape.layers
        << ", width " << shape.width << ", batch " << shape.batch << ", fp32; " << formatBytes(shape.nodeBytes())
        << " per node; parameters and gradients " << formatBytes(backend->parameterBytes())
        << " (constant, not in the peaks)\n"
        << "median of " << repeats << " step(s); peaks in bytes of activations and workspace: measured = the "
        << "backend's count of requested sizes, allocator = the CUDA pool's high-water mark, device = growth seen by "
        << "the driver or OS\n\n";
    std::vector<std::string> header{"strategy",    "predicted peak", "measured peak", "allocator peak",
                                    "device peak", "forward evals",  "s/step",        "max grad diff"};
    if (base) {
        header.insert(header.begin() + 7, "time ratio");
        header.insert(header.begin() + 8, "cost ratio");
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
        table.addRow(std::move(cells));
    }
    table.print(out);
}

} // namespace remat::cli
