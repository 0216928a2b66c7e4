// The CUDA backend of the tanh network: its math on the shared device
// backend (gpu/device_backend.h: stream, pool, counters, timing).
#include "gpu/cuda_backend.h"

#include "core/errors.h"
#include "gpu/cuda_check.h"
#include "gpu/device_backend.h"
#include "gpu/kernels.h"

#include <cstdint>
#include <vector>

namespace remat::gpu {

namespace {

using exec::Gradients;
using exec::NetworkParameters;
using exec::NetworkShape;

class CudaBackend final : public DeviceBackend {
public:
    explicit CudaBackend(std::shared_ptr<const NetworkParameters> parameters)
        : DeviceBackend(2 * (static_cast<std::size_t>(parameters->shape.layers) + 1), parameters->shape.nodeBytes(),
                        parameters->shape.parameterBytes()),
          params_(std::move(parameters)) {
        weights_ = upload(params_->weights, "weights");
        biases_ = upload(params_->biases, "biases");
        input_ = upload(params_->input, "the input batch");
        target_ = upload(params_->target, "the target");
        weightGrads_ = DeviceBuffer(weights_.bytes(), "weight gradients");
        biasGrads_ = DeviceBuffer(biases_.bytes(), "bias gradients");
    }
    ~CudaBackend() override { waitQuietly(); }

    const NetworkShape &shape() const { return params_->shape; }
    Model model() const override { return exec::networkModel(params_->shape); }
    std::int64_t parameterBytes() const override { return params_->shape.parameterBytes(); }

    void loadInput() override {
        REMAT_CUDA_CHECK(cudaMemcpyAsync(node(0, "input"), input_.data(), static_cast<std::size_t>(input_.bytes()),
                                         cudaMemcpyDeviceToDevice, stream()));
    }

    // a_i = W_i tanh(a_(i-1)) + c_i: bias broadcast into a_i, then a GEMM with beta = 1.
    void forward(int i) override {
        const NetworkShape &s = shape();
        if (i < 1 || i > s.layers)
            throw InvalidArgument("CUDA backend: no forward layer " + std::to_string(i));
        const int w = s.width, b = s.batch;
        const float *in = node(static_cast<NodeId>(i - 1), "input of a forward");
        float *out = node(static_cast<NodeId>(i), "output of a forward");
        PoolBuffer t = poolBuffer(exec::forwardWorkspaceBytes(s, i), "a workspace buffer");
        launchTanh(in, t.data(), s.elements(), stream());
        launchBroadcastColumns(biases_.data() + std::int64_t{i - 1} * w, out, w, b, stream());
        const float one = 1.0f;
        REMAT_CUBLAS_CHECK(
            cublasSgemm(blas(), CUBLAS_OP_N, CUBLAS_OP_N, w, b, w, &one, weight(i), w, t.data(), w, &one, out, w));
    }

    void backward(int i) override {
        const NetworkShape &s = shape();
        if (i < 0 || i > s.layers)
            throw InvalidArgument("CUDA backend: no backward node " + std::to_string(i));
        const int w = s.width, b = s.batch;
        const NodeId self = static_cast<NodeId>(s.layers + 1 + i);
        float *out = node(self, "output of a backward");
        if (i == s.layers) {
            launchSubtract(node(static_cast<NodeId>(i), "a_n"), target_.data(), out, s.elements(), stream());
            return;
        }
        const int layer = i + 1;
        const float *a = node(static_cast<NodeId>(i), "a_i of a backward");
        const float *next = node(self + 1, "b_(i+1) of a backward");
        PoolBuffer t = poolBuffer(exec::backwardWorkspaceBytes(s, i), "a workspace buffer");
        launchTanh(a, t.data(), s.elements(), stream());
        const float one = 1.0f, zero = 0.0f;
        float *dW = weightGrads_.data() + std::int64_t{layer - 1} * w * w;
        // dW = b_(i+1) tanh(a_i)^T
        REMAT_CUBLAS_CHECK(
            cublasSgemm(blas(), CUBLAS_OP_N, CUBLAS_OP_T, w, w, b, &one, next, w, t.data(), w, &zero, dW, w));
        launchRowSums(next, biasGrads_.data() + std::int64_t{layer - 1} * w, w, b, stream());
        // b_i = (W^T b_(i+1)) .* (1 - tanh(a_i)^2)
        REMAT_CUBLAS_CHECK(
            cublasSgemm(blas(), CUBLAS_OP_T, CUBLAS_OP_N, w, b, w, &one, weight(layer), w, next, w, &zero, out, w));
        launchTanhBackward(t.data(), out, s.elements(), stream());
    }

    void readGradients(Gradients &out) override {
        synchronize();
        out.weights.resize(params_->weights.size());
        out.biases.resize(params_->biases.size());
        out.input.resize(static_cast<std::size_t>(shape().elements()));
        weightGrads_.download(out.weights.data(), weightGrads_.bytes(), stream());
        biasGrads_.download(out.biases.data(), biasGrads_.bytes(), stream());
        copyOnStream(out.input.data(), node(static_cast<NodeId>(shape().layers + 1), "b_0"), shape().nodeBytes(),
                     cudaMemcpyDeviceToHost, stream());
    }

private:
    const float *weight(int layer) const {
        return weights_.data() + std::int64_t{layer - 1} * shape().width * shape().width;
    }

    std::shared_ptr<const NetworkParameters> params_;
    DeviceBuffer weights_, biases_, input_, target_, weightGrads_, biasGrads_;
};

} // namespace

bool poolPeakIsExact(const Model &model) {
    const auto whole = [](std::int64_t bytes) { return bytes % kPoolPageBytes == 0; };
    for (NodeId id = 0; id < static_cast<NodeId>(model.nodeCount()); ++id)
        if (!whole(model.bytes(id)) || !whole(model.workspace(id)))
            return false;
    for (int i = 0; i < model.forwardCount(); ++i)
        if (!whole(model.savedBytes(i)))
            return false;
    return true;
}

std::optional<std::string> poolPeakMismatch(const Model &model, std::int64_t predictedPeakBytes,
                                            std::optional<std::int64_t> allocatorPeakBytes) {
    const std::string predicted = " the predicted " + std::to_string(predictedPeakBytes) + " bytes";
    if (!allocatorPeakBytes)
        return "the CUDA pool reported no high-water mark";
    const std::string observed = "the pool's high-water mark of " + std::to_string(*allocatorPeakBytes) + " bytes";
    if (*allocatorPeakBytes < predictedPeakBytes)
        return observed + " is below" + predicted + ": the GPU held less than the backend counted";
    if (poolPeakIsExact(model) && *allocatorPeakBytes != predictedPeakBytes)
        return observed + " differs from" + predicted + " although every node, saved and workspace buffer (" +
               std::to_string(model.bytes(model.inputNode())) + " bytes per node) is a whole number of the pool's " +
               std::to_string(kPoolPageBytes) + "-byte pages";
    return std::nullopt;
}

std::unique_ptr<exec::Backend> makeCudaBackend(std::shared_ptr<const NetworkParameters> parameters) {
    if (!parameters)
        throw InvalidArgument("the CUDA backend needs network parameters");
    return std::make_unique<CudaBackend>(std::move(parameters));
}

} // namespace remat::gpu
