#pragma once
// What every CUDA backend shares (as HostBackend on the CPU): device 0's
// stream, memory pool, cuBLAS handle with its fixed workspace and timing
// events; node buffers from the pool, counted by one ByteCounter, so the
// counted peak, the pool's high-water mark and the device-level growth are
// read the same way for every network. A network's CUDA backend derives from
// it and adds its math. Internal to gpu/ (it includes the CUDA headers).
#include "core/executor/backend.h"
#include "core/executor/tracking_allocator.h"
#include "gpu/cuda_backend.h"
#include "gpu/device_buffer.h"

#include <cstdint>
#include <string>
#include <vector>

namespace remat::gpu {

// Owns the streams, the pool, the cuBLAS handle and the events.
struct DeviceContext {
    cudaStream_t stream = nullptr;     // compute: kernels, GEMMs, node allocations and frees
    cudaStream_t copyStream = nullptr; // the link: offloads and prefetches, one at a time in issue order
    // Recorded on one stream for the other to wait on (cudaStreamWaitEvent
    // waits for the latest record when it is called, so one event serves
    // every hand-over): the compute stream's work so far, the link's.
    cudaEvent_t computeReached = nullptr, copiesReached = nullptr;
    cudaMemPool_t pool = nullptr;
    cublasHandle_t blas = nullptr;
    cudaEvent_t start = nullptr, stop = nullptr;

    explicit DeviceContext(int device);
    ~DeviceContext();
    DeviceContext(const DeviceContext &) = delete;
    DeviceContext &operator=(const DeviceContext &) = delete;
};

class DeviceBackend : public exec::Backend {
public:
    ~DeviceBackend() override;

    std::string name() const override { return "cuda"; }
    std::string deviceName() const override;
    // cuBLAS's fixed workspace (cublasSetWorkspace), allocated once.
    std::optional<std::int64_t> kernelScratchBytes() const override { return cublasWorkspace_.bytes(); }

    void allocate(NodeId node) override;
    void release(NodeId node) override;
    void releaseAll() override;
    void synchronize() override;

    // Offloading (docs/executor.md): copies on the copy stream into and out of
    // page-locked host memory, ordered with compute by events: a copy starts
    // once the compute stream has reached the op that issued it; reading a
    // prefetched node or freeing an offloaded one makes the compute stream
    // wait for that node's copy event; a host copy goes back to its arena only
    // after the host has seen its prefetch end.
    void offload(NodeId node) override;
    void prefetch(NodeId node) override;
    void waitTransfer(NodeId node) override;
    void releaseHost(NodeId node) override;
    void resetHostPeak() override { hostArena_.resetPeak(); }

    exec::MemoryCounters counters() const override;
    void resetPeak() override;

    void startTimer() override;
    double stopTimerSeconds() override;

    // Device level: what cudaMemGetInfo (and so nvidia-smi) sees. The pool is
    // trimmed first so that the growth is this step's, not an earlier one's.
    void deviceWatchBegin() override;
    void deviceWatchSample() override;
    std::optional<std::int64_t> deviceWatchPeakGrowth() override { return devicePeak_ - deviceBaseline_; }

protected:
    // `nodeCount` node buffers of `nodeBytes` each. Throws OutOfMemory before
    // allocating when `constantBytes` (parameters, gradients, input, target)
    // and the cuBLAS workspace do not fit in the device's free memory.
    DeviceBackend(std::size_t nodeCount, std::int64_t nodeBytes, std::int64_t constantBytes);

    // The allocated buffer of node `id`; throws InvalidArgument naming `role` when it is not.
    float *node(NodeId id, const char *role) const;
    // A counted buffer from the pool (workspaces, saved internals).
    PoolBuffer poolBuffer(std::int64_t bytes, const char *what);
    // A constant buffer holding `host`, uploaded on the compute stream.
    DeviceBuffer upload(const std::vector<float> &host, const char *what);
    // Frees whatever else the derived backend holds between steps.
    virtual void releaseExtra() {}
    // Waits for queued work (both streams) without throwing: the first line
    // of a derived destructor, before its own device buffers go.
    void waitQuietly() const noexcept;

    cudaStream_t stream() const { return context_.stream; }
    cublasHandle_t blas() const { return context_.blas; }
    const DeviceInfo &info() const { return info_; }

private:
    std::int64_t deviceUsed() const;
    cudaEvent_t transferEvent(NodeId id);
    void copyAfterCompute(void *to, const void *from, cudaMemcpyKind kind, NodeId id);

    DeviceInfo info_;
    DeviceContext context_; // destroyed after every buffer below
    DeviceBuffer cublasWorkspace_;
    ByteCounter counter_;
    std::int64_t nodeBytes_;
    std::vector<PoolBuffer> nodes_; // by NodeId
    exec::TrackingAllocator hostArena_; // pinned; outlives hostCopies_
    std::vector<exec::TrackedBuffer> hostCopies_; // by NodeId
    std::vector<cudaEvent_t> transferDone_;       // by NodeId: the end of its latest copy; created on first use
    std::int64_t deviceBaseline_ = 0;
    std::int64_t devicePeak_ = 0;
};

} // namespace remat::gpu
