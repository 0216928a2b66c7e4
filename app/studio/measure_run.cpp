#include "app/studio/measure_run.h"

#include "core/errors.h"
#include "core/executor/cpu_backend.h"
#include "core/executor/executor.h"
#include "core/executor/process_memory.h"
#include "core/strategy_registry.h"
#include "core/units.h"

#include <QObject>

#include <algorithm>
#include <memory>

namespace remat::studio {

QString cudaNote() {
    return QObject::tr("CPU (Eigen). CUDA is not offered in the studio: its backend is linked into the "
                       "command line only; run `remat measure --backend cuda` on a machine with a GPU.");
}

MeasureReport measurePanes(const std::vector<PaneConfig> &configs, int layers, const MeasureSettings &settings,
                           const std::function<void(int, int)> &progress, const std::function<bool()> &cancelled) {
    exec::NetworkShape shape;
    shape.layers = layers;
    shape.width = settings.width;
    shape.batch = settings.batch;
    shape.validate();
    if (settings.repeats < 1 || settings.repeats > 1000)
        throw InvalidArgument("repeats must be 1 to 1000, got " + std::to_string(settings.repeats));
    const Model model = exec::networkModel(shape);

    MeasureReport report;
    report.shape = shape;
    std::vector<Schedule> schedules(configs.size());
    const Strategy &storeAll = StrategyRegistry::builtin().get("store-all");
    const Schedule reference = storeAll.makeSchedule(model, {});
    std::int64_t worstPeak = Simulator::summarize(model, reference).peakBytes;
    for (std::size_t i = 0; i < configs.size(); ++i) {
        MeasuredPane pane;
        pane.strategy = configs[i].strategy;
        try {
            StrategyParams params = configs[i].params;
            params.cancelled = cancelled;
            schedules[i] = StrategyRegistry::builtin().get(configs[i].strategy).makeSchedule(model, params);
            pane.description = schedules[i].description;
            pane.predicted = Simulator::summarize(model, schedules[i]);
            worstPeak = std::max(worstPeak, pane.predicted.peakBytes);
        } catch (const Cancelled &) {
            throw;
        } catch (const Error &e) {
            pane.error = e.what();
        }
        report.panes.push_back(std::move(pane));
    }

    // Refuse before allocating: parameters, two gradient copies and the worst
    // schedule's activations must fit in the host's available memory.
    const std::int64_t need = shape.parameterBytes() + shape.parameterBytes() + worstPeak;
    if (const auto available = exec::availableHostBytes(); available && need > *available)
        throw LimitExceeded("measuring needs " + formatBytes(need) + " for n = " + std::to_string(layers) +
                            ", width " + std::to_string(shape.width) + ", batch " + std::to_string(shape.batch) +
                            " but only " + formatBytes(*available) + " is available; choose a smaller width or batch");

    const auto parameters = std::make_shared<const exec::NetworkParameters>(exec::NetworkParameters::generate(shape));
    exec::CpuBackend backend(parameters);
    report.backend = backend.name();
    report.device = backend.deviceName();
    exec::Gradients expected, latest;
    {
        exec::Executor executor(backend, model, reference);
        executor.runStep();
        backend.readGradients(expected);
    }
    const int total = static_cast<int>(configs.size());
    for (std::size_t i = 0; i < configs.size(); ++i) {
        if (cancelled && cancelled())
            throw Cancelled();
        MeasuredPane &pane = report.panes[i];
        if (pane.ok()) {
            try {
                const exec::Measurement m = exec::measure(backend, model, schedules[i], {settings.repeats});
                pane.measuredPeakBytes = m.measuredPeakBytes;
                pane.devicePeakBytes = m.devicePeakBytes;
                pane.secondsPerStep = m.medianSeconds;
                backend.readGradients(latest);
                pane.maxGradientDiff = latest.maxAbsDiff(expected);
                pane.gradientsBitwiseEqual = latest.bitwiseEqual(expected);
            } catch (const Error &e) {
                pane.error = e.what();
            }
        }
        if (progress)
            progress(static_cast<int>(i) + 1, total);
    }
    return report;
}

} // namespace remat::studio
