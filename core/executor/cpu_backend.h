#pragma once
// The tanh network on the CPU: fp32 column-major math through CpuOps (the
// kernels of one instruction set, chosen at run time, on `threads` threads;
// the same bits for any thread count on one variant). Node and workspace
// buffers come from the HostBackend's TrackingAllocator; parameters and
// gradients are allocated once and counted apart.
#include "core/executor/cpu_kernels.h"
#include "core/executor/host_backend.h"

#include <memory>

namespace remat::exec {

class CpuBackend final : public HostBackend {
public:
    // Shares the host parameters (they are the CPU backend's weights). The
    // kernels are those of `isa` (by default REMAT_CPU_ISA or the fastest the
    // CPU runs); throws as cpu::kernels() does when the CPU cannot run them,
    // and InvalidArgument for threads outside 1..kMaxThreads.
    explicit CpuBackend(std::shared_ptr<const NetworkParameters> parameters, cpu::Isa isa = cpu::selectedIsa(),
                        int threads = 1);

    const NetworkShape &shape() const { return params_->shape; }
    Model model() const override { return networkModel(params_->shape); }
    std::int64_t parameterBytes() const override { return params_->shape.parameterBytes(); }

    void loadInput() override;
    void forward(int i) override;
    void backward(int i) override;
    void readGradients(Gradients &out) override;

private:
    std::shared_ptr<const NetworkParameters> params_;
    Gradients grads_;
};

} // namespace remat::exec
