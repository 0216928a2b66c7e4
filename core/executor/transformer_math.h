#pragma once
// The reference math of one transformer layer, one function per op, on raw
// pointers in plain loops, instantiated for float (what the CPU backend's
// kernels, cpu_ops.h, and the CUDA kernels are checked against) and double
// (the finite-difference checks). Nothing here allocates: every buffer,
// scratch included, is given by the caller, which counts it.
//
// Layout: an activation of C features over N tokens is a C x N column-major
// matrix (each token's C values contiguous, like llm.c's (B, T, C)); token
// n = batch * seq + position. Weights of a linear layer with `in` inputs and
// `out` outputs are an out x in column-major matrix (y = W x + bias).
// Single-threaded Eigen and fixed loop orders: the same call on the same
// inputs gives the same bits.
#include <cstdint>
#include <cstring>

namespace remat::exec::math {

// LayerNorm statistics and output, per token over its C features (biased
// variance, eps inside the square root, as torch.nn.LayerNorm):
//     mean = E[x], rstd = 1 / sqrt(Var[x] + eps), y = (x - mean) * rstd * gamma + beta
// `y` may not alias `x`.
inline constexpr float kLayerNormEps = 1e-5f;
template <typename T>
void layerNormForward(const T *x, const T *gamma, const T *beta, T *y, T *mean, T *rstd, int c, std::int64_t n);
// y from the saved statistics alone (the backward recomputes the normalised
// activation instead of saving it); bitwise what layerNormForward wrote.
template <typename T>
void layerNormApply(const T *x, const T *mean, const T *rstd, const T *gamma, const T *beta, T *y, int c,
                    std::int64_t n);
// dx += dL/dx; dgamma, dbeta = dL/dgamma, dL/dbeta (written, summed over the tokens).
template <typename T>
void layerNormBackward(const T *dy, const T *x, const T *mean, const T *rstd, const T *gamma, T *dx, T *dgamma,
                       T *dbeta, int c, std::int64_t n);

// y (out x n) = W (out x in) x (in x n) + bias. `y` may not alias `x`.
template <typename T>
void linearForward(const T *x, const T *weight, const T *bias, T *y, int in, int out, std::int64_t n);
// y (out x n) += W x: the GEMM accumulates into y.
template <typename T> void linearAccumulate(const T *x, const T *weight, T *y, int in, int out, std::int64_t n);
// dW = dy x^T, dbias = sum of dy over the tokens (both written).
template <typename T>
void linearBackwardParameters(const T *dy, const T *x, T *dweight, T *dbias, int in, int out, std::int64_t n);
// dx = W^T dy (written). `dx` may not alias `dy`.
template <typename T> void linearBackwardInput(const T *dy, const T *weight, T *dx, int in, int out, std::int64_t n);

// y += bias, per token (bias: c values).
template <typename T> void biasAdd(T *y, const T *bias, int c, std::int64_t n);
// y += x over `count` values (a residual connection).
template <typename T> void residualAdd(T *y, const T *x, std::int64_t count);

// Softmax down each column of a rows x cols column-major matrix, in place
// (max subtracted first).
template <typename T> void softmaxForward(T *p, int rows, std::int64_t cols);
// dz = p .* (dp - sum(p .* dp)) per column (written; `dz` may alias `dp`).
template <typename T> void softmaxBackward(const T *p, const T *dp, T *dz, int rows, std::int64_t cols);

// GELU with GPT-2's tanh approximation:
//     gelu(u) = 0.5 u (1 + tanh(sqrt(2/pi) (u + 0.044715 u^3)))
template <typename T> void geluForward(const T *u, T *g, std::int64_t count);
// du = dg .* gelu'(u) (written; `du` may alias `dg`).
template <typename T> void geluBackward(const T *u, const T *dg, T *du, std::int64_t count);

// Scaled dot-product attention, no mask (an encoder: every token sees every
// token of its sequence). qkv is 3h x (seq * batch): rows [0, h) the queries,
// [h, 2h) the keys, [2h, 3h) the values; head k owns rows [k d, (k+1) d) of
// each, d = h / heads. For each sequence and head:
//     P = softmax over keys of (K^T Q) / sqrt(d)       (seq x seq, column = query)
//     ctx = V P                                          (d x seq)
// probs: seq x seq blocks, block (batch, head) at probs + (batch * heads +
// head) * blockStride, written: blockStride = seq * seq keeps every block (a
// recording forward), 0 reuses one (a forward that discards); either way the
// same operations on the same values. ctx: h x (seq * batch), written.
struct AttentionShape {
    int hidden = 0;
    int heads = 0;
    int seq = 0;
    int batch = 0;
    int headDim() const { return hidden / heads; }
};
template <typename T>
void attentionForward(const T *qkv, T *probs, std::int64_t blockStride, T *ctx, const AttentionShape &shape);
// dqkv (written) from dctx and the saved qkv and probs. `scratch` holds
// seq * seq floats (one head's dL/dP).
template <typename T>
void attentionBackward(const T *dctx, const T *qkv, const T *probs, T *dqkv, T *scratch, const AttentionShape &shape);

// The functions above as the ops a layer runs on (transformerLayerForward):
// one thread, plain loops, in float or double. CpuOps (cpu_ops.h) has the
// same members on the ISA kernels and every core.
template <typename T> struct ReferenceOps {
    void layerNormForward(const T *x, const T *gamma, const T *beta, T *y, T *mean, T *rstd, int c, std::int64_t n) {
        math::layerNormForward(x, gamma, beta, y, mean, rstd, c, n);
    }
    void layerNormApply(const T *x, const T *mean, const T *rstd, const T *gamma, const T *beta, T *y, int c,
                        std::int64_t n) {
        math::layerNormApply(x, mean, rstd, gamma, beta, y, c, n);
    }
    void layerNormBackward(const T *dy, const T *x, const T *mean, const T *rstd, const T *gamma, T *dx, T *dgamma,
                           T *dbeta, int c, std::int64_t n) {
        math::layerNormBackward(dy, x, mean, rstd, gamma, dx, dgamma, dbeta, c, n);
    }
    void linearForward(const T *x, const T *weight, const T *bias, T *y, int in, int out, std::int64_t n) {
        math::linearForward(x, weight, bias, y, in, out, n);
    }
    // y += W x + bias
    void linearAccumulate(const T *x, const T *weight, const T *bias, T *y, int in, int out, std::int64_t n) {
        math::linearAccumulate(x, weight, y, in, out, n);
        math::biasAdd(y, bias, out, n);
    }
    // y = W x + bias + residual
    void linearForwardResidual(const T *x, const T *weight, const T *bias, const T *residual, T *y, int in, int out,
                               std::int64_t n) {
        math::linearForward(x, weight, bias, y, in, out, n);
        math::residualAdd(y, residual, std::int64_t{out} * n);
    }
    // dx = (W^T dy) .* gelu'(u)
    void linearBackwardInputGelu(const T *dy, const T *weight, const T *u, T *dx, int in, int out, std::int64_t n) {
        math::linearBackwardInput(dy, weight, dx, in, out, n);
        math::geluBackward(u, dx, dx, std::int64_t{in} * n);
    }
    void linearBackwardParameters(const T *dy, const T *x, T *dweight, T *dbias, int in, int out, std::int64_t n) {
        math::linearBackwardParameters(dy, x, dweight, dbias, in, out, n);
    }
    void linearBackwardInput(const T *dy, const T *weight, T *dx, int in, int out, std::int64_t n) {
        math::linearBackwardInput(dy, weight, dx, in, out, n);
    }
    void copy(const T *from, T *to, std::int64_t count) {
        std::memcpy(to, from, static_cast<std::size_t>(count) * sizeof(T));
    }
    void geluForward(const T *u, T *g, std::int64_t count) { math::geluForward(u, g, count); }
    // One head at a time: discarding, its probabilities in the scratch's first seq^2.
    void attentionForward(const T *qkv, T *savedProbs, T *ctx, T *scratch, std::int64_t /*scratchFloats*/,
                          const AttentionShape &shape) {
        math::attentionForward(qkv, savedProbs ? savedProbs : scratch,
                               savedProbs ? std::int64_t{shape.seq} * shape.seq : 0, ctx, shape);
    }
    void attentionBackward(const T *dctx, const T *qkv, const T *probs, T *dqkv, T *scratch,
                           std::int64_t /*scratchFloats*/, const AttentionShape &shape) {
        math::attentionBackward(dctx, qkv, probs, dqkv, scratch, shape);
    }
};

} // namespace remat::exec::math
