#include "core/executor/host_backend.h"

#include "core/errors.h"
#include "core/executor/process_memory.h"

#include <algorithm>
#include <cstring>

namespace remat::exec {

HostBackend::HostBackend(std::size_t nodeCount, std::int64_t nodeBytes, cpu::Isa isa, int threads)
    : ops_(isa, threads), nodeBytes_(nodeBytes), nodes_(nodeCount), hostCopies_(nodeCount) {}

std::string HostBackend::deviceName() const {
#if defined(__x86_64__)
    const char *arch = "x86_64";
#elif defined(__aarch64__)
    const char *arch = "aarch64";
#else
    const char *arch = "cpu";
#endif
    const int threads = ops_.threads();
    return std::string(arch) + ", " + std::string(cpu::isaLabel(ops_.isa())) + " kernels, " + ops_.kernels().library +
           ", " + std::to_string(availableCores()) + " cores, " + std::to_string(threads) +
           (threads == 1 ? " thread" : " threads");
}

float *HostBackend::node(NodeId id, const char *role) const {
    if (id >= nodes_.size() || !nodes_[id])
        throw InvalidArgument(std::string("CPU backend: ") + role + " node " + std::to_string(id) +
                              " is not allocated");
    return nodes_[id].data();
}

void HostBackend::allocate(NodeId id) {
    if (id >= nodes_.size())
        throw InvalidArgument("CPU backend: no node " + std::to_string(id));
    if (nodes_[id])
        throw InvalidArgument("CPU backend: node " + std::to_string(id) + " is already allocated");
    nodes_[id] = TrackedBuffer(allocator_, nodeBytes_);
}

void HostBackend::release(NodeId id) {
    node(id, "released");
    nodes_[id] = TrackedBuffer();
}

void HostBackend::releaseAll() {
    for (auto &b : nodes_)
        b = TrackedBuffer();
    for (auto &b : hostCopies_)
        b = TrackedBuffer();
    releaseExtra();
}

void HostBackend::offload(NodeId id) {
    const float *from = node(id, "offloaded");
    if (hostCopies_[id])
        throw InvalidArgument("CPU backend: node " + std::to_string(id) + " already has a host copy");
    hostCopies_[id] = TrackedBuffer(hostArena_, nodeBytes_);
    std::memcpy(hostCopies_[id].data(), from, static_cast<std::size_t>(nodeBytes_));
}

void HostBackend::prefetch(NodeId id) {
    if (id >= hostCopies_.size() || !hostCopies_[id])
        throw InvalidArgument("CPU backend: node " + std::to_string(id) + " has no host copy to prefetch");
    allocate(id);
    std::memcpy(nodes_[id].data(), hostCopies_[id].data(), static_cast<std::size_t>(nodeBytes_));
}

void HostBackend::releaseHost(NodeId id) {
    if (id >= hostCopies_.size() || !hostCopies_[id])
        throw InvalidArgument("CPU backend: node " + std::to_string(id) + " has no host copy to release");
    hostCopies_[id] = TrackedBuffer();
}

MemoryCounters HostBackend::counters() const {
    MemoryCounters c;
    c.liveBytes = allocator_.liveBytes();
    c.peakBytes = allocator_.peakBytes();
    c.allocations = allocator_.allocations();
    c.hostLiveBytes = hostArena_.liveBytes();
    c.hostPeakBytes = hostArena_.peakBytes();
    return c;
}

double HostBackend::stopTimerSeconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void HostBackend::deviceWatchBegin() {
    allocator_.trim();
    hostArena_.trim();
    trimHeap();
    rssBaseline_ = resetPeakResident() ? residentBytes() : std::nullopt;
}

std::optional<std::int64_t> HostBackend::deviceWatchPeakGrowth() {
    const auto peak = peakResidentBytes();
    if (!rssBaseline_ || !peak)
        return std::nullopt;
    return std::max<std::int64_t>(0, *peak - *rssBaseline_);
}

} // namespace remat::exec
