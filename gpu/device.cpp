#include "gpu/cuda_backend.h"
#include "gpu/cuda_check.h"
#include "gpu/device_buffer.h"

#include "core/errors.h"

#include <algorithm>
#include <string>
#include <vector>

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

namespace {

// The handles measureLink needs, released however it ends.
struct LinkProbe {
    void *host = nullptr;
    cudaStream_t stream = nullptr;
    cudaEvent_t start = nullptr, stop = nullptr;
    ~LinkProbe() {
        if (stream)
            cudaStreamSynchronize(stream);
        if (start)
            cudaEventDestroy(start);
        if (stop)
            cudaEventDestroy(stop);
        if (stream)
            cudaStreamDestroy(stream);
        if (host)
            cudaFreeHost(host);
    }
};

} // namespace

LinkTimes measureLink(std::int64_t bytes) {
    if (bytes < 1)
        throw InvalidArgument("a link is measured on at least 1 byte, got " + std::to_string(bytes));
    DeviceBuffer device(bytes, "the link probe");
    LinkProbe p;
    REMAT_CUDA_CHECK(cudaHostAlloc(&p.host, static_cast<std::size_t>(bytes), cudaHostAllocDefault));
    REMAT_CUDA_CHECK(cudaStreamCreateWithFlags(&p.stream, cudaStreamNonBlocking));
    REMAT_CUDA_CHECK(cudaEventCreate(&p.start));
    REMAT_CUDA_CHECK(cudaEventCreate(&p.stop));
    const auto time = [&](void *to, const void *from, cudaMemcpyKind kind) {
        std::vector<double> seconds;
        for (int k = 0; k < 6; ++k) {
            REMAT_CUDA_CHECK(cudaEventRecord(p.start, p.stream));
            REMAT_CUDA_CHECK(cudaMemcpyAsync(to, from, static_cast<std::size_t>(bytes), kind, p.stream));
            REMAT_CUDA_CHECK(cudaEventRecord(p.stop, p.stream));
            REMAT_CUDA_CHECK(cudaEventSynchronize(p.stop));
            float ms = 0;
            REMAT_CUDA_CHECK(cudaEventElapsedTime(&ms, p.start, p.stop));
            if (k > 0) // the first is the warm-up
                seconds.push_back(ms / 1000.0);
        }
        std::sort(seconds.begin(), seconds.end());
        return seconds[seconds.size() / 2];
    };
    LinkTimes t;
    t.toHostSeconds = time(p.host, device.data(), cudaMemcpyDeviceToHost);
    t.toDeviceSeconds = time(device.data(), p.host, cudaMemcpyHostToDevice);
    return t;
}

} // namespace remat::gpu
