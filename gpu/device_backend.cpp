// Node buffers come from a dedicated memory pool on one stream
// (stream-ordered, so freeing never waits for the GPU); the pool's used-memory
// high-water mark is the allocator-level peak, reset every step, and
// cudaMemGetInfo cross-checks it at device level.
#include "gpu/device_backend.h"

#include "core/errors.h"
#include "gpu/cuda_check.h"

#include <algorithm>
#include <limits>

namespace remat::gpu {

namespace {
// cuBLAS gets its own fixed workspace (cublasSetWorkspace) so that it never
// allocates behind the pool's back and its GEMMs are reproducible.
constexpr std::int64_t kCublasWorkspaceBytes = 32 << 20;

// Page-locked host blocks for the host arena: a copy from pageable memory is
// staged by the driver and does not run beside compute. cudaHostAlloc
// aligns to pages, more than TrackingAllocator::kAlignment.
void *pinnedBlock(std::size_t bytes) {
    void *p = nullptr;
    const cudaError_t status = cudaHostAlloc(&p, bytes, cudaHostAllocDefault);
    if (status == cudaErrorMemoryAllocation) {
        cudaGetLastError();
        return nullptr; // TrackingAllocator throws OutOfMemory naming the bytes
    }
    REMAT_CUDA_CHECK(status);
    return p;
}
void freePinnedBlock(void *block) noexcept {
    cudaFreeHost(block); // on release paths: nothing to report a failure to
}
} // namespace

DeviceContext::DeviceContext(int device) {
    REMAT_CUDA_CHECK(cudaSetDevice(device));
    REMAT_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    REMAT_CUDA_CHECK(cudaStreamCreateWithFlags(&copyStream, cudaStreamNonBlocking));
    REMAT_CUDA_CHECK(cudaEventCreateWithFlags(&computeReached, cudaEventDisableTiming));
    REMAT_CUDA_CHECK(cudaEventCreateWithFlags(&copiesReached, cudaEventDisableTiming));
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    REMAT_CUDA_CHECK(cudaMemPoolCreate(&pool, &props));
    // Keep released memory in the pool between steps (as PyTorch's caching
    // allocator does); trimmed explicitly before a device-level probe.
    std::uint64_t keep = std::numeric_limits<std::uint64_t>::max();
    REMAT_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
    REMAT_CUBLAS_CHECK(cublasCreate(&blas));
    REMAT_CUBLAS_CHECK(cublasSetStream(blas, stream));
    REMAT_CUDA_CHECK(cudaEventCreate(&start));
    REMAT_CUDA_CHECK(cudaEventCreate(&stop));
}

DeviceContext::~DeviceContext() {
    // Nothing here may throw; errors on teardown have no one to report to.
    if (stream)
        cudaStreamSynchronize(stream);
    if (copyStream)
        cudaStreamSynchronize(copyStream);
    if (computeReached)
        cudaEventDestroy(computeReached);
    if (copiesReached)
        cudaEventDestroy(copiesReached);
    if (start)
        cudaEventDestroy(start);
    if (stop)
        cudaEventDestroy(stop);
    if (blas)
        cublasDestroy(blas);
    if (pool)
        cudaMemPoolDestroy(pool);
    if (copyStream)
        cudaStreamDestroy(copyStream);
    if (stream)
        cudaStreamDestroy(stream);
}

DeviceBackend::DeviceBackend(std::size_t nodeCount, std::int64_t nodeBytes, std::int64_t constantBytes)
    : info_(queryDevice()), context_(info_.ordinal), nodeBytes_(nodeBytes),
      hostArena_(exec::BlockSource{pinnedBlock, freePinnedBlock, "pinned host memory"}) {
    const std::int64_t constant = constantBytes + kCublasWorkspaceBytes;
    if (constant > info_.freeBytes)
        throw OutOfMemory("GPU out of memory: the parameters, gradients and cuBLAS workspace need " +
                          std::to_string(constant) + " bytes; " + info_.name + " has " +
                          std::to_string(info_.freeBytes) + " free");
    cublasWorkspace_ = DeviceBuffer(kCublasWorkspaceBytes, "the cuBLAS workspace");
    REMAT_CUBLAS_CHECK(
        cublasSetWorkspace(context_.blas, cublasWorkspace_.data(), static_cast<std::size_t>(kCublasWorkspaceBytes)));
    nodes_.resize(nodeCount);
    hostCopies_.resize(nodeCount);
    transferDone_.resize(nodeCount, nullptr);
}

DeviceBackend::~DeviceBackend() {
    // Queued kernels and copies may still read the buffers freed below (a
    // step whose caller never synchronised, or one that threw); wait first.
    waitQuietly();
    nodes_.clear(); // stream-ordered frees, before the pool goes
    hostCopies_.clear();
    for (cudaEvent_t e : transferDone_)
        if (e)
            cudaEventDestroy(e);
}

void DeviceBackend::waitQuietly() const noexcept {
    cudaStreamSynchronize(context_.stream);
    cudaStreamSynchronize(context_.copyStream);
}

std::string DeviceBackend::deviceName() const {
    return info_.name + " (sm_" + std::to_string(info_.major) + std::to_string(info_.minor) + ", driver " +
           std::to_string(info_.driverVersion / 1000) + "." + std::to_string(info_.driverVersion % 1000 / 10) +
           ", runtime " + std::to_string(info_.runtimeVersion / 1000) + "." +
           std::to_string(info_.runtimeVersion % 1000 / 10) + ")";
}

void DeviceBackend::allocate(NodeId id) {
    if (id >= nodes_.size())
        throw InvalidArgument("CUDA backend: no node " + std::to_string(id));
    if (nodes_[id])
        throw InvalidArgument("CUDA backend: node " + std::to_string(id) + " is already allocated");
    nodes_[id] = poolBuffer(nodeBytes_, "a node buffer");
}

void DeviceBackend::release(NodeId id) {
    node(id, "released");
    nodes_[id] = PoolBuffer();
}

void DeviceBackend::releaseAll() {
    // A copy may still read a node or fill a host copy (a step that threw).
    REMAT_CUDA_CHECK(cudaStreamSynchronize(context_.copyStream));
    for (auto &b : nodes_)
        b = PoolBuffer();
    for (auto &b : hostCopies_)
        b = exec::TrackedBuffer();
    releaseExtra();
}

void DeviceBackend::synchronize() {
    REMAT_CUDA_CHECK(cudaStreamSynchronize(context_.stream));
    REMAT_CUDA_CHECK(cudaStreamSynchronize(context_.copyStream));
}

cudaEvent_t DeviceBackend::transferEvent(NodeId id) {
    if (!transferDone_[id])
        REMAT_CUDA_CHECK(cudaEventCreateWithFlags(&transferDone_[id], cudaEventDisableTiming));
    return transferDone_[id];
}

// The copy stream starts on what the compute stream has queued so far: the
// compute of an offloaded node, the allocation of a prefetched one.
void DeviceBackend::copyAfterCompute(void *to, const void *from, cudaMemcpyKind kind, NodeId id) {
    REMAT_CUDA_CHECK(cudaEventRecord(context_.computeReached, context_.stream));
    REMAT_CUDA_CHECK(cudaStreamWaitEvent(context_.copyStream, context_.computeReached, 0));
    REMAT_CUDA_CHECK(cudaMemcpyAsync(to, from, static_cast<std::size_t>(nodeBytes_), kind, context_.copyStream));
    REMAT_CUDA_CHECK(cudaEventRecord(transferEvent(id), context_.copyStream));
}

void DeviceBackend::offload(NodeId id) {
    const float *from = node(id, "offloaded");
    if (hostCopies_[id])
        throw InvalidArgument("CUDA backend: node " + std::to_string(id) + " already has a host copy");
    hostCopies_[id] = exec::TrackedBuffer(hostArena_, nodeBytes_);
    copyAfterCompute(hostCopies_[id].data(), from, cudaMemcpyDeviceToHost, id);
}

void DeviceBackend::prefetch(NodeId id) {
    if (id >= hostCopies_.size() || !hostCopies_[id])
        throw InvalidArgument("CUDA backend: node " + std::to_string(id) + " has no host copy to prefetch");
    allocate(id); // stream-ordered on the compute stream, which the copy waits for
    copyAfterCompute(nodes_[id].data(), hostCopies_[id].data(), cudaMemcpyHostToDevice, id);
}

void DeviceBackend::waitTransfer(NodeId id) {
    if (id >= transferDone_.size() || !transferDone_[id])
        throw InvalidArgument("CUDA backend: node " + std::to_string(id) + " was never copied");
    REMAT_CUDA_CHECK(cudaStreamWaitEvent(context_.stream, transferDone_[id], 0));
}

void DeviceBackend::releaseHost(NodeId id) {
    if (id >= hostCopies_.size() || !hostCopies_[id])
        throw InvalidArgument("CUDA backend: node " + std::to_string(id) + " has no host copy to release");
    // The arena may hand the block to the next offload at once: the host
    // waits for the prefetch that reads it (the compute stream waits anyway).
    REMAT_CUDA_CHECK(cudaEventSynchronize(transferDone_[id]));
    hostCopies_[id] = exec::TrackedBuffer();
}

exec::MemoryCounters DeviceBackend::counters() const {
    exec::MemoryCounters c;
    c.liveBytes = counter_.live;
    c.peakBytes = counter_.peak;
    c.allocations = counter_.allocations;
    std::uint64_t high = 0;
    REMAT_CUDA_CHECK(cudaMemPoolGetAttribute(context_.pool, cudaMemPoolAttrUsedMemHigh, &high));
    c.allocatorPeakBytes = static_cast<std::int64_t>(high);
    c.hostLiveBytes = hostArena_.liveBytes();
    c.hostPeakBytes = hostArena_.peakBytes();
    return c;
}

void DeviceBackend::resetPeak() {
    synchronize();
    counter_.peak = counter_.live;
    std::uint64_t zero = 0; // the only value the attribute may be set to
    REMAT_CUDA_CHECK(cudaMemPoolSetAttribute(context_.pool, cudaMemPoolAttrUsedMemHigh, &zero));
}

void DeviceBackend::startTimer() {
    REMAT_CUDA_CHECK(cudaEventRecord(context_.start, context_.stream));
}

double DeviceBackend::stopTimerSeconds() {
    // The step ends when both streams are idle (the simulator's makespan).
    REMAT_CUDA_CHECK(cudaEventRecord(context_.copiesReached, context_.copyStream));
    REMAT_CUDA_CHECK(cudaStreamWaitEvent(context_.stream, context_.copiesReached, 0));
    REMAT_CUDA_CHECK(cudaEventRecord(context_.stop, context_.stream));
    REMAT_CUDA_CHECK(cudaEventSynchronize(context_.stop));
    float ms = 0;
    REMAT_CUDA_CHECK(cudaEventElapsedTime(&ms, context_.start, context_.stop));
    return ms / 1000.0;
}

void DeviceBackend::deviceWatchBegin() {
    synchronize();
    REMAT_CUDA_CHECK(cudaMemPoolTrimTo(context_.pool, 0));
    deviceBaseline_ = deviceUsed();
    devicePeak_ = deviceBaseline_;
}

void DeviceBackend::deviceWatchSample() {
    synchronize();
    devicePeak_ = std::max(devicePeak_, deviceUsed());
}

float *DeviceBackend::node(NodeId id, const char *role) const {
    if (id >= nodes_.size() || !nodes_[id])
        throw InvalidArgument(std::string("CUDA backend: ") + role + " node " + std::to_string(id) +
                              " is not allocated");
    return nodes_[id].data();
}

PoolBuffer DeviceBackend::poolBuffer(std::int64_t bytes, const char *what) {
    return PoolBuffer(context_.pool, context_.stream, counter_, bytes, what);
}

// On the compute stream: a legacy-stream copy would not be ordered before the
// first kernel on the non-blocking compute stream.
DeviceBuffer DeviceBackend::upload(const std::vector<float> &host, const char *what) {
    DeviceBuffer b(static_cast<std::int64_t>(host.size() * sizeof(float)), what);
    b.upload(host.data(), b.bytes(), context_.stream);
    return b;
}

std::int64_t DeviceBackend::deviceUsed() const {
    std::size_t freeBytes = 0, totalBytes = 0;
    REMAT_CUDA_CHECK(cudaMemGetInfo(&freeBytes, &totalBytes));
    return static_cast<std::int64_t>(totalBytes - freeBytes);
}

} // namespace remat::gpu
