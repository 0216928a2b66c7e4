#include "gpu/device_buffer.h"

#include "core/errors.h"
#include "core/units.h"

#include <string>

namespace remat::gpu {

void throwOutOfMemory(const char *what, std::int64_t bytes) {
    cudaGetLastError(); // the failed allocation left an error behind; it is reported here
    std::size_t freeBytes = 0, totalBytes = 0;
    const bool known = cudaMemGetInfo(&freeBytes, &totalBytes) == cudaSuccess;
    throw OutOfMemory("GPU out of memory: asked " + formatBytes(bytes) + " (" + std::to_string(bytes) + " bytes) for " +
                      what + "; " +
                      (known ? formatBytes(static_cast<std::int64_t>(freeBytes)) + " free of " +
                                   formatBytes(static_cast<std::int64_t>(totalBytes))
                             : std::string("free memory unknown")));
}

void copyOnStream(void *to, const void *from, std::int64_t bytes, cudaMemcpyKind kind, cudaStream_t stream) {
    if (bytes == 0)
        return; // an empty buffer may have no address at all
    REMAT_CUDA_CHECK(cudaMemcpyAsync(to, from, static_cast<std::size_t>(bytes), kind, stream));
    REMAT_CUDA_CHECK(cudaStreamSynchronize(stream));
}

DeviceBuffer::DeviceBuffer(std::int64_t bytes, const char *what) : bytes_(bytes) {
    void *p = nullptr;
    const cudaError_t status = cudaMalloc(&p, static_cast<std::size_t>(bytes));
    if (status == cudaErrorMemoryAllocation)
        throwOutOfMemory(what, bytes);
    REMAT_CUDA_CHECK(status);
    data_ = static_cast<float *>(p);
}

DeviceBuffer::~DeviceBuffer() {
    if (data_)
        cudaFree(data_); // a destructor cannot throw; a failing free means the context is gone anyway
}

void DeviceBuffer::upload(const float *host, std::int64_t bytes, cudaStream_t stream) {
    copyOnStream(data_, host, bytes, cudaMemcpyHostToDevice, stream);
}

void DeviceBuffer::download(float *host, std::int64_t bytes, cudaStream_t stream) const {
    copyOnStream(host, data_, bytes, cudaMemcpyDeviceToHost, stream);
}

PoolBuffer::PoolBuffer(cudaMemPool_t pool, cudaStream_t stream, ByteCounter &counter, std::int64_t bytes,
                       const char *what)
    : bytes_(bytes), stream_(stream), counter_(&counter) {
    void *p = nullptr;
    const cudaError_t status = cudaMallocFromPoolAsync(&p, static_cast<std::size_t>(bytes), pool, stream);
    if (status == cudaErrorMemoryAllocation)
        throwOutOfMemory(what, bytes);
    REMAT_CUDA_CHECK(status);
    data_ = static_cast<float *>(p);
    counter.add(bytes);
}

PoolBuffer::~PoolBuffer() {
    if (data_) {
        cudaFreeAsync(data_, stream_);
        counter_->remove(bytes_);
    }
}

} // namespace remat::gpu
