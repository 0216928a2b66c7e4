// The CUDA backend running real schedules: gradients against the CPU backend
// (a wrong GEMM transpose shows here, not in --verify), bitwise-equal
// gradients and exact counted peaks across every strategy, the pool's observed
// high-water mark, device-level growth, out-of-memory errors and teardown.
#include "gpu/check/check.h"
#include "gpu/check/device_data.h"
#include "gpu/cuda_backend.h"

#include "core/errors.h"
#include "core/executor/cpu_backend.h"
#include "core/executor/executor.h"
#include "core/strategy_registry.h"
#include "tests/executor/step_helpers.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

namespace remat::gpu::check {

namespace {

using exec::Gradients;
using exec::NetworkParameters;
using exec::NetworkShape;
using exec::testing::runOnce;

std::shared_ptr<const NetworkParameters> parametersFor(const NetworkShape &s) {
    return std::make_shared<const NetworkParameters>(NetworkParameters::generate(s));
}

// CPU and CUDA store-all gradients agree within kCpuAgreementTolerance.
Outcome agreesWithCpu(const NetworkShape &shape) {
    const auto params = parametersFor(shape);
    exec::CpuBackend cpu(params);
    const auto cuda = makeCudaBackend(params); // its first step follows the uploads directly
    return agreesWithCpuOn(cpu, *cuda, exec::networkModel(shape), kCpuAgreementTolerance);
}

Outcome strategiesAgree(const NetworkShape &shape) {
    const Model model = exec::networkModel(shape);
    const auto cuda = makeCudaBackend(parametersFor(shape));
    return strategiesAgreeOn(*cuda, model);
}

Outcome devicePeakCovers(const NetworkShape &shape) {
    const Model model = exec::networkModel(shape);
    const auto cuda = makeCudaBackend(parametersFor(shape));
    return devicePeakCoversOn(*cuda, model);
}

bool mentionsFreeBytes(const OutOfMemory &e) {
    return std::string(e.what()).find("free") != std::string::npos;
}

// Parameters larger than the whole device: refused before allocating.
Outcome parametersTooLarge() {
    const DeviceInfo info = queryDevice();
    NetworkShape huge{1, 1 << 16, 1};
    while (huge.parameterBytes() <= info.totalBytes)
        huge.layers *= 2;
    const auto params = std::make_shared<NetworkParameters>();
    params->shape = huge; // the constructor checks sizes before touching the (empty) host data
    try {
        makeCudaBackend(params);
        return fail(describeShape(huge) + " was accepted on a device of " + std::to_string(info.totalBytes) + " bytes");
    } catch (const OutOfMemory &e) {
        return expect(mentionsFreeBytes(e), e.what());
    }
}

// Nodes of 8 GiB allocated until the pool refuses: OutOfMemory naming the
// bytes, and the backend still works once they are released.
Outcome nodesTooLarge() {
    const auto params = std::make_shared<NetworkParameters>();
    params->shape = {24, 8192, 1 << 18}; // empty host data: only buffers are allocated here
    const auto cuda = makeCudaBackend(params);
    const int nodes = 2 * (params->shape.layers + 1);
    int allocated = 0;
    try {
        for (; allocated < nodes; ++allocated)
            cuda->allocate(static_cast<NodeId>(allocated));
        return fail("all " + std::to_string(nodes) + " nodes of " + std::to_string(params->shape.nodeBytes()) +
                    " bytes were allocated");
    } catch (const OutOfMemory &e) {
        if (!mentionsFreeBytes(e))
            return fail(std::string("message without the free bytes: ") + e.what());
        cuda->releaseAll();
        cuda->allocate(0); // usable again
        cuda->synchronize();
        return pass("after " + std::to_string(allocated) + " nodes: " + e.what());
    }
}

// A backend destroyed with work still queued (no synchronize): no error, and
// run under compute-sanitizer by scripts/gpu-check.sh, no use after free.
Outcome teardownWithQueuedWork() {
    const NetworkShape shape{4, 512, 256};
    const auto params = parametersFor(shape);
    {
        const auto cuda = makeCudaBackend(params);
        cuda->allocate(0);
        cuda->loadInput();
        for (int i = 1; i <= shape.layers; ++i) {
            cuda->allocate(static_cast<NodeId>(i));
            cuda->forward(i);
        }
    } // destroyed here, the forwards possibly still running
    REMAT_CUDA_CHECK(cudaDeviceSynchronize());
    const Model model = exec::networkModel(shape);
    const auto again = makeCudaBackend(params);
    const Gradients first = runOnce(*again, model, storeAll(model)), second = runOnce(*again, model, storeAll(model));
    return expect(first.bitwiseEqual(second), "destroyed mid-step without an error; a new backend then runs");
}

} // namespace

std::string describeShape(const exec::NetworkShape &s) {
    return "n=" + std::to_string(s.layers) + " w=" + std::to_string(s.width) + " b=" + std::to_string(s.batch);
}

Schedule storeAll(const Model &model) {
    return StrategyRegistry::builtin().get("store-all").makeSchedule(model, {});
}

Outcome agreesWithCpuOn(exec::Backend &cpu, exec::Backend &cuda, const Model &model, double tolerance) {
    const Schedule s = storeAll(model);
    const Gradients onCpu = runOnce(cpu, model, s);
    const Gradients onCuda = runOnce(cuda, model, s);
    const double diff = onCuda.maxAbsDiff(onCpu), largest = largestMagnitude(onCpu);
    const double allowed = tolerance * std::max(1.0, largest);
    return expect(diff <= allowed, "max |g_cuda - g_cpu| " + number(diff) + " (allowed " + number(allowed) +
                                       ", largest |g_cpu| " + number(largest) + ")");
}

Outcome strategiesAgreeOn(exec::Backend &backend, const Model &model) {
    const Gradients reference = runOnce(backend, model, storeAll(model));
    int strategies = 0;
    for (const exec::testing::Planned &p : exec::testing::allSchedules(model)) {
        exec::StepRecord r;
        const Gradients g = runOnce(backend, model, p.schedule, &r);
        const std::int64_t predicted = Simulator::summarize(model, p.schedule).peakBytes;
        if (!g.bitwiseEqual(reference))
            return fail(p.strategy + ": gradients differ from store-all's by up to " + number(g.maxAbsDiff(reference)));
        if (r.memory.peakBytes != predicted)
            return fail(p.strategy + ": counted peak " + std::to_string(r.memory.peakBytes) + " != predicted " +
                        std::to_string(predicted));
        if (const auto why = poolPeakMismatch(model, predicted, r.memory.allocatorPeakBytes))
            return fail(p.strategy + ": " + *why);
        ++strategies;
    }
    return pass(std::to_string(strategies) +
                " strategies: gradients bitwise equal to store-all's, counted peak = "
                "predicted, pool peak " +
                std::string(poolPeakIsExact(model) ? "= predicted (whole pages)" : ">= predicted"));
}

Outcome devicePeakCoversOn(exec::Backend &backend, const Model &model) {
    const exec::Measurement m = exec::measure(backend, model, storeAll(model), {3});
    if (!m.devicePeakBytes)
        return fail("no device-level figure");
    if (m.measuredPeakBytes != m.predicted.peakBytes)
        return fail("counted peak " + std::to_string(m.measuredPeakBytes) + " != predicted " +
                    std::to_string(m.predicted.peakBytes));
    if (const auto why = poolPeakMismatch(model, m.predicted.peakBytes, m.allocatorPeakBytes))
        return fail(*why);
    return expect(*m.devicePeakBytes >= m.predicted.peakBytes && m.medianSeconds > 0,
                  "device growth " + std::to_string(*m.devicePeakBytes) + " >= predicted " +
                      std::to_string(m.predicted.peakBytes) + ", pool peak " +
                      std::to_string(m.allocatorPeakBytes.value_or(-1)) + ", median step " + number(m.medianSeconds) +
                      " s");
}

CheckList backendChecks() {
    CheckList out;
    // Odd sizes (width 33, batch 7) and shapes where width != batch, so that a
    // transposed GEMM cannot pass.
    for (const NetworkShape &s : {NetworkShape{1, 8, 2}, NetworkShape{6, 33, 7}, NetworkShape{5, 96, 1000},
                                  NetworkShape{16, 256, 64}, NetworkShape{4, 1024, 3}})
        out.push_back({"backend/agrees-with-cpu " + describeShape(s), [s] { return agreesWithCpu(s); }});
    for (const NetworkShape &s : {NetworkShape{12, 64, 32}, NetworkShape{10, 33, 7}, NetworkShape{8, 1024, 512}})
        out.push_back({"backend/strategies " + describeShape(s), [s] { return strategiesAgree(s); }});
    for (const NetworkShape &s : {NetworkShape{8, 512, 128}, NetworkShape{8, 1024, 512}})
        out.push_back({"backend/device-peak " + describeShape(s), [s] { return devicePeakCovers(s); }});
    out.push_back({"backend/out-of-memory parameters", parametersTooLarge});
    out.push_back({"backend/out-of-memory nodes", nodesTooLarge});
    out.push_back({"backend/teardown with queued work", teardownWithQueuedWork});
    return out;
}

} // namespace remat::gpu::check
