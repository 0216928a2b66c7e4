#pragma once
// RAII device memory that counts its bytes (as tiny-cuda-nn's GPUMemory does).
// DeviceBuffer: cudaMalloc, for the constant part (parameters, gradients).
// PoolBuffer: stream-ordered from a dedicated memory pool, for nodes and
// workspaces; its bytes go to a ByteCounter the backend reports.
#include "gpu/cuda_check.h"

#include <cstdint>
#include <utility>

namespace remat::gpu {

struct ByteCounter {
    std::int64_t live = 0;
    std::int64_t peak = 0;
    std::int64_t allocations = 0;
    void add(std::int64_t bytes) {
        live += bytes;
        ++allocations;
        if (live > peak)
            peak = live;
    }
    void remove(std::int64_t bytes) { live -= bytes; }
};

// Throws OutOfMemory naming the bytes asked and cudaMemGetInfo's free bytes.
[[noreturn]] void throwOutOfMemory(const char *what, std::int64_t bytes);

// cudaMemcpyAsync on `stream`, then waits for the stream (so pageable host
// memory is safe to reuse and the data is ordered with that stream's work).
void copyOnStream(void *to, const void *from, std::int64_t bytes, cudaMemcpyKind kind, cudaStream_t stream);

class DeviceBuffer {
public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(std::int64_t bytes, const char *what = "buffer");
    DeviceBuffer(DeviceBuffer &&o) noexcept { swap(o); }
    DeviceBuffer &operator=(DeviceBuffer &&o) noexcept {
        DeviceBuffer(std::move(o)).swap(*this);
        return *this;
    }
    DeviceBuffer(const DeviceBuffer &) = delete;
    DeviceBuffer &operator=(const DeviceBuffer &) = delete;
    ~DeviceBuffer();

    float *data() const { return data_; }
    std::int64_t bytes() const { return bytes_; }
    // Copies on `stream` and waits for it: the copy is complete, and ordered
    // with the work on that stream, when these return. The backend passes its
    // compute stream: a plain cudaMemcpy runs on the legacy default stream,
    // which does not order with a non-blocking stream.
    void upload(const float *host, std::int64_t bytes, cudaStream_t stream = nullptr);
    void download(float *host, std::int64_t bytes, cudaStream_t stream = nullptr) const;

private:
    void swap(DeviceBuffer &o) noexcept {
        std::swap(data_, o.data_);
        std::swap(bytes_, o.bytes_);
    }
    float *data_ = nullptr;
    std::int64_t bytes_ = 0;
};

class PoolBuffer {
public:
    PoolBuffer() = default;
    PoolBuffer(cudaMemPool_t pool, cudaStream_t stream, ByteCounter &counter, std::int64_t bytes, const char *what);
    PoolBuffer(PoolBuffer &&o) noexcept { swap(o); }
    PoolBuffer &operator=(PoolBuffer &&o) noexcept {
        PoolBuffer(std::move(o)).swap(*this);
        return *this;
    }
    PoolBuffer(const PoolBuffer &) = delete;
    PoolBuffer &operator=(const PoolBuffer &) = delete;
    // Stream-ordered free: safe while kernels reading it are still queued.
    ~PoolBuffer();

    float *data() const { return data_; }
    explicit operator bool() const { return data_ != nullptr; }

private:
    void swap(PoolBuffer &o) noexcept {
        std::swap(data_, o.data_);
        std::swap(bytes_, o.bytes_);
        std::swap(stream_, o.stream_);
        std::swap(counter_, o.counter_);
    }
    float *data_ = nullptr;
    std::int64_t bytes_ = 0;
    cudaStream_t stream_ = nullptr;
    ByteCounter *counter_ = nullptr;
};

} // namespace remat::gpu
