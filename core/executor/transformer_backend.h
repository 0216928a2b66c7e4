#pragma once
// The transformer network (transformer.h) on the CPU: its layers on CpuOps
// (the kernels of one instruction set on `threads` threads, the same bits for
// any thread count), every node, saved and workspace buffer from the
// HostBackend's tracking allocator, so the bytes counted are the bytes
// transformerModel() predicts.
#include "core/executor/host_backend.h"
#include "core/executor/transformer.h"

#include <memory>
#include <vector>

namespace remat::exec {

class TransformerCpuBackend final : public HostBackend {
public:
    // Throws as CpuBackend's constructor does for the kernels and threads.
    explicit TransformerCpuBackend(std::shared_ptr<const TransformerParameters> parameters,
                                   cpu::Isa isa = cpu::selectedIsa(), int threads = 1);

    const TransformerShape &shape() const { return params_->shape; }
    Model model() const override { return transformerModel(params_->shape); }
    std::int64_t parameterBytes() const override { return params_->shape.parameterBytes(); }

    void loadInput() override;
    void forward(int i) override;          // discarding
    void forwardRecording(int i) override; // its saved buffers stay until releaseSaved
    void releaseSaved(int i) override;
    void backward(int i) override;
    // Weights: every layer's matrices (TransformerParameters::matrices order);
    // biases: every layer's vectors (LayerNorm parameters included).
    void readGradients(Gradients &out) override;

private:
    void releaseExtra() override;

    std::shared_ptr<const TransformerParameters> params_;
    std::vector<TrackedBuffer> saved_; // by layer, while a recording forward's internals are held
    Gradients grads_;
};

} // namespace remat::exec
