#pragma once
// What every CPU backend shares: node buffers from one TrackingAllocator (so
// live and peak bytes are exact), offloaded copies in a second one (the host
// arena: on the CPU "device" and "host" are the same RAM, counted apart), the math on every core (CpuOps: the
// kernels of one instruction set and the threads), the steady-clock timer and
// the resident-set watch. A network's CPU backend derives from it and runs
// its layers on ops_.
#include "core/executor/backend.h"
#include "core/executor/cpu_ops.h"
#include "core/executor/tracking_allocator.h"

#include <chrono>
#include <vector>

namespace remat::exec {

class HostBackend : public Backend {
public:
    std::string name() const override { return "cpu"; }
    // "x86_64, AVX-512 kernels, Eigen 3.4.0, 2 cores, 2 threads": which kernels ran, on how many threads.
    std::string deviceName() const override;
    std::optional<std::int64_t> kernelScratchBytes() const override { return ops_.scratchBytes(); }
    cpu::Isa isa() const { return ops_.isa(); }
    int threads() const { return ops_.threads(); }

    void allocate(NodeId node) override;
    void release(NodeId node) override;
    void releaseAll() override;
    void synchronize() override {}

    // Copies run synchronously on the calling thread (docs/executor.md,
    // "Offloading"): device and host are one RAM here, so a copy thread would
    // measure only memory-bandwidth contention; the memory figures, which is
    // what this backend checks, are counted in schedule order either way.
    void offload(NodeId node) override;
    void prefetch(NodeId node) override;
    void waitTransfer(NodeId) override {} // every copy has ended when it returns
    void releaseHost(NodeId node) override;
    void resetHostPeak() override { hostArena_.resetPeak(); }

    MemoryCounters counters() const override;
    void resetPeak() override { allocator_.resetPeak(); }

    void startTimer() override { start_ = std::chrono::steady_clock::now(); }
    double stopTimerSeconds() override;

    void deviceWatchBegin() override;
    std::optional<std::int64_t> deviceWatchPeakGrowth() override;

protected:
    // `nodeCount` buffers (a_0..a_n, b_0..b_n) of `nodeBytes` each; the
    // kernels of `isa` on `threads` threads (throws as cpu::kernels() does
    // when the CPU cannot run them, InvalidArgument for a thread count
    // outside 1..kMaxThreads).
    HostBackend(std::size_t nodeCount, std::int64_t nodeBytes, cpu::Isa isa, int threads);
    // The allocated buffer of node `id`; throws InvalidArgument naming `role` when it is not.
    float *node(NodeId id, const char *role) const;
    // Frees whatever else the derived backend holds between steps.
    virtual void releaseExtra() {}

    TrackingAllocator allocator_;
    CpuOps ops_;

private:
    std::int64_t nodeBytes_;
    std::vector<TrackedBuffer> nodes_; // by NodeId
    TrackingAllocator hostArena_;      // offloaded copies; declared before hostCopies_, which it outlives
    std::vector<TrackedBuffer> hostCopies_; // by NodeId
    std::chrono::steady_clock::time_point start_{};
    std::optional<std::int64_t> rssBaseline_;
};

} // namespace remat::exec
