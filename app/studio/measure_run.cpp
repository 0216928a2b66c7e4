#include "app/studio/measure_run.h"

#include "core/errors.h"
#include "core/executor/cpu_backend.h"
#include "core/executor/executor.h"
#include "core/executor/process_memory.h"
#include "core/executor/transformer.h"
#include "core/executor/transformer_backend.h"
#include "core/strategy_registry.h"
#include "core/units.h"

#ifdef REMAT_HAVE_CUDA
#include "gpu/cuda_backend.h"
#include "gpu/cuda_transformer_backend.h"
#endif

#include <QObject>

#include <algorithm>
#include <memory>

namespace remat::studio {

std::optional<QString> cudaUnavailable() {
#ifdef REMAT_HAVE_CUDA
    static const std::optional<QString> reason = []() -> std::optional<QString> {
        try {
            gpu::queryDevice();
            return std::nullopt;
        } catch (const Error &e) {
            return QString::fromUtf8(e.what());
        }
    }();
    return reason;
#else
    return QObject::tr("CUDA not available: this remat-studio was built without the CUDA backend (nvcc was not "
                       "found when it was configured)");
#endif
}

namespace {

// Throws DeviceUnavailable for CUDA without a device, LimitExceeded when the
// network does not fit.
std::unique_ptr<exec::Backend> makeBackend(const MeasureSettings &settings, const exec::NetworkShape &shape,
                                           std::int64_t worstPeak) {
    auto refuse = [&](const char *what, std::int64_t need, std::int64_t available) {
        throw LimitExceeded(std::string("measuring needs ") + formatBytes(need) + " of " + what +
                            " for n = " + std::to_string(shape.layers) + ", width " + std::to_string(shape.width) +
                            ", batch " + std::to_string(shape.batch) + " but only " + formatBytes(available) +
                            " is available; choose a smaller width or batch");
    };
    const bool cuda = settings.backend == "cuda";
    if (!cuda && settings.backend != "cpu")
        throw InvalidArgument("backend must be cpu or cuda, got '" + settings.backend + "'");
    // The host holds the parameters and two gradient copies (and, on the CPU,
    // the activations); the GPU the parameters, their gradients and the activations.
    const std::int64_t hostNeed = 2 * shape.parameterBytes() + (cuda ? 0 : worstPeak);
    if (const auto available = exec::availableHostBytes(); available && hostNeed > *available)
        refuse("host memory", hostNeed, *available);
#ifdef REMAT_HAVE_CUDA
    if (cuda) {
        const gpu::DeviceInfo device = gpu::queryDevice();
        if (shape.parameterBytes() + worstPeak > device.freeBytes)
            refuse("GPU memory", shape.parameterBytes() + worstPeak, device.freeBytes);
        return gpu::makeCudaBackend(
            std::make_shared<const exec::NetworkParameters>(exec::NetworkParameters::generate(shape)));
    }
#else
    if (cuda)
        throw DeviceUnavailable(cudaUnavailable().value_or(QString()).toStdString());
#endif
    return std::make_unique<exec::CpuBackend>(
        std::make_shared<const exec::NetworkParameters>(exec::NetworkParameters::generate(shape)),
        exec::cpu::selectedIsa(), settings.threads);
}

// The opened transformer: its own model, on the CPU or CUDA.
std::unique_ptr<exec::Backend> makeTransformerBackend(const MeasureSettings &settings,
                                                      const exec::TransformerShape &shape, std::int64_t worstPeak) {
    const bool cuda = settings.backend == "cuda";
    if (!cuda && settings.backend != "cpu")
        throw InvalidArgument("backend must be cpu or cuda, got '" + settings.backend + "'");
    const std::int64_t hostNeed = 2 * shape.parameterBytes() + (cuda ? 0 : worstPeak);
    if (const auto available = exec::availableHostBytes(); available && hostNeed > *available)
        throw LimitExceeded("measuring " + shape.describe() + " needs " + formatBytes(hostNeed) +
                            " of host memory but only " + formatBytes(*available) + " is available");
    auto params = std::make_shared<const exec::TransformerParameters>(exec::TransformerParameters::generate(shape));
#ifdef REMAT_HAVE_CUDA
    if (cuda) {
        const gpu::DeviceInfo device = gpu::queryDevice();
        if (shape.parameterBytes() + worstPeak > device.freeBytes)
            throw LimitExceeded("measuring " + shape.describe() + " needs " +
                                formatBytes(shape.parameterBytes() + worstPeak) + " of GPU memory but only " +
                                formatBytes(device.freeBytes) + " is free");
        return gpu::makeCudaTransformerBackend(std::move(params));
    }
#else
    if (cuda)
        throw DeviceUnavailable(cudaUnavailable().value_or(QString()).toStdString());
#endif
    return std::make_unique<exec::TransformerCpuBackend>(std::move(params), exec::cpu::selectedIsa(), settings.threads);
}

// The simulator's bytes op by op against the backend's: the first op where
// they part (-1 when none), so a mismatch names its op, not just the peak.
std::int64_t firstMismatch(const Model &model, const Schedule &schedule, const exec::MemoryTrace &trace,
                           const std::optional<Machine> &machine) {
    const auto sharedModel = std::make_shared<const Model>(model);
    const auto sharedSchedule = std::make_shared<const Schedule>(schedule);
    const Replay replay = machine ? Simulator::replay(sharedModel, sharedSchedule, *machine)
                                  : Simulator::replay(sharedModel, sharedSchedule);
    const Timeline &tl = replay.timeline;
    const auto steps = static_cast<std::int64_t>(trace.during.size());
    for (std::int64_t t = 0; t < std::min(steps, tl.steps()); ++t)
        if (trace.during[static_cast<std::size_t>(t)] != tl.bytesAt(t))
            return t;
    return steps == tl.steps() ? -1 : std::min(steps, tl.steps());
}

} // namespace

MeasureReport measurePanes(const std::vector<PaneConfig> &configs, int layers, const MeasureSettings &settings,
                           const std::function<void(double)> &progress, const std::function<bool()> &cancelled,
                           const Model *paneModel) {
    if (settings.repeats < 1 || settings.repeats > 1000)
        throw InvalidArgument("repeats must be 1 to 1000, got " + std::to_string(settings.repeats));
    exec::requireThreadCount("threads", settings.threads);
    MeasureReport report;
    const std::optional<exec::TransformerShape> transformer =
        paneModel ? exec::recognizeTransformer(*paneModel) : std::nullopt;
    exec::NetworkShape shape;
    shape.layers = layers;
    shape.width = settings.width;
    shape.batch = settings.batch;
    Model model = Model::chain(1);
    if (transformer) {
        model = exec::transformerModel(*transformer);
        report.shape.layers = report.shape.width = report.shape.batch = 0; // no MLP ran
        report.network = "transformer, " + transformer->describe();
    } else {
        shape.validate();
        model = exec::networkModel(shape);
        report.shape = shape;
        report.network = "tanh MLP, n = " + std::to_string(layers) + ", width " + std::to_string(shape.width) +
                         ", batch " + std::to_string(shape.batch);
        // An abstract chain is this MLP with concrete sizes; a model file
        // that is not a network the executor runs is not.
        report.ranPaneModel = !paneModel || paneModel->sizesInNodes();
    }
    std::vector<Schedule> schedules(configs.size());
    // Offload panes run on their own link; the memory predicted does not depend on it.
    std::vector<std::optional<Machine>> machines(configs.size());
    const Strategy &storeAll = StrategyRegistry::builtin().get("store-all");
    const Schedule reference = storeAll.makeSchedule(model, {});
    const Summary referenceSummary = Simulator::summarize(model, reference);
    std::int64_t worstPeak = referenceSummary.peakBytes;
    const double referenceCost = referenceSummary.cost;
    for (std::size_t i = 0; i < configs.size(); ++i) {
        MeasuredPane pane;
        pane.strategy = configs[i].strategy;
        try {
            StrategyParams params = configs[i].params;
            params.cancelled = cancelled;
            const Strategy &strategy = StrategyRegistry::builtin().get(configs[i].strategy);
            // The window's link times the pane's own model, not this network:
            // an offload strategy runs here on an instant link, as `remat
            // measure` without --link does (its memory does not depend on the link).
            if (strategy.usesLink() && !params.machine)
                params.machine = exec::instantLinkMachine();
            schedules[i] = strategy.makeSchedule(model, params);
            pane.description = schedules[i].description;
            pane.schedule = std::make_shared<const Schedule>(schedules[i]);
            machines[i] = params.machine;
            if (!machines[i] && hasTransfers(schedules[i]))
                machines[i] = exec::instantLinkMachine();
            pane.predicted = machines[i] ? Simulator::summarize(model, schedules[i], *machines[i])
                                         : Simulator::summarize(model, schedules[i]);
            pane.predictedCostVsStoreAll = pane.predicted.cost / std::max(1e-300, referenceCost);
            worstPeak = std::max(worstPeak, pane.predicted.peakBytes);
        } catch (const Cancelled &) {
            throw;
        } catch (const Error &e) {
            pane.error = e.what();
        }
        report.panes.push_back(std::move(pane));
    }

    // Refused before anything is allocated.
    const std::unique_ptr<exec::Backend> owned =
        transformer                ? makeTransformerBackend(settings, *transformer, worstPeak)
        : settings.backendFactory ? settings.backendFactory(std::make_shared<const exec::NetworkParameters>(
                                        exec::NetworkParameters::generate(shape)))
                                  : makeBackend(settings, shape, worstPeak);
    exec::Backend &backend = *owned;
    report.backend = backend.name();
    report.device = backend.deviceName();

    // The executor asks before every op whether to stop: each question is an op done.
    exec::MeasureOptions measureOptions;
    measureOptions.repeats = settings.repeats;
    const int stepsPerPane = measureOptions.warmups + 1 + measureOptions.repeats; // + the probe step
    double totalOps = static_cast<double>(stepsPerPane) * static_cast<double>(reference.ops.size());
    for (std::size_t i = 0; i < configs.size(); ++i)
        if (report.panes[i].ok())
            totalOps += static_cast<double>(stepsPerPane) * static_cast<double>(schedules[i].ops.size());
    double opsDone = 0;
    int reported = 0; // permille; the dialog starts at 0
    auto reportProgress = [&](double done) {
        const int permille = static_cast<int>(std::min(1.0, done / std::max(1.0, totalOps)) * 1000);
        if (progress && permille != reported) {
            reported = permille;
            progress(permille / 1000.0);
        }
    };
    const exec::CancelCheck countingOps = [&] {
        reportProgress(++opsDone);
        return cancelled && cancelled();
    };

    exec::Gradients expected, latest;
    {
        // Timed like the panes, so that their times read as ratios to it.
        const exec::Measurement m = exec::measure(backend, model, reference, measureOptions, countingOps);
        report.storeAllSecondsPerStep = m.medianSeconds;
        backend.readGradients(expected);
    }
    for (std::size_t i = 0; i < configs.size(); ++i) {
        if (cancelled && cancelled())
            throw Cancelled();
        MeasuredPane &pane = report.panes[i];
        if (pane.ok()) {
            try {
                exec::Measurement m =
                    exec::measure(backend, model, schedules[i], measureOptions, countingOps, machines[i]);
                pane.measuredPeakBytes = m.measuredPeakBytes;
                pane.measuredHostPeakBytes = m.measuredHostPeakBytes;
                pane.trace = std::move(m.trace);
                pane.firstTraceMismatch = firstMismatch(model, *pane.schedule, pane.trace, machines[i]);
                pane.devicePeakBytes = m.devicePeakBytes;
                pane.secondsPerStep = m.medianSeconds;
                if (report.storeAllSecondsPerStep > 0)
                    pane.timeVsStoreAll = pane.secondsPerStep / report.storeAllSecondsPerStep;
                backend.readGradients(latest);
                pane.maxGradientDiff = latest.maxAbsDiff(expected);
                pane.gradientsBitwiseEqual = latest.bitwiseEqual(expected);
            } catch (const Cancelled &) {
                throw;
            } catch (const Error &e) {
                pane.error = e.what();
            }
        }
    }
    opsDone = totalOps; // a pane that failed midway counted fewer
    reportProgress(opsDone);
    return report;
}

} // namespace remat::studio
