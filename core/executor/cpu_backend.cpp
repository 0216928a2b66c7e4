#include "core/executor/cpu_backend.h"

#include "core/errors.h"

#include <Eigen/Core>
#include <cstring>

namespace remat::exec {

namespace {

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor>;
using Vector = Eigen::Matrix<float, Eigen::Dynamic, 1>;
// Every tracked buffer is 64-byte aligned, which lets Eigen use aligned loads.
using Map = Eigen::Map<Matrix, Eigen::Aligned64>;
using ConstMap = Eigen::Map<const Matrix>;
using VectorMap = Eigen::Map<Vector>;
using ConstVectorMap = Eigen::Map<const Vector>;

} // namespace

CpuBackend::CpuBackend(std::shared_ptr<const NetworkParameters> parameters)
    : HostBackend(parameters ? 2 * (static_cast<std::size_t>(parameters->shape.layers) + 1) : 0,
                  parameters ? parameters->shape.nodeBytes() : 0),
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
    const Eigen::Index w = s.width, b = s.batch;
    Map in(node(static_cast<NodeId>(i - 1), "input of a forward"), w, b);
    Map out(node(static_cast<NodeId>(i), "output of a forward"), w, b);
    TrackedBuffer workspace(allocator_, forwardWorkspaceBytes(s, i));
    Map t(workspace.data(), w, b);
    t.array() = in.array().tanh();
    out.noalias() = ConstMap(params_->weight(i), w, w) * t;
    out.colwise() += ConstVectorMap(params_->bias(i), w);
}

void CpuBackend::backward(int i) {
    const NetworkShape &s = shape();
    if (i < 0 || i > s.layers)
        throw InvalidArgument("CPU backend: no backward node " + std::to_string(i));
    const Eigen::Index w = s.width, b = s.batch;
    const NodeId self = static_cast<NodeId>(s.layers + 1 + i);
    Map out(node(self, "output of a backward"), w, b);
    if (i == s.layers) { // b_n = a_n - target: the gradient of 1/2 ||a_n - target||^2
        out = Map(node(static_cast<NodeId>(i), "a_n"), w, b) - ConstMap(params_->target.data(), w, b);
        return;
    }
    const int layer = i + 1; // b_i closes layer i+1: its weight gradients and b_i
    Map a(node(static_cast<NodeId>(i), "a_i of a backward"), w, b);
    Map next(node(self + 1, "b_(i+1) of a backward"), w, b);
    TrackedBuffer workspace(allocator_, backwardWorkspaceBytes(s, i));
    Map t(workspace.data(), w, b);
    t.array() = a.array().tanh();
    const std::int64_t offset = std::int64_t{layer - 1} * w * w;
    Eigen::Map<Matrix> dW(grads_.weights.data() + offset, w, w);
    dW.noalias() = next * t.transpose();
    VectorMap(grads_.biases.data() + std::int64_t{layer - 1} * w, w) = next.rowwise().sum();
    out.noalias() = ConstMap(params_->weight(layer), w, w).transpose() * next;
    out.array() *= 1.0f - t.array().square();
}

void CpuBackend::readGradients(Gradients &out) {
    out.weights = grads_.weights;
    out.biases = grads_.biases;
    const float *b0 = node(static_cast<NodeId>(shape().layers + 1), "b_0");
    out.input.assign(b0, b0 + shape().elements());
}

} // namespace remat::exec
