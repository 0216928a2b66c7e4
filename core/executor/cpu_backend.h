#pragma once
// The CPU backend: fp32 column-major math through the kernels of one
// instruction set (cpu_kernels.h: Eigen 3.4 built for x86-64, AVX2+FMA or
// AVX-512, chosen at run time), one thread, so results are bitwise
// reproducible on one variant. Node and workspace buffers come from a
// TrackingAllocator; parameters and gradients are allocated once and counted apart.
#include "core/executor/backend.h"
#include "core/executor/cpu_kernels.h"
#include "core/executor/tracking_allocator.h"

#include <chrono>
#include <memory>
#include <vector>

namespace remat::exec {

class CpuBackend final : public Backend {
public:
    // Shares the host parameters (they are the CPU backend's weights). The
    // kernels are those of `isa` (by default REMAT_CPU_ISA or the fastest the
    // CPU runs); throws as cpu::kernels() does when the CPU cannot run them.
    explicit CpuBackend(std::shared_ptr<const NetworkParameters> parameters, cpu::Isa isa = cpu::selectedIsa());

    std::string name() const override { return "cpu"; }
    std::string deviceName() const override;
    const NetworkShape &shape() const override { return params_->shape; }
    cpu::Isa isa() const { return isa_; }
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
    cpu::Isa isa_;
    const cpu::Kernels &k_;
    TrackingAllocator allocator_;
    std::vector<TrackedBuffer> nodes_; // by NodeId
    Gradients grads_;
    std::chrono::steady_clock::time_point start_{};
    std::optional<std::int64_t> rssBaseline_;
};

} // namespace remat::exec
