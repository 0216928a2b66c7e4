#pragma once
// The CPU backend: fp32 column-major math through the kernels of one
// instruction set (cpu_kernels.h: Eigen 3.4 built for x86-64, AVX2+FMA or
// AVX-512, chosen at run time), one thread, so results are bitwise
// reproducible on one variant. Node and workspace buffers come from the
// HostBackend's TrackingAllocator; parameters and gradients are allocated
// once and counted apart.
#include "core/executor/cpu_kernels.h"
#include "core/executor/host_backend.h"

#include <memory>

namespace remat::exec {

class CpuBackend final : public HostBackend {
public:
    // Shares the host parameters (they are the CPU backend's weights). The
    // kernels are those of `isa` (by default REMAT_CPU_ISA or the fastest the
    // CPU runs); throws as cpu::kernels() does when the CPU cannot run them.
    explicit CpuBackend(std::shared_ptr<const NetworkParameters> parameters, cpu::Isa isa = cpu::selectedIsa());

    std::string deviceName() const override;
    const NetworkShape &shape() const { return params_->shape; }
    Model model() const override { return networkModel(params_->shape); }
    cpu::Isa isa() const { return isa_; }
    std::int64_t parameterBytes() const override { return params_->shape.parameterBytes(); }

    void loadInput() override;
    void forward(int i) override;
    void backward(int i) override;
    void readGradients(Gradients &out) override;

private:
    std::shared_ptr<const NetworkParameters> params_;
    cpu::Isa isa_;
    const cpu::Kernels &k_;
    Gradients grads_;
};

} // namespace remat::exec
