#include "core/executor/cpu_backend.h"

#include "core/errors.h"

#include <algorithm>
#include <cstring>

namespace remat::exec {

CpuBackend::CpuBackend(std::shared_ptr<const NetworkParameters> parameters, cpu::Isa isa, int threads)
    : HostBackend(parameters ? 2 * (static_cast<std::size_t>(parameters->shape.layers) + 1) : 0,
                  parameters ? parameters->shape.nodeBytes() : 0, isa, threads),
      params_(std::move(parameters)) {
    if (!params_)
        throw InvalidArgument("the CPU backend needs network parameters");
    grads_.weights.assign(params_->weights.size(), 0.0f);
    grads_.biases.assign(params_->biases.size(), 0.0f);
}

void CpuBackend::loadInput() {
    std::memcpy(node(0, "input"), params_->input.data(), static_cast<std::size_t>(shape().nodeBytes()));
}

// a_i = W_i * tanh(a_(i-1)) + c_i, with tanh(a_(i-1)) in a tracked workspace.
void CpuBackend::forward(int i) {
    const NetworkShape &s = shape();
    if (i < 1 || i > s.layers)
        throw InvalidArgument("CPU backend: no forward layer " + std::to_string(i));
    const float *in = node(static_cast<NodeId>(i - 1), "input of a forward");
    float *out = node(static_cast<NodeId>(i), "output of a forward");
    TrackedBuffer workspace(allocator_, forwardWorkspaceBytes(s, i));
    float *t = workspace.data();
    ops_.tanh(s.elements(), in, t);
    ops_.linearForward(t, params_->weight(i), params_->bias(i), out, s.width, s.width, s.batch);
}

// b_i = (W_(i+1)^T b_(i+1)) .* (1 - tanh(a_i)^2), and layer i+1's weight and bias gradients.
void CpuBackend::backward(int i) {
    const NetworkShape &s = shape();
    if (i < 0 || i > s.layers)
        throw InvalidArgument("CPU backend: no backward node " + std::to_string(i));
    const NodeId self = static_cast<NodeId>(s.layers + 1 + i);
    float *out = node(self, "output of a backward");
    if (i == s.layers) { // b_n = a_n - target: the gradient of 1/2 ||a_n - target||^2
        ops_.subtract(s.elements(), node(static_cast<NodeId>(i), "a_n"), params_->target.data(), out);
        return;
    }
    const int layer = i + 1; // b_i closes layer i+1: its weight gradients and b_i
    const std::int64_t w = s.width;
    const float *a = node(static_cast<NodeId>(i), "a_i of a backward");
    const float *next = node(self + 1, "b_(i+1) of a backward");
    TrackedBuffer workspace(allocator_, backwardWorkspaceBytes(s, i));
    float *t = workspace.data();
    ops_.tanh(s.elements(), a, t);
    ops_.linearBackwardParameters(next, t, grads_.weights.data() + (layer - 1) * w * w,
                                  grads_.biases.data() + (layer - 1) * w, s.width, s.width, s.batch);
    ops_.linearBackwardInput(next, params_->weight(layer), out, s.width, s.width, s.batch);
    ops_.mulTanhDerivative(s.elements(), t, out);
}

void CpuBackend::readGradients(Gradients &out) {
    out.weights = grads_.weights;
    out.biases = grads_.biases;
    const float *b0 = node(static_cast<NodeId>(shape().layers + 1), "b_0");
    out.input.assign(b0, b0 + shape().elements());
}

} // namespace remat::exec
