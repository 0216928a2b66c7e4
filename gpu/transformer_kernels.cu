#include "gpu/cuda_check.h"
#include "gpu/grid.cuh"
#include "gpu/transformer_kernels.h"

#include <cmath>

namespace remat::gpu {

namespace {

// The same constants as the CPU's GELU (transformer_math.cpp).
constexpr float kGeluScale = 0.7978845608028654f; // sqrt(2 / pi)
constexpr float kGeluCube = 0.044715f;
constexpr float kLayerNormEps = 1e-5f; // math::kLayerNormEps
// Parameter-gradient reductions: a block is a tile of kTileFeatures features
// x kTileLanes lanes, lane y summing tokens y, y + lanes, ... in order.
constexpr int kTileFeatures = 32;
constexpr int kTileLanes = 32; // a power of two

// Sum (or max) over the block's threads in a fixed tree (blockDim.x a power
// of two); every thread gets the result. `scratch` holds blockDim.x floats.
template <typename Op> __device__ float blockReduce(float v, float *scratch, Op op) {
    __syncthreads(); // earlier readers of scratch are done
    scratch[threadIdx.x] = v;
    __syncthreads();
    for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half)
            scratch[threadIdx.x] = op(scratch[threadIdx.x], scratch[threadIdx.x + half]);
        __syncthreads();
    }
    return scratch[0];
}
struct Add {
    __device__ float operator()(float a, float b) const { return a + b; }
};
struct Max {
    __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};

// One expression, explicitly rounded, for forward and apply: bitwise equal.
__device__ inline float normalize(float x, float mean, float rstd, float gamma, float beta) {
    return __fmaf_rn(__fmul_rn(__fsub_rn(x, mean), rstd), gamma, beta);
}

// One block per token (grid-stride over the tokens), threads over its features.
__global__ void layerNormForwardKernel(const float *x, const float *gamma, const float *beta, float *y, float *mean,
                                       float *rstd, int c, std::int64_t n) {
    extern __shared__ float scratch[];
    for (std::int64_t t = blockIdx.x; t < n; t += gridDim.x) {
        const float *xt = x + t * c;
        float sum = 0;
        for (int k = static_cast<int>(threadIdx.x); k < c; k += static_cast<int>(blockDim.x))
            sum += xt[k];
        const float m = blockReduce(sum, scratch, Add{}) / static_cast<float>(c);
        float squares = 0;
        for (int k = static_cast<int>(threadIdx.x); k < c; k += static_cast<int>(blockDim.x)) {
            const float d = xt[k] - m;
            squares += d * d;
        }
        const float var = blockReduce(squares, scratch, Add{}) / static_cast<float>(c);
        const float r = 1.0f / sqrtf(var + kLayerNormEps);
        if (threadIdx.x == 0) {
            mean[t] = m;
            rstd[t] = r;
        }
        for (int k = static_cast<int>(threadIdx.x); k < c; k += static_cast<int>(blockDim.x))
            y[t * c + k] = normalize(xt[k], m, r, gamma[k], beta[k]);
    }
}

__global__ void layerNormApplyKernel(const float *x, const float *mean, const float *rstd, const float *gamma,
                                     const float *beta, float *y, int c, std::int64_t count) {
    for (std::int64_t k = gridStart(); k < count; k += gridStride()) {
        const std::int64_t t = k / c;
        const int f = static_cast<int>(k - t * c);
        y[k] = normalize(x[k], mean[t], rstd[t], gamma[f], beta[f]);
    }
}

// dx += rstd (dxhat - mean(dxhat) - xhat mean(dxhat xhat)), one block per token.
__global__ void layerNormBackwardInputKernel(const float *dy, const float *x, const float *mean, const float *rstd,
                                             const float *gamma, float *dx, int c, std::int64_t n) {
    extern __shared__ float scratch[];
    for (std::int64_t t = blockIdx.x; t < n; t += gridDim.x) {
        const float m = mean[t], r = rstd[t];
        const float *xt = x + t * c, *dyt = dy + t * c;
        float a = 0, b = 0;
        for (int k = static_cast<int>(threadIdx.x); k < c; k += static_cast<int>(blockDim.x)) {
            const float xhat = (xt[k] - m) * r, dxhat = dyt[k] * gamma[k];
            a += dxhat;
            b += dxhat * xhat;
        }
        const float meanDxhat = blockReduce(a, scratch, Add{}) / static_cast<float>(c);
        const float meanDxhatXhat = blockReduce(b, scratch, Add{}) / static_cast<float>(c);
        for (int k = static_cast<int>(threadIdx.x); k < c; k += static_cast<int>(blockDim.x)) {
            const float xhat = (xt[k] - m) * r, dxhat = dyt[k] * gamma[k];
            dx[t * c + k] += r * (dxhat - meanDxhat - xhat * meanDxhatXhat);
        }
    }
}

// dgamma[f] = sum over tokens of dy xhat, dbeta[f] = sum of dy: a tile of
// features x lanes, each lane over every kTileLanes-th token in order, then
// the lanes in a fixed tree (neighbouring threads read neighbouring features).
__global__ void layerNormBackwardParametersKernel(const float *dy, const float *x, const float *mean, const float *rstd,
                                                  float *dgamma, float *dbeta, int c, std::int64_t n) {
    __shared__ float partialGamma[kTileLanes][kTileFeatures];
    __shared__ float partialBeta[kTileLanes][kTileFeatures];
    const int f0 = static_cast<int>(threadIdx.x), lane = static_cast<int>(threadIdx.y);
    for (int tile = static_cast<int>(blockIdx.x) * kTileFeatures; tile < c;
         tile += static_cast<int>(gridDim.x) * kTileFeatures) {
        const int f = tile + f0;
        float g = 0, b = 0;
        if (f < c)
            for (std::int64_t t = lane; t < n; t += kTileLanes) {
                const float d = dy[t * c + f];
                g += d * ((x[t * c + f] - mean[t]) * rstd[t]);
                b += d;
            }
        partialGamma[lane][f0] = g;
        partialBeta[lane][f0] = b;
        __syncthreads();
        for (int half = kTileLanes / 2; half > 0; half /= 2) {
            if (lane < half) {
                partialGamma[lane][f0] += partialGamma[lane + half][f0];
                partialBeta[lane][f0] += partialBeta[lane + half][f0];
            }
            __syncthreads();
        }
        if (lane == 0 && f < c) {
            dgamma[f] = partialGamma[0][f0];
            dbeta[f] = partialBeta[0][f0];
        }
        __syncthreads(); // the next tile reuses the partials
    }
}

// One block per column of scores (grid-stride), threads down the column.
__global__ void scaledSoftmaxForwardKernel(float *p, float scale, int rows, std::int64_t cols) {
    extern __shared__ float scratch[];
    for (std::int64_t j = blockIdx.x; j < cols; j += gridDim.x) {
        float *col = p + j * rows;
        float top = -INFINITY;
        for (int k = static_cast<int>(threadIdx.x); k < rows; k += static_cast<int>(blockDim.x))
            top = fmaxf(top, col[k] * scale);
        top = blockReduce(top, scratch, Max{});
        float sum = 0;
        for (int k = static_cast<int>(threadIdx.x); k < rows; k += static_cast<int>(blockDim.x)) {
            const float e = expf(col[k] * scale - top);
            col[k] = e;
            sum += e;
        }
        const float inverse = 1.0f / blockReduce(sum, scratch, Add{});
        for (int k = static_cast<int>(threadIdx.x); k < rows; k += static_cast<int>(blockDim.x))
            col[k] *= inverse;
    }
}

__global__ void scaledSoftmaxBackwardKernel(const float *p, float *d, float scale, int rows, std::int64_t cols) {
    extern __shared__ float scratch[];
    for (std::int64_t j = blockIdx.x; j < cols; j += gridDim.x) {
        const float *pc = p + j * rows;
        float *dc = d + j * rows;
        float dot = 0;
        for (int k = static_cast<int>(threadIdx.x); k < rows; k += static_cast<int>(blockDim.x))
            dot += pc[k] * dc[k];
        dot = blockReduce(dot, scratch, Add{});
        for (int k = static_cast<int>(threadIdx.x); k < rows; k += static_cast<int>(blockDim.x))
            dc[k] = pc[k] * (dc[k] - dot) * scale;
    }
}

__global__ void geluForwardKernel(const float *u, float *g, std::int64_t count) {
    for (std::int64_t k = gridStart(); k < count; k += gridStride()) {
        const float x = u[k];
        g[k] = 0.5f * x * (1.0f + tanhf(kGeluScale * (x + kGeluCube * x * x * x)));
    }
}

__global__ void geluBackwardKernel(const float *u, const float *dg, float *du, std::int64_t count) {
    for (std::int64_t k = gridStart(); k < count; k += gridStride()) {
        const float x = u[k];
        const float th = tanhf(kGeluScale * (x + kGeluCube * x * x * x));
        const float sech2 = 1.0f - th * th;
        const float inner = kGeluScale * (1.0f + 3.0f * kGeluCube * x * x);
        du[k] = dg[k] * (0.5f * (1.0f + th) + 0.5f * x * sech2 * inner);
    }
}

__global__ void biasAddKernel(float *y, const float *bias, int c, std::int64_t count) {
    for (std::int64_t k = gridStart(); k < count; k += gridStride())
        y[k] += bias[k % c];
}

__global__ void residualAddKernel(float *y, const float *x, std::int64_t count) {
    for (std::int64_t k = gridStart(); k < count; k += gridStride())
        y[k] += x[k];
}

// Threads for one block per token or column: a power of two (blockReduce's
// tree), no more than the items, at most kThreads.
unsigned threadsFor(int items) {
    unsigned t = 32;
    while (t < static_cast<unsigned>(kThreads) && t < static_cast<unsigned>(items))
        t *= 2;
    return t;
}

unsigned blocksForRows(std::int64_t rows) {
    return static_cast<unsigned>(rows < kMaxBlocks ? (rows > 0 ? rows : 1) : kMaxBlocks);
}

} // namespace

void launchLayerNormForward(const float *x, const float *gamma, const float *beta, float *y, float *mean, float *rstd,
                            int c, std::int64_t n, cudaStream_t stream) {
    const unsigned threads = threadsFor(c);
    layerNormForwardKernel<<<blocksForRows(n), threads, threads * sizeof(float), stream>>>(x, gamma, beta, y, mean,
                                                                                           rstd, c, n);
    REMAT_CUDA_CHECK(cudaGetLastError());
}

void launchLayerNormApply(const float *x, const float *mean, const float *rstd, const float *gamma, const float *beta,
                          float *y, int c, std::int64_t n, cudaStream_t stream) {
    const std::int64_t count = std::int64_t{c} * n;
    layerNormApplyKernel<<<blocksFor(count), kThreads, 0, stream>>>(x, mean, rstd, gamma, beta, y, c, count);
    REMAT_CUDA_CHECK(cudaGetLastError());
}

void launchLayerNormBackward(const float *dy, const float *x, const float *mean, const float *rstd, const float *gamma,
                             float *dx, float *dgamma, float *dbeta, int c, std::int64_t n, cudaStream_t stream) {
    const unsigned threads = threadsFor(c);
    layerNormBackwardInputKernel<<<blocksForRows(n), threads, threads * sizeof(float), stream>>>(dy, x, mean, rstd,
                                                                                                 gamma, dx, c, n);
    REMAT_CUDA_CHECK(cudaGetLastError());
    const dim3 tile(kTileFeatures, kTileLanes);
    layerNormBackwardParametersKernel<<<blocksForRows((c + kTileFeatures - 1) / kTileFeatures), tile, 0, stream>>>(
        dy, x, mean, rstd, dgamma, dbeta, c, n);
    REMAT_CUDA_CHECK(cudaGetLastError());
}

void launchScaledSoftmaxForward(float *p, float scale, int rows, std::int64_t cols, cudaStream_t stream) {
    const unsigned threads = threadsFor(rows);
    scaledSoftmaxForwardKernel<<<blocksForRows(cols), threads, threads * sizeof(float), stream>>>(p, scale, rows, cols);
    REMAT_CUDA_CHECK(cudaGetLastError());
}

void launchScaledSoftmaxBackward(const float *p, float *d, float scale, int rows, std::int64_t cols,
                                 cudaStream_t stream) {
    const unsigned threads = threadsFor(rows);
    scaledSoftmaxBackwardKernel<<<blocksForRows(cols), threads, threads * sizeof(float), stream>>>(p, d, scale, rows,
                                                                                                   cols);
    REMAT_CUDA_CHECK(cudaGetLastError());
}

void launchGeluForward(const float *u, float *g, std::int64_t count, cudaStream_t stream) {
    geluForwardKernel<<<blocksFor(count), kThreads, 0, stream>>>(u, g, count);
    REMAT_CUDA_CHECK(cudaGetLastError());
}

void launchGeluBackward(const float *u, const float *dg, float *du, std::int64_t count, cudaStream_t stream) {
    geluBackwardKernel<<<blocksFor(count), kThreads, 0, stream>>>(u, dg, du, count);
    REMAT_CUDA_CHECK(cudaGetLastError());
}

void launchBiasAdd(float *y, const float *bias, int c, std::int64_t n, cudaStream_t stream) {
    const std::int64_t count = std::int64_t{c} * n;
    biasAddKernel<<<blocksFor(count), kThreads, 0, stream>>>(y, bias, c, count);
    REMAT_CUDA_CHECK(cudaGetLastError());
}

void launchResidualAdd(float *y, const float *x, std::int64_t count, cudaStream_t stream) {
    residualAddKernel<<<blocksFor(count), kThreads, 0, stream>>>(y, x, count);
    REMAT_CUDA_CHECK(cudaGetLastError());
}

} // namespace remat::gpu
