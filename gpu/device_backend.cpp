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
} // namespace

DeviceContext::DeviceContext(int device) {
    REMAT_CUDA_CHECK(cudaSetDevice(device));
    REMAT_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
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
    if (start)
        cudaEventDestroy(start);
    if (stop)
        cudaEventDestroy(stop);
    if (blas)
        cublasDestroy(blas);
    if (pool)
        cudaMemPoolDestroy(pool);
    if (stream)
        cudaStreamDestroy(stream);
}

DeviceBackend::DeviceBackend(std::size_t nodeCount, std::int64_t nodeBytes, std::int64_t constantBytes)
    : info_(queryDevice()), context_(info_.ordinal), nodeBytes_(nodeBytes) {
    const std::int64_t constant = constantBytes + kCublasWorkspaceBytes;
    if (constant > info_.freeBytes)
        throw OutOfMemory("GPU out of memory: the parameters, gradients and cuBLAS workspace need " +
                          std::to_string(constant) + " bytes; " + info_.name + " has " +
                          std::to_string(info_.freeBytes) + " free");
    cublasWorkspace_ = DeviceBuffer(kCublasWorkspaceBytes, "the cuBLAS workspace");
    REMAT_CUBLAS_CHECK(
        cublasSetWorkspace(context_.blas, cublasWorkspace_.data(), static_cast<std::size_t>(kCublasWorkspaceBytes)));
    nodes_.resize(nodeCount);
}

DeviceBackend::~DeviceBackend() {
    // Queued kernels may still read the buffers freed below (a step whose
    // caller never synchronised, or one that threw); wait for them first.
    waitQuietly();
    nodes_.clear(); // stream-ordered frees, before the pool goes
}

void DeviceBackend::waitQuietly() const noexcept {
    cudaStreamSynchronize(context_.stream);
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
    for (auto &b : nodes_)
        b = PoolBuffer();
    releaseExtra();
}

void DeviceBackend::synchronize() {
    REMAT_CUDA_CHECK(cudaStreamSynchronize(context_.stream));
}

exec::MemoryCounters DeviceBackend::counters() const {
    exec::MemoryCounters c;
    c.liveBytes = counter_.live;
    c.peakBytes = counter_.peak;
    c.allocations = counter_.allocations;
    std::uint64_t high = 0;
    REMAT_CUDA_CHECK(cudaMemPoolGetAttribute(context_.pool, cudaMemPoolAttrUsedMemHigh, &high));
    c.allocatorPeakBytes = static_cast<std::int64_t>(high);
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
