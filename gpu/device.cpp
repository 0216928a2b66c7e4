#include "gpu/cuda_backend.h"
#include "gpu/cuda_check.h"

#include "core/errors.h"

#include <string>

namespace remat::gpu {

DeviceInfo queryDevice() {
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) {
        cudaGetLastError();
        throw DeviceUnavailable(std::string("CUDA not available: ") + cudaGetErrorString(status));
    }
    if (count < 1)
        throw DeviceUnavailable("CUDA not available: no CUDA device found");
    DeviceInfo info;
    cudaDeviceProp prop{};
    REMAT_CUDA_CHECK(cudaGetDeviceProperties(&prop, info.ordinal));
    int pools = 0;
    REMAT_CUDA_CHECK(cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, info.ordinal));
    if (!pools)
        throw DeviceUnavailable(std::string("CUDA not available: ") + prop.name +
                                " does not support stream-ordered memory pools (cudaMallocAsync)");
    info.name = prop.name;
    info.major = prop.major;
    info.minor = prop.minor;
    REMAT_CUDA_CHECK(cudaSetDevice(info.ordinal));
    std::size_t freeBytes = 0, totalBytes = 0;
    REMAT_CUDA_CHECK(cudaMemGetInfo(&freeBytes, &totalBytes));
    info.freeBytes = static_cast<std::int64_t>(freeBytes);
    info.totalBytes = static_cast<std::int64_t>(totalBytes);
    REMAT_CUDA_CHECK(cudaDriverGetVersion(&info.driverVersion));
    REMAT_CUDA_CHECK(cudaRuntimeGetVersion(&info.runtimeVersion));
    return info;
}

} // namespace remat::gpu
