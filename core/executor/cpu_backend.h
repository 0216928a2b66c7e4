#pragma once
// The CPU backend: Eigen 3.4 GEMMs on fp32 column-major matrices, one thread
// (Eigen without OpenMP), so results are bitwise reproducible. Node and
// workspace buffers come from a TrackingAllocator; parameters and gradients
// are allocated once and counted apart.
#include "core/executor/backend.h"
#include "core/executor/tracking_allocator.h"

#include <chrono>
#include <memory>
#include <vector>

namespace remat::exec {

class CpuBackend final : public Backend {
public:
    // Shares the host parameters (they are the CPU backend's weights).
    explicit CpuBackend(std::shared_ptr<const NetworkParameters> parameters);

    std::string name() const override { return "cpu"; }
    std::string deviceName() const override;
    const NetworkShape &shape() const override { return params_->shape; }
    std::int64_t parameterBytes() const override { return params_->shape.parameterBytes(); }

    void allocate(NodeId node) override;
    void release(NodeId node) override;
    void releaseAll() override;
    void loadInput() override;
    void forward(int i) override;
    void backward(int i) override;
    void synchronize() override {}

    MemoryCounters counters() const override;
    void resetPeak() override { allocator_.resetPeak(); }

    void startTimer() override { start_ = std::chrono::steady_clock::now(); }
    double stopTimerSeconds() override;

    void deviceWatchBegin() override;
    std::optional<std::int64_t> deviceWatchPeakGrowth() override;

    void readGradients(Gradients &out) override;

private:
    float *node(NodeId id, const char *role) const;

    std::shared_ptr<const NetworkParameters> params_;
    TrackingAllocator allocator_;
    std::vector<TrackedBuffer> nodes_; // by NodeId
    Gradients grads_;
    std::chrono::steady_clock::time_point start_{};
    std::optional<std::int64_t> rssBaseline_;
};

} // namespace remat::exec
