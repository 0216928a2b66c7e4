#include "gpu/cuda_check.h"

#include "core/errors.h"

#include <string>

namespace remat::gpu {

namespace {
std::string where(const char *call, const char *file, int line) {
    return std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": ";
}
} // namespace

void throwCudaError(cudaError_t status, const char *call, const char *file, int line) {
    cudaGetLastError(); // clear a sticky-free error so the next call is not blamed for this one
    const std::string message =
        where(call, file, line) + cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")";
    if (status == cudaErrorMemoryAllocation)
        throw OutOfMemory("GPU out of memory: " + message);
    throw DeviceError(message);
}

void throwCublasError(cublasStatus_t status, const char *call, const char *file, int line) {
    const std::string message =
        where(call, file, line) + cublasGetStatusName(status) + " (" + cublasGetStatusString(status) + ")";
    if (status == CUBLAS_STATUS_ALLOC_FAILED)
        throw OutOfMemory("GPU out of memory: " + message);
    throw DeviceError(message);
}

} // namespace remat::gpu
