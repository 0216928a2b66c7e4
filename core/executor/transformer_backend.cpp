#include "core/executor/transformer_backend.h"

#include "core/errors.h"

#include <cstring>

namespace remat::exec {

TransformerCpuBackend::TransformerCpuBackend(std::shared_ptr<const TransformerParameters> parameters, cpu::Isa isa,
                                             int threads)
    : HostBackend(parameters ? 2 * (static_cast<std::size_t>(parameters->shape.layers) + 1) : 0,
                  parameters ? parameters->shape.nodeBytes() : 0, isa, threads),
      params_(std::move(parameters)) {
    if (!params_)
        throw InvalidArgument("the transformer CPU backend needs its parameters");
    saved_.resize(static_cast<std::size_t>(params_->shape.layers) + 1);
    grads_.weights.assign(params_->matrices.size(), 0.0f);
    grads_.biases.assign(params_->vectors.size(), 0.0f);
}

void TransformerCpuBackend::loadInput() {
    std::memcpy(node(0, "input"), params_->input.data(), static_cast<std::size_t>(shape().nodeBytes()));
}

void TransformerCpuBackend::forward(int i) {
    const TransformerShape &s = shape();
    if (i < 1 || i > s.layers)
        throw InvalidArgument("transformer CPU backend: no forward layer " + std::to_string(i));
    const TrackedBuffer workspace(allocator_, 4 * forwardWorkspaceFloats(s));
    transformerLayerForward(s, ops_, params_->layer(i), node(static_cast<NodeId>(i - 1), "input of a forward"),
                            node(static_cast<NodeId>(i), "output of a forward"), nullptr, workspace.data());
}

// Also while a_i is resident: the layer is re-run only to record, and
// rewrites a_i with the same bits.
void TransformerCpuBackend::forwardRecording(int i) {
    const TransformerShape &s = shape();
    if (i < 1 || i > s.layers)
        throw InvalidArgument("transformer CPU backend: no forward layer " + std::to_string(i));
    auto &held = saved_[static_cast<std::size_t>(i)];
    if (held)
        throw InvalidArgument("transformer CPU backend: layer " + std::to_string(i) +
                              " records while its saved buffers are still held");
    held = TrackedBuffer(allocator_, savedBytes(s));
    const TrackedBuffer workspace(allocator_, 4 * forwardWorkspaceFloats(s));
    transformerLayerForward(s, ops_, params_->layer(i), node(static_cast<NodeId>(i - 1), "input of a forward"),
                            node(static_cast<NodeId>(i), "output of a forward"), held.data(), workspace.data());
}

void TransformerCpuBackend::releaseSaved(int i) {
    if (i < 1 || i > shape().layers || !saved_[static_cast<std::size_t>(i)])
        throw InvalidArgument("transformer CPU backend: layer " + std::to_string(i) + " holds no saved buffers");
    saved_[static_cast<std::size_t>(i)] = TrackedBuffer();
}

void TransformerCpuBackend::releaseExtra() {
    for (auto &b : saved_)
        b = TrackedBuffer();
}

void TransformerCpuBackend::backward(int i) {
    const TransformerShape &s = shape();
    if (i < 0 || i > s.layers)
        throw InvalidArgument("transformer CPU backend: no backward node " + std::to_string(i));
    const NodeId self = static_cast<NodeId>(s.layers + 1 + i);
    float *out = node(self, "output of a backward");
    const std::int64_t count = std::int64_t{s.hidden} * s.tokens();
    if (i == s.layers) { // b_L = a_L - target: the gradient of 1/2 ||a_L - target||^2
        ops_.subtract(count, node(static_cast<NodeId>(i), "a_L"), params_->target.data(), out);
        return;
    }
    const int layer = i + 1; // b_i is layer i+1's backward
    const TrackedBuffer &saved = saved_[static_cast<std::size_t>(layer)];
    if (!saved)
        throw InvalidArgument("transformer CPU backend: b_" + std::to_string(i) + " needs the saved buffers of layer " +
                              std::to_string(layer) + ", which no recording forward left");
    const TrackedBuffer workspace(allocator_, 4 * backwardWorkspaceFloats(s));
    transformerLayerBackward(s, ops_, params_->layer(layer), node(static_cast<NodeId>(i), "a_i of a backward"),
                             node(self + 1, "b_(i+1) of a backward"), saved.data(), out,
                             layerTensors(grads_.weights.data(), grads_.biases.data(), s.hidden, layer),
                             workspace.data());
}

void TransformerCpuBackend::readGradients(Gradients &out) {
    out.weights = grads_.weights;
    out.biases = grads_.biases;
    const float *b0 = node(static_cast<NodeId>(shape().layers + 1), "b_0");
    out.input.assign(b0, b0 + std::int64_t{shape().hidden} * shape().tokens());
}

} // namespace remat::exec
