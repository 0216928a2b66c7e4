#pragma once
// The CPU backend: Eigen 3.4 GEMMs on fp32 column-major matrices, one thread
// (Eigen without OpenMP), so results are bitwise reproducible. Node and
// workspace buffers come from a TrackingAllocator; parameters and gradients
// are allocated once and counted apart.
#include "core/executor/host_backend.h"

#include <memory>

namespace remat::exec {

class CpuBackend final : public HostBackend {
public:
    // Shares the host parameters (they are the CPU backend's weights).
    explicit CpuBackend(std::shared_ptr<const NetworkParameters> parameters);

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
