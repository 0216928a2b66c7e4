#pragma once
// The CUDA backend, seen from plain C++ (no CUDA header needed to include it):
// node buffers from a dedicated stream-ordered memory pool, cuBLAS GEMMs,
// small kernels for tanh and its derivative, CUDA-event timing. The
// transformer's CUDA backend is gpu/cuda_transformer_backend.h.
// docs/executor.md explains what each memory figure means.
#include "core/executor/backend.h"
#include "core/executor/network.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace remat::gpu {

struct DeviceInfo {
    int ordinal = 0;
    std::string name;         // "NVIDIA H200"
    int major = 0, minor = 0; // compute capability
    std::int64_t freeBytes = 0;
    std::int64_t totalBytes = 0;
    int driverVersion = 0; // e.g. 13000
    int runtimeVersion = 0;
};

// CPU and CUDA compute the same fp32 network with different summation orders
// (Eigen's blocking vs cuBLAS's kernels), so they agree to a tolerance, not
// bitwise: max |g_cuda - g_cpu| <= kCpuAgreementTolerance * max(1, max |g_cpu|)
// over every weight and bias gradient and b_0 (docs/executor.md).
inline constexpr double kCpuAgreementTolerance = 1e-3;

// The pool maps device memory in pages of 2 MiB; whatever rounding it applies
// to an allocation divides that. So when every node, saved and workspace
// buffer of the model is a whole number of pages, the pool's used-memory
// high-water mark (allocator_peak_bytes) must equal the predicted peak
// exactly; otherwise it may only be larger.
inline constexpr std::int64_t kPoolPageBytes = std::int64_t{2} << 20;
bool poolPeakIsExact(const Model &model);

// nullopt when the observed pool peak agrees with the prediction by the rule
// above; otherwise why not (no figure, below the prediction, or not equal
// where it must be). `remat measure --verify` and gpu_check use it.
std::optional<std::string> poolPeakMismatch(const Model &model, std::int64_t predictedPeakBytes,
                                            std::optional<std::int64_t> allocatorPeakBytes);

// The device the backend would use (device 0). Throws DeviceUnavailable with
// "CUDA not available: <the runtime's message>" when there is no usable
// device or driver (on machines without a GPU the runtime says the driver is
// insufficient or that no device was found).
DeviceInfo queryDevice();

// How long one copy of `bytes` takes each way between page-locked host
// memory and the device, on a stream of its own (the median of 5 after a
// warm-up): the link the simulator should be given for this machine.
struct LinkTimes {
    double toHostSeconds = 0;
    double toDeviceSeconds = 0;
};
LinkTimes measureLink(std::int64_t bytes);

// Uploads the parameters and sets up the pool, stream and cuBLAS handle.
// Throws OutOfMemory before allocating when the parameters alone do not fit.
std::unique_ptr<exec::Backend> makeCudaBackend(std::shared_ptr<const exec::NetworkParameters> parameters);

} // namespace remat::gpu
