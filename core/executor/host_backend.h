#pragma once
// What every CPU backend shares: node buffers from one TrackingAllocator (so
// live and peak bytes are exact), the steady-clock timer and the resident-set
// watch. A network's CPU backend derives from it and adds its math.
#include "core/executor/backend.h"
#include "core/executor/tracking_allocator.h"

#include <chrono>
#include <vector>

namespace remat::exec {

class HostBackend : public Backend {
public:
    std::string name() const override { return "cpu"; }
    std::string deviceName() const override;

    void allocate(NodeId node) override;
    void release(NodeId node) override;
    void releaseAll() override;
    void synchronize() override {}

    MemoryCounters counters() const override;
    void resetPeak() override { allocator_.resetPeak(); }

    void startTimer() override { start_ = std::chrono::steady_clock::now(); }
    double stopTimerSeconds() override;

    void deviceWatchBegin() override;
    std::optional<std::int64_t> deviceWatchPeakGrowth() override;

protected:
    // `nodeCount` buffers (a_0..a_n, b_0..b_n) of `nodeBytes` each.
    HostBackend(std::size_t nodeCount, std::int64_t nodeBytes);
    // The allocated buffer of node `id`; throws InvalidArgument naming `role` when it is not.
    float *node(NodeId id, const char *role) const;
    // "x86_64, <math>, 2 cores, 1 thread": what a device line says of the host.
    static std::string describeHost(const std::string &math);
    // Frees whatever else the derived backend holds between steps.
    virtual void releaseExtra() {}

    TrackingAllocator allocator_;

private:
    std::int64_t nodeBytes_;
    std::vector<TrackedBuffer> nodes_; // by NodeId
    std::chrono::steady_clock::time_point start_{};
    std::optional<std::int64_t> rssBaseline_;
};

} // namespace remat::exec
