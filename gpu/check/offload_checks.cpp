// Offloading on the CUDA backend (docs/executor.md, "Offloading"): offload-all
// and an offload-budget plan run with copies on the copy stream into pinned
// host memory. Each check: the counted device peak and the host arena's peak
// equal the simulator's, the pool's high-water mark obeys poolPeakMismatch
// (exact on whole 2 MiB pages), the gradients are store-all's bit for bit;
// and, on a shape where a copy takes about as long as a layer, that the
// copies did overlap compute, beside the simulator's makespan on the link
// and compute rate measured here.
#include "gpu/check/check.h"
#include "gpu/check/device_data.h"
#include "gpu/cuda_backend.h"
#include "gpu/cuda_transformer_backend.h"

#include "core/executor/executor.h"
#include "core/strategy_registry.h"
#include "tests/executor/step_helpers.h"

#include <algorithm>
#include <memory>
#include <string>

namespace remat::gpu::check {

namespace {

using exec::Gradients;
using exec::Measurement;
using exec::NetworkParameters;
using exec::NetworkShape;
using exec::testing::runOnce;

// A link of `bytesPerSecond` and the time of a unit of cost.
Machine machineOf(double bytesPerSecond, double secondsPerCost) {
    Machine m;
    m.link.bytesPerSecond = bytesPerSecond;
    m.secondsPerCost = secondsPerCost;
    return m;
}

// What the plans of the memory checks assume: a layer's forward takes 1 ms
// and a node's copy half of that, so offload-budget does offload.
Machine planningMachine(const Model &model) {
    const double forwardCost = model.cost(model.forwardNode(1));
    return machineOf(static_cast<double>(model.bytes(model.inputNode())) / 0.5e-3, 1e-3 / forwardCost);
}

// The plan: offload-all, or offload-budget for a budget `percent` of the way
// from offload-all's device peak to store-all's.
Schedule planOn(const Model &model, const std::string &strategy, const Machine &machine, int percent = 50) {
    StrategyParams params;
    params.machine = machine;
    if (strategy == "offload-budget") {
        const Schedule all = StrategyRegistry::builtin().get("offload-all").makeSchedule(model, params);
        const std::int64_t low = Simulator::summarize(model, all, machine).peakBytes;
        const std::int64_t high = Simulator::summarize(model, storeAll(model)).peakBytes;
        params.budgetBytes = low + (high - low) * percent / 100;
    }
    return StrategyRegistry::builtin().get(strategy).makeSchedule(model, params);
}

// measure() of `schedule` beside store-all on the same backend: peaks,
// pool rule, gradients. `extra` gets the measurement for more figures.
Outcome offloadAgreesOn(exec::Backend &backend, const Model &model, const Schedule &schedule,
                        const Machine &machine, Measurement *extra = nullptr) {
    if (!hasTransfers(schedule))
        return fail(schedule.strategy + " planned no transfers (" + schedule.description + ")");
    const Gradients reference = runOnce(backend, model, storeAll(model));
    const Measurement m = exec::measure(backend, model, schedule, exec::MeasureOptions{5}, {}, machine);
    Gradients g;
    backend.readGradients(g);
    if (extra)
        *extra = m;
    const std::string figures = "device " + std::to_string(m.measuredPeakBytes) + " / predicted " +
                                std::to_string(m.predicted.peakBytes) + ", host " +
                                std::to_string(m.measuredHostPeakBytes) + " / " +
                                std::to_string(m.predicted.peakHostBytes) + ", pool " +
                                (m.allocatorPeakBytes ? std::to_string(*m.allocatorPeakBytes) : "none") + ", " +
                                std::to_string(m.predicted.offloads) + " offloads";
    if (m.measuredPeakBytes != m.predicted.peakBytes || m.measuredHostPeakBytes != m.predicted.peakHostBytes)
        return fail(figures);
    if (const auto why = poolPeakMismatch(model, m.predicted.peakBytes, m.allocatorPeakBytes))
        return fail(figures + ": " + *why);
    if (!m.devicePeakBytes || *m.devicePeakBytes < m.predicted.peakBytes)
        return fail(figures + ": device growth " +
                    (m.devicePeakBytes ? std::to_string(*m.devicePeakBytes) : std::string("none")) +
                    " below the prediction");
    if (!g.bitwiseEqual(reference))
        return fail(figures + ": gradients differ from store-all's by up to " + number(g.maxAbsDiff(reference)));
    return pass(figures + ", gradients bitwise equal to store-all's");
}

Outcome mlpOffload(const NetworkShape &shape, const std::string &strategy) {
    const Model model = exec::networkModel(shape);
    const auto cuda = makeCudaBackend(std::make_shared<const NetworkParameters>(NetworkParameters::generate(shape)));
    const Machine machine = planningMachine(model);
    return offloadAgreesOn(*cuda, model, planOn(model, strategy, machine), machine);
}

Outcome transformerOffload(const exec::TransformerShape &shape, const std::string &strategy) {
    const Model model = exec::transformerModel(shape);
    const auto cuda = makeCudaTransformerBackend(
        std::make_shared<const exec::TransformerParameters>(exec::TransformerParameters::generate(shape)));
    const Machine machine = planningMachine(model);
    // The internals stay on the device and dominate (offload-all saves 2 %
    // of store-all's peak here): only a budget near store-all's leaves room
    // for a plan that offloads and beats recomputation (80 % does, 60 % not).
    return offloadAgreesOn(*cuda, model, planOn(model, strategy, machine, 80), machine);
}

// The time with overlap: offload-all's step against store-all's on a shape
// where a node's copy takes about a layer's forward. Passes when the peaks
// and gradients agree and the step took less than store-all's time plus
// every copy one after the other (some copy ran beside compute); reports
// the simulator's makespan on the link and compute rate measured here.
Outcome overlap(const NetworkShape &shape) {
    const Model model = exec::networkModel(shape);
    const auto cuda = makeCudaBackend(std::make_shared<const NetworkParameters>(NetworkParameters::generate(shape)));
    const Measurement store = exec::measure(*cuda, model, storeAll(model), exec::MeasureOptions{5});
    const LinkTimes link = measureLink(shape.nodeBytes());
    const double copySeconds = std::max(link.toHostSeconds, link.toDeviceSeconds);
    const Machine measured =
        machineOf(static_cast<double>(shape.nodeBytes()) / copySeconds, store.medianSeconds / store.predicted.cost);
    Measurement m;
    const Schedule schedule = planOn(model, "offload-all", measured);
    const Outcome agrees = offloadAgreesOn(*cuda, model, schedule, measured, &m);
    const double serial = store.medianSeconds + static_cast<double>(m.predicted.offloads + m.predicted.prefetches) *
                                                    copySeconds;
    const std::string figures =
        "store-all " + number(store.medianSeconds * 1e3) + " ms, offload-all " + number(m.medianSeconds * 1e3) +
        " ms (predicted makespan " + number(m.predicted.makespanSeconds * 1e3) + " ms on the measured link: " +
        number(link.toHostSeconds * 1e3) + " ms to host, " + number(link.toDeviceSeconds * 1e3) +
        " ms to device per " + std::to_string(shape.nodeBytes()) + "-byte node), copies one after the other " +
        number(serial * 1e3) + " ms";
    if (!agrees.passed)
        return fail(agrees.message + "; " + figures);
    return expect(m.medianSeconds < serial, figures + "; " + agrees.message);
}

} // namespace

CheckList offloadChecks() {
    CheckList out;
    // 2 MiB nodes: the pool's high-water mark must equal the prediction.
    for (const NetworkShape &s : {NetworkShape{16, 1024, 512}, NetworkShape{9, 33, 7}})
        for (const char *strategy : {"offload-all", "offload-budget"})
            out.push_back({std::string("offload/") + strategy + " " + describeShape(s),
                           [s, strategy] { return mlpOffload(s, strategy); }});
    for (const char *strategy : {"offload-all", "offload-budget"})
        out.push_back({std::string("offload/transformer ") + strategy + " L=4 h=256 a=4 s=128 b=8",
                       [strategy] { return transformerOffload({4, 256, 4, 128, 8}, strategy); }});
    const NetworkShape big{16, 4096, 1024}; // 16 MiB nodes, 34 GFLOP a forward GEMM
    out.push_back({"offload/overlap " + describeShape(big), [big] { return overlap(big); }});
    return out;
}

} // namespace remat::gpu::check
