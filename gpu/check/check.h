#pragma once
// gpu_check: named checks of the CUDA backend on a real device. Plain C++ (no
// Qt), so it builds on the GPU machine, which has no Qt. Each check returns
// pass or fail with a message saying what was compared; the runner (main.cpp)
// prints one line per check, writes gpu_check.json and ends with
// "N passed, N failed".
//
// Adding checks: a function returning a CheckList in a new file of this
// folder, one line in allChecks() (main.cpp), the file in CMakeLists.txt.
#include "core/executor/backend.h"
#include "core/executor/network.h"
#include "core/executor/transformer.h"
#include "core/schedule.h"

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace remat::gpu::check {

struct Outcome {
    bool passed = false;
    std::string message; // what was compared, with the figures
};

inline Outcome pass(std::string message) {
    return {true, std::move(message)};
}
inline Outcome fail(std::string message) {
    return {false, std::move(message)};
}
inline Outcome expect(bool ok, std::string message) {
    return {ok, std::move(message)};
}

struct Check {
    std::string name; // "<group>/<what> <size>", e.g. "kernel/tanh count=257"
    // Throwing is failing: the runner reports the exception's message.
    std::function<Outcome()> run;
    // Host-only checks (the CPU references, the verification rules) also run
    // on machines without a device, so CTest exercises them everywhere.
    bool needsDevice = true;
};
using CheckList = std::vector<Check>;

CheckList kernelChecks();             // kernel_checks.cpp: every kernel against its CPU reference
CheckList ruleChecks();               // rule_checks.cpp: host-only, the references and --verify's pool rule
CheckList backendChecks();            // backend_checks.cpp: gradients, peaks, out of memory, teardown
CheckList transformerKernelChecks();  // transformer_kernel_checks.cpp: each against transformer_math
CheckList transformerBackendChecks(); // transformer_backend_checks.cpp: gradients, strategies, peaks
CheckList offloadChecks();            // offload_checks.cpp: offload plans' device and host peaks, gradients, overlap

// Shared by the checks of both networks (backend_checks.cpp).
// "n=16 w=1024 b=512", for check names.
std::string describeShape(const exec::NetworkShape &s);
// Store-all's schedule of `model`.
Schedule storeAll(const Model &model);
// Store-all gradients of the CPU and CUDA backends of one network agree:
// max |g_cuda - g_cpu| <= tolerance * max(1, max |g_cpu|).
Outcome agreesWithCpuOn(exec::Backend &cpu, exec::Backend &cuda, const Model &model, double tolerance);
// On a CUDA backend of either network: every strategy gives gradients bitwise equal to store-all's, a counted peak
// equal to the prediction and a pool high-water mark by poolPeakMismatch;
Outcome strategiesAgreeOn(exec::Backend &backend, const Model &model);
// measure()'s device-level growth covers the prediction, counted and pool
// peaks as above.
Outcome devicePeakCoversOn(exec::Backend &backend, const Model &model);

// A transformer whose every node, saved and workspace buffer is a whole
// number of the pool's 2 MiB pages (N = s b = 2^18 tokens, s^2 = 2^20, h
// even), so the pool's high-water mark must equal the prediction exactly:
// nodes 64 MiB, about 2.6 GiB saved per layer. rule_checks.cpp checks that
// it is whole pages.
inline const exec::TransformerShape kTransformerWholePagesShape{3, 64, 2, 1024, 256};

} // namespace remat::gpu::check
