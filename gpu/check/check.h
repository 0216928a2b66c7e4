#pragma once
// gpu_check: named checks of the CUDA backend on a real device. Plain C++ (no
// Qt), so it builds on the GPU machine, which has no Qt. Each check returns
// pass or fail with a message saying what was compared; the runner (main.cpp)
// prints one line per check, writes gpu_check.json and ends with
// "N passed, N failed".
//
// Adding checks: a function returning a CheckList in a new file of this
// folder, one line in allChecks() (main.cpp), the file in CMakeLists.txt.
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

CheckList kernelChecks();  // kernel_checks.cpp: every kernel against its CPU reference
CheckList ruleChecks();    // rule_checks.cpp: host-only, the references and --verify's pool rule
CheckList backendChecks(); // backend_checks.cpp: gradients, peaks, out of memory, teardown

} // namespace remat::gpu::check
