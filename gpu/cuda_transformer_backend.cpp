// The transformer layer on CUDA. The same steps as transformerLayerForward /
// transformerLayerBackward (core/executor/transformer.cpp), in the same
// workspace of forwardWorkspaceFloats / backwardWorkspaceFloats, with two
// differences that keep cuBLAS efficient and its results reproducible:
// - attention runs a chunk of heads per strided-batched GEMM, as many as fit
//   in the workspace's free hN + s^2 floats (at least one);
// - a recording forward computes exactly as a discarding one, in the same
//   workspace, and copies each internal into its saved buffer before it is
//   overwritten. So a_i's bits cannot depend on the mode (cuBLAS may pick
//   its kernels by pointer alignment, and the saved buffers' offsets differ
//   from the workspace's), and gradients are bitwise equal across strategies.
#include "gpu/cuda_transformer_backend.h"

#include "core/errors.h"
#include "gpu/cuda_check.h"
#include "gpu/device_backend.h"
#include "gpu/kernels.h"
#include "gpu/transformer_kernels.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace remat::gpu {

namespace {

using exec::Gradients;
using exec::LayerTensors;
using exec::TransformerParameters;
using exec::TransformerShape;

// Where each saved buffer starts within a layer's one saved allocation, found
// by name in savedBuffers(): the list that sizes the allocation and the model.
struct SavedOffsets {
    std::int64_t mean1, rstd1, qkv, probs, ctx, residual, mean2, rstd2, preGelu;

    explicit SavedOffsets(const TransformerShape &shape) {
        const exec::SavedBufferList buffers = exec::savedBuffers(shape);
        const auto at = [&buffers](const char *name) {
            std::int64_t offset = 0;
            for (const exec::SavedBuffer &b : buffers) {
                if (std::strcmp(b.name, name) == 0)
                    return offset;
                offset += b.floats;
            }
            throw InvalidArgument(std::string("the transformer saves no buffer named ") + name);
        };
        mean1 = at("ln1_mean");
        rstd1 = at("ln1_rstd");
        qkv = at("qkv");
        probs = at("attention_probs");
        ctx = at("attention_context");
        residual = at("residual");
        mean2 = at("ln2_mean");
        rstd2 = at("ln2_rstd");
        preGelu = at("fc1_output");
    }
};

class CudaTransformerBackend final : public DeviceBackend {
public:
    explicit CudaTransformerBackend(std::shared_ptr<const TransformerParameters> parameters)
        : DeviceBackend(2 * (static_cast<std::size_t>(parameters->shape.layers) + 1), parameters->shape.nodeBytes(),
                        parameters->shape.parameterBytes()),
          params_(std::move(parameters)), offsets_(params_->shape) {
        matrices_ = upload(params_->matrices, "transformer weights");
        vectors_ = upload(params_->vectors, "transformer biases and LayerNorm parameters");
        input_ = upload(params_->input, "the input batch");
        target_ = upload(params_->target, "the target");
        matrixGrads_ = DeviceBuffer(matrices_.bytes(), "weight gradients");
        vectorGrads_ = DeviceBuffer(vectors_.bytes(), "bias gradients");
        REMAT_CUDA_CHECK(
            cudaMemsetAsync(matrixGrads_.data(), 0, static_cast<std::size_t>(matrixGrads_.bytes()), stream()));
        REMAT_CUDA_CHECK(
            cudaMemsetAsync(vectorGrads_.data(), 0, static_cast<std::size_t>(vectorGrads_.bytes()), stream()));
        saved_.resize(static_cast<std::size_t>(params_->shape.layers) + 1);
    }
    ~CudaTransformerBackend() override {
        waitQuietly();
        saved_.clear(); // stream-ordered frees, before the pool goes
    }

    const TransformerShape &shape() const { return params_->shape; }
    Model model() const override { return exec::transformerModel(params_->shape); }
    std::int64_t parameterBytes() const override { return params_->shape.parameterBytes(); }

    void loadInput() override {
        REMAT_CUDA_CHECK(cudaMemcpyAsync(node(0, "input"), input_.data(), static_cast<std::size_t>(input_.bytes()),
                                         cudaMemcpyDeviceToDevice, stream()));
    }

    void forward(int i) override {
        requireLayer(i);
        const PoolBuffer workspace = poolBuffer(4 * exec::forwardWorkspaceFloats(shape()), "a forward workspace");
        layerForward(i, nullptr, workspace.data());
    }

    // Also while a_i is resident: the layer is re-run only to record, and
    // rewrites a_i with the same bits.
    void forwardRecording(int i) override {
        requireLayer(i);
        PoolBuffer &held = saved_[static_cast<std::size_t>(i)];
        if (held)
            throw InvalidArgument("transformer CUDA backend: layer " + std::to_string(i) +
                                  " records while its saved buffers are still held");
        held = poolBuffer(exec::savedBytes(shape()), "a layer's saved buffers");
        const PoolBuffer workspace = poolBuffer(4 * exec::forwardWorkspaceFloats(shape()), "a forward workspace");
        layerForward(i, held.data(), workspace.data());
    }

    void releaseSaved(int i) override {
        if (i < 1 || i > shape().layers || !saved_[static_cast<std::size_t>(i)])
            throw InvalidArgument("transformer CUDA backend: layer " + std::to_string(i) + " holds no saved buffers");
        saved_[static_cast<std::size_t>(i)] = PoolBuffer();
    }

    void backward(int i) override {
        const TransformerShape &s = shape();
        if (i < 0 || i > s.layers)
            throw InvalidArgument("transformer CUDA backend: no backward node " + std::to_string(i));
        const NodeId self = static_cast<NodeId>(s.layers + 1 + i);
        float *out = node(self, "output of a backward");
        if (i == s.layers) { // b_L = a_L - target: the gradient of 1/2 ||a_L - target||^2
            launchSubtract(node(static_cast<NodeId>(i), "a_L"), target_.data(), out, elements(), stream());
            return;
        }
        const int layer = i + 1; // b_i is layer i+1's backward
        const PoolBuffer &saved = saved_[static_cast<std::size_t>(layer)];
        if (!saved)
            throw InvalidArgument("transformer CUDA backend: b_" + std::to_string(i) +
                                  " needs the saved buffers of layer " + std::to_string(layer) +
                                  ", which no recording forward left");
        const PoolBuffer workspace = poolBuffer(4 * exec::backwardWorkspaceFloats(s), "a backward workspace");
        layerBackward(layer, saved.data(), out, workspace.data());
    }

    // Weights: every layer's matrices; biases: every layer's vectors
    // (LayerNorm parameters included), as the CPU backend's.
    void readGradients(Gradients &out) override {
        synchronize();
        out.weights.resize(params_->matrices.size());
        out.biases.resize(params_->vectors.size());
        out.input.resize(static_cast<std::size_t>(elements()));
        matrixGrads_.download(out.weights.data(), matrixGrads_.bytes(), stream());
        vectorGrads_.download(out.biases.data(), vectorGrads_.bytes(), stream());
        copyOnStream(out.input.data(), node(static_cast<NodeId>(shape().layers + 1), "b_0"), shape().nodeBytes(),
                     cudaMemcpyDeviceToHost, stream());
    }

private:
    void releaseExtra() override {
        for (auto &b : saved_)
            b = PoolBuffer();
    }

    void requireLayer(int i) const {
        if (i < 1 || i > shape().layers)
            throw InvalidArgument("transformer CUDA backend: no forward layer " + std::to_string(i));
    }
    std::int64_t elements() const { return std::int64_t{shape().hidden} * shape().tokens(); }
    int tokens() const { return static_cast<int>(shape().tokens()); } // validate() keeps it within int

    // y (out x n) = W x (+ bias when given; `accumulate`: y += W x).
    void gemmForward(const float *x, const float *weight, const float *bias, float *y, int in, int out,
                     bool accumulate = false) {
        const float one = 1.0f, zero = 0.0f;
        REMAT_CUBLAS_CHECK(cublasSgemm(blas(), CUBLAS_OP_N, CUBLAS_OP_N, out, tokens(), in, &one, weight, out, x, in,
                                       accumulate ? &one : &zero, y, out));
        if (bias)
            launchBiasAdd(y, bias, out, tokens(), stream());
    }
    // dW = dy x^T, dbias = dy summed over the tokens (deterministic reduction).
    void gemmParameters(const float *dy, const float *x, float *dweight, float *dbias, int in, int out) {
        const float one = 1.0f, zero = 0.0f;
        REMAT_CUBLAS_CHECK(cublasSgemm(blas(), CUBLAS_OP_N, CUBLAS_OP_T, out, in, tokens(), &one, dy, out, x, in, &zero,
                                       dweight, out));
        launchRowSums(dy, dbias, out, tokens(), stream());
    }
    // dx = W^T dy.
    void gemmInput(const float *dy, const float *weight, float *dx, int in, int out) {
        const float one = 1.0f, zero = 0.0f;
        REMAT_CUBLAS_CHECK(cublasSgemm(blas(), CUBLAS_OP_T, CUBLAS_OP_N, in, tokens(), out, &one, weight, out, dy, out,
                                       &zero, dx, in));
    }
    // C_j = op(A_j) op(B_j) over `count` heads, head j's blocks `stride*` apart.
    void batched(cublasOperation_t opA, cublasOperation_t opB, int m, int n, int k, const float *a, int lda,
                 long long strideA, const float *b, int ldb, long long strideB, float *c, int ldc, long long strideC,
                 int count) {
        const float one = 1.0f, zero = 0.0f;
        REMAT_CUBLAS_CHECK(cublasSgemmStridedBatched(blas(), opA, opB, m, n, k, &one, a, lda, strideA, b, ldb, strideB,
                                                     &zero, c, ldc, strideC, count));
    }
    void copy(float *to, const float *from, std::int64_t floats) {
        REMAT_CUDA_CHECK(cudaMemcpyAsync(to, from, static_cast<std::size_t>(floats) * sizeof(float),
                                         cudaMemcpyDeviceToDevice, stream()));
    }

    // Heads per attention chunk: as many s x s blocks as the workspace's free
    // hN + s^2 floats hold (LN2's output and one head's scores on the CPU).
    int chunkHeads() const {
        const TransformerShape &s = shape();
        const std::int64_t block = std::int64_t{s.seq} * s.seq;
        return static_cast<int>(std::min<std::int64_t>(s.heads, (elements() + block) / block));
    }

    // Softmax(K^T Q / sqrt(d)) and ctx = V P for every sequence and head, a
    // chunk of heads at a time in `chunk`; with `savedProbs`, each chunk's
    // probabilities are copied there (block (b, head) at (b heads + head) s^2).
    void attentionForward(const float *qkv, float *ctx, float *chunk, float *savedProbs) {
        const TransformerShape &s = shape();
        const int h = s.hidden, d = h / s.heads, seq = s.seq, step = chunkHeads();
        const long long block = static_cast<long long>(seq) * seq;
        const float scale = 1.0f / std::sqrt(static_cast<float>(d));
        for (int b = 0; b < s.batch; ++b)
            for (int head = 0; head < s.heads; head += step) {
                const int count = std::min(step, s.heads - head);
                const float *q = qkv + std::int64_t{b} * seq * 3 * h + std::int64_t{head} * d;
                const float *k = q + h, *v = q + 2 * h;
                batched(CUBLAS_OP_T, CUBLAS_OP_N, seq, seq, d, k, 3 * h, d, q, 3 * h, d, chunk, seq, block, count);
                launchScaledSoftmaxForward(chunk, scale, seq, std::int64_t{count} * seq, stream());
                batched(CUBLAS_OP_N, CUBLAS_OP_N, d, seq, seq, v, 3 * h, d, chunk, seq, block,
                        ctx + std::int64_t{b} * seq * h + std::int64_t{head} * d, h, d, count);
                if (savedProbs)
                    copy(savedProbs + (std::int64_t{b} * s.heads + head) * block, chunk, count * block);
            }
    }

    // dqkv from dctx, the saved qkv and probabilities; dL/dP a chunk of heads
    // at a time in `chunk`.
    void attentionBackward(const float *dctx, const float *qkv, const float *probs, float *dqkv, float *chunk) {
        const TransformerShape &s = shape();
        const int h = s.hidden, d = h / s.heads, seq = s.seq, step = chunkHeads();
        const long long block = static_cast<long long>(seq) * seq;
        const float scale = 1.0f / std::sqrt(static_cast<float>(d));
        for (int b = 0; b < s.batch; ++b)
            for (int head = 0; head < s.heads; head += step) {
                const int count = std::min(step, s.heads - head);
                const std::int64_t at = std::int64_t{b} * seq * 3 * h + std::int64_t{head} * d;
                const float *q = qkv + at, *k = q + h, *v = q + 2 * h;
                float *dq = dqkv + at, *dk = dq + h, *dv = dq + 2 * h;
                const float *dc = dctx + std::int64_t{b} * seq * h + std::int64_t{head} * d;
                const float *p = probs + (std::int64_t{b} * s.heads + head) * block;
                batched(CUBLAS_OP_N, CUBLAS_OP_T, d, seq, seq, dc, h, d, p, seq, block, dv, 3 * h, d, count);
                batched(CUBLAS_OP_T, CUBLAS_OP_N, seq, seq, d, v, 3 * h, d, dc, h, d, chunk, seq, block, count);
                launchScaledSoftmaxBackward(p, chunk, scale, seq, std::int64_t{count} * seq, stream());
                batched(CUBLAS_OP_N, CUBLAS_OP_N, d, seq, seq, k, 3 * h, d, chunk, seq, block, dq, 3 * h, d, count);
                batched(CUBLAS_OP_N, CUBLAS_OP_T, d, seq, seq, q, 3 * h, d, chunk, seq, block, dk, 3 * h, d, count);
            }
    }

    // transformerLayerForward's discarding layout: wide (4hN) holds qkv and
    // the context, then fc1's output; narrow (hN) and the s^2 after it the
    // attention chunks, then LN2's output; the last 2N the LayerNorm
    // statistics; y holds LN1(x), then x2. With `saved`, each internal is
    // copied there once computed.
    void layerForward(int i, float *saved, float *workspace) {
        const TransformerShape &s = shape();
        const LayerTensors<const float *> w = exec::layerTensors(
            static_cast<const float *>(matrices_.data()), static_cast<const float *>(vectors_.data()), s.hidden, i);
        const float *x = node(static_cast<NodeId>(i - 1), "input of a forward");
        float *y = node(static_cast<NodeId>(i), "output of a forward");
        const int h = s.hidden;
        const std::int64_t n = s.tokens(), hn = elements();
        float *wide = workspace, *narrow = workspace + 4 * hn, *stats = narrow + hn + std::int64_t{s.seq} * s.seq;
        const SavedOffsets &at = offsets_;
        launchLayerNormForward(x, w.ln1Gamma, w.ln1Beta, y, stats, stats + n, h, n, stream());
        if (saved) {
            copy(saved + at.mean1, stats, n);
            copy(saved + at.rstd1, stats + n, n);
        }
        gemmForward(y, w.qkvWeight, w.qkvBias, wide, h, 3 * h);
        attentionForward(wide, wide + 3 * hn, narrow, saved ? saved + at.probs : nullptr);
        if (saved) {
            copy(saved + at.qkv, wide, 3 * hn);
            copy(saved + at.ctx, wide + 3 * hn, hn);
        }
        gemmForward(wide + 3 * hn, w.projWeight, w.projBias, y, h, h);
        launchResidualAdd(y, x, hn, stream());
        if (saved)
            copy(saved + at.residual, y, hn);
        launchLayerNormForward(y, w.ln2Gamma, w.ln2Beta, narrow, stats, stats + n, h, n, stream());
        if (saved) {
            copy(saved + at.mean2, stats, n);
            copy(saved + at.rstd2, stats + n, n);
        }
        gemmForward(narrow, w.fc1Weight, w.fc1Bias, wide, h, 4 * h);
        if (saved)
            copy(saved + at.preGelu, wide, 4 * hn);
        launchGeluForward(wide, wide, 4 * hn, stream());
        gemmForward(wide, w.fc2Weight, w.fc2Bias, y, 4 * h, h, true);
    }

    // transformerLayerBackward's steps and workspace: wide (4hN) gelu(fc1),
    // its gradient, then dqkv with dctx in its last hN; narrow (hN) LN
    // outputs and h-wide gradients, with the s^2 after it the attention chunks.
    void layerBackward(int layer, const float *saved, float *dx, float *workspace) {
        const TransformerShape &s = shape();
        const LayerTensors<const float *> w = exec::layerTensors(
            static_cast<const float *>(matrices_.data()), static_cast<const float *>(vectors_.data()), s.hidden, layer);
        const LayerTensors<float *> g = exec::layerTensors(matrixGrads_.data(), vectorGrads_.data(), s.hidden, layer);
        const int i = layer - 1;
        const float *x = node(static_cast<NodeId>(i), "a_i of a backward");
        const float *dy = node(static_cast<NodeId>(s.layers + 1 + i + 1), "b_(i+1) of a backward");
        const int h = s.hidden;
        const std::int64_t n = s.tokens(), hn = elements();
        const SavedOffsets &at = offsets_;
        const float *residual = saved + at.residual, *preGelu = saved + at.preGelu;
        float *wide = workspace, *narrow = workspace + 4 * hn;
        // MLP: a_i = x2 + W_2 gelu(u) + c_2.
        launchGeluForward(preGelu, wide, 4 * hn, stream());
        gemmParameters(dy, wide, g.fc2Weight, g.fc2Bias, 4 * h, h);
        gemmInput(dy, w.fc2Weight, wide, 4 * h, h);
        launchGeluBackward(preGelu, wide, wide, 4 * hn, stream());
        launchLayerNormApply(residual, saved + at.mean2, saved + at.rstd2, w.ln2Gamma, w.ln2Beta, narrow, h, n,
                             stream());
        gemmParameters(wide, narrow, g.fc1Weight, g.fc1Bias, h, 4 * h);
        gemmInput(wide, w.fc1Weight, narrow, h, 4 * h);
        // dL/dx2: the residual path plus LayerNorm 2's.
        copy(dx, dy, hn);
        launchLayerNormBackward(narrow, residual, saved + at.mean2, saved + at.rstd2, w.ln2Gamma, dx, g.ln2Gamma,
                                g.ln2Beta, h, n, stream());
        // Attention: x2 = x + W_o ctx + c_o.
        float *dctx = wide + 3 * hn;
        gemmParameters(dx, saved + at.ctx, g.projWeight, g.projBias, h, h);
        gemmInput(dx, w.projWeight, dctx, h, h);
        attentionBackward(dctx, saved + at.qkv, saved + at.probs, wide, narrow);
        launchLayerNormApply(x, saved + at.mean1, saved + at.rstd1, w.ln1Gamma, w.ln1Beta, narrow, h, n, stream());
        gemmParameters(wide, narrow, g.qkvWeight, g.qkvBias, h, 3 * h);
        gemmInput(wide, w.qkvWeight, narrow, h, 3 * h);
        // dL/dx: dL/dx2 (the residual path) plus LayerNorm 1's.
        launchLayerNormBackward(narrow, x, saved + at.mean1, saved + at.rstd1, w.ln1Gamma, dx, g.ln1Gamma, g.ln1Beta, h,
                                n, stream());
    }

    std::shared_ptr<const TransformerParameters> params_;
    SavedOffsets offsets_;
    DeviceBuffer matrices_, vectors_, input_, target_, matrixGrads_, vectorGrads_;
    std::vector<PoolBuffer> saved_; // by layer, while a recording forward's internals are held
};

} // namespace

std::unique_ptr<exec::Backend>
makeCudaTransformerBackend(std::shared_ptr<const exec::TransformerParameters> parameters) {
    if (!parameters)
        throw InvalidArgument("the transformer CUDA backend needs its parameters");
    parameters->shape.validate();
    return std::make_unique<CudaTransformerBackend>(std::move(parameters));
}

} // namespace remat::gpu
