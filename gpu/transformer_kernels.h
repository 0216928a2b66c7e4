#pragma once
// The non-GEMM parts of the transformer layer (core/executor/transformer.h) as
// CUDA kernels; the GEMMs are cuBLAS. Layout as the CPU's
// (core/executor/transformer_math.h): an activation of c features over n
// tokens is c x n column-major, each token's features contiguous. Each
// launcher queues its kernel on `stream` and checks the launch; each kernel
// has its CPU reference in transformer_math and a check in
// gpu/check/transformer_kernel_checks.cpp.
//
// Deterministic: every reduction (over a token's features, a column of
// scores, or the tokens for a parameter gradient) adds in a fixed tree that
// depends only on the sizes, never atomics, so the same inputs give the same
// bits on every run.
#include <cstdint>
#include <cuda_runtime_api.h>

namespace remat::gpu {

// LayerNorm per token, as math::layerNormForward: mean, rstd (biased
// variance, eps inside the square root) and y = (x - mean) rstd gamma + beta.
void launchLayerNormForward(const float *x, const float *gamma, const float *beta, float *y, float *mean, float *rstd,
                            int c, std::int64_t n, cudaStream_t stream);
// y from the saved statistics alone (math::layerNormApply); bitwise what
// launchLayerNormForward wrote.
void launchLayerNormApply(const float *x, const float *mean, const float *rstd, const float *gamma, const float *beta,
                          float *y, int c, std::int64_t n, cudaStream_t stream);
// math::layerNormBackward: dx += dL/dx; dgamma, dbeta written (summed over the
// tokens by a fixed-order reduction).
void launchLayerNormBackward(const float *dy, const float *x, const float *mean, const float *rstd, const float *gamma,
                             float *dx, float *dgamma, float *dbeta, int c, std::int64_t n, cudaStream_t stream);

// Softmax down each column of a rows x cols matrix of attention scores, in
// place, of the scores times `scale` (1/sqrt(d)): math::softmaxForward after
// the CPU's `p *= scale`.
void launchScaledSoftmaxForward(float *p, float scale, int rows, std::int64_t cols, cudaStream_t stream);
// In place: d = scale * p .* (d - sum(p .* d)) per column, dL/d(scores) from
// dL/dP: math::softmaxBackward then the CPU's `dp *= scale`.
void launchScaledSoftmaxBackward(const float *p, float *d, float scale, int rows, std::int64_t cols,
                                 cudaStream_t stream);

// GELU with GPT-2's tanh approximation, as math::geluForward / geluBackward.
void launchGeluForward(const float *u, float *g, std::int64_t count, cudaStream_t stream);
// du = dg .* gelu'(u); du may alias dg.
void launchGeluBackward(const float *u, const float *dg, float *du, std::int64_t count, cudaStream_t stream);

// y += bias per token (bias: c values), as math::biasAdd.
void launchBiasAdd(float *y, const float *bias, int c, std::int64_t n, cudaStream_t stream);
// y += x over `count` values (a residual connection), as math::residualAdd.
void launchResidualAdd(float *y, const float *x, std::int64_t count, cudaStream_t stream);
// The bias gradient (sum of dy over the tokens) is launchRowSums of kernels.h.

} // namespace remat::gpu
