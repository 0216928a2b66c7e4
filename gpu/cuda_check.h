#pragma once
// Every CUDA runtime and cuBLAS call goes through these macros: a failure
// becomes a remat::DeviceError naming the call, file:line and CUDA's message
// (llm.c's cudaCheck, as exceptions since this is a library).
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

namespace remat::gpu {

[[noreturn]] void throwCudaError(cudaError_t status, const char *call, const char *file, int line);
[[noreturn]] void throwCublasError(cublasStatus_t status, const char *call, const char *file, int line);

inline void checkCuda(cudaError_t status, const char *call, const char *file, int line) {
    if (status != cudaSuccess)
        throwCudaError(status, call, file, line);
}
inline void checkCublas(cublasStatus_t status, const char *call, const char *file, int line) {
    if (status != CUBLAS_STATUS_SUCCESS)
        throwCublasError(status, call, file, line);
}

} // namespace remat::gpu

#define REMAT_CUDA_CHECK(call) ::remat::gpu::checkCuda((call), #call, __FILE__, __LINE__)
#define REMAT_CUBLAS_CHECK(call) ::remat::gpu::checkCublas((call), #call, __FILE__, __LINE__)
