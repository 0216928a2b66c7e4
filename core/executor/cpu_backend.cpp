#include "core/executor/cpu_backend.h"

#include "core/errors.h"

#include <algorithm>
#include <cstring>

namespace remat::exec {

CpuBackend::CpuBackend(std::shared_ptr<const NetworkParameters> parameters, cpu::Isa isa)
    : HostBackend(parameters ? 2 * (static_cast<std::size_t>(parameters->shape.layers) + 1) : 0,
                  parameters ? parameters->shape.nodeBytes() : 0),
      params_(std::move(parameters)), isa_(isa), k_(cpu::kernels(isa)) {
    if (!params_)
        throw InvalidArgument("the CPU backend needs network parameters");
    grads_.weights.assign(params_->weights.size(), 0.0f);
    grads_.biases.assign(params_->biases.size(), 0.0f);
}

// "x86_64, AVX-512 kernels, 2 cores, Eigen 3.4.0, 1 thread": which variant ran.
std::string CpuBackend::deviceName() const {
    return describeHost(std::string(cpu::isaLabel(isa_)) + " kernels, " + k_.library);
}

void CpuBackend::loadInput() {
    std::memcpy(node(0, "input"), params_->input.data(), static_cast<std::size_t>(shape().nodeBytes()));
}

// a_i = W_i * tanh(a_(i-1)) + c_i, with tanh(a_(i-1)) in a tracked workspace.
void CpuBackend::forward(int i) {
    const NetworkShape &s = shape();
    if (i < 1 || i > s.layers)
        throw InvalidArgument("CPU backend: no forward layer " + std::to_string(i));
    const cpu::Index w = s.width, b = s.batch;
    const float *in = node(static_cast<NodeId>(i - 1), "input of a forward");
    float *out = node(static_cast<NodeId>(i), "output of a forward");
    TrackedBuffer workspace(allocator_, forwardWorkspaceBytes(s, i));
    float *t = workspace.data();
    k_.tanh(w * b, in, t);
    k_.gemm(cpu::Transpose::No, cpu::Transpose::No, w, b, w, 1.0f, params_->weight(i), w, t, w, 0.0f, out, w);
    k_.addBias(w, b, params_->bias(i), out, w);
}

void CpuBackend::backward(int i) {
    const NetworkShape &s = shape();
    if (i < 0 || i > s.layers)
        throw InvalidArgument("CPU backend: no backward node " + std::to_string(i));
    const cpu::Index w = s.width, b = s.batch;
    const NodeId self = static_cast<NodeId>(s.layers + 1 + i);
    float *out = node(self, "output of a backward");
    if (i == s.layers) { // b_n = a_n - target: the gradient of 1/2 ||a_n - target||^2
        k_.subtract(w * b, node(static_cast<NodeId>(i), "a_n"), params_->target.data(), out);
        return;
    }
    const int layer = i + 1; // b_i closes layer i+1: its weight gradients and b_i
    const float *a = node(static_cast<NodeId>(i), "a_i of a backward");
    const float *next = node(self + 1, "b_(i+1) of a backward");
    TrackedBuffer workspace(allocator_, backwardWorkspaceBytes(s, i));
    float *t = workspace.data();
    k_.tanh(w * b, a, t);
    float *dW = grads_.weights.data() + std::int64_t{layer - 1} * w * w;
    k_.gemm(cpu::Transpose::No, cpu::Transpose::Yes, w, w, b, 1.0f, next, w, t, w, 0.0f, dW, w);
    k_.rowSums(w, b, next, w, grads_.biases.data() + std::int64_t{layer - 1} * w);
    k_.gemm(cpu::Transpose::Yes, cpu::Transpose::No, w, b, w, 1.0f, params_->weight(layer), w, next, w, 0.0f, out, w);
    k_.mulTanhDerivative(w * b, t, out);
}

void CpuBackend::readGradients(Gradients &out) {
    out.weights = grads_.weights;
    out.biases = grads_.biases;
    const float *b0 = node(static_cast<NodeId>(shape().layers + 1), "b_0");
    out.input.assign(b0, b0 + shape().elements());
}

} // namespace remat::exec
