#include "gpu/cuda_check.h"
#include "gpu/kernels.h"

namespace remat::gpu {

namespace {

constexpr int kThreads = 256;

// Grid-stride loops: any count works with a bounded grid.
unsigned blocksFor(std::int64_t count) {
    const std::int64_t blocks = (count + kThreads - 1) / kThreads;
    return static_cast<unsigned>(blocks < 65535 ? (blocks > 0 ? blocks : 1) : 65535);
}

__global__ void tanhKernel(const float *in, float *out, std::int64_t count) {
    for (std::int64_t k = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; k < count;
         k += std::int64_t{gridDim.x} * blockDim.x)
        out[k] = tanhf(in[k]);
}

__global__ void tanhBackwardKernel(const float *t, float *grad, std::int64_t count) {
    for (std::int64_t k = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; k < count;
         k += std::int64_t{gridDim.x} * blockDim.x) {
        const float v = t[k];
        grad[k] *= 1.0f - v * v;
    }
}

__global__ void broadcastColumnsKernel(const float *bias, float *out, int rows, std::int64_t count) {
    for (std::int64_t k = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; k < count;
         k += std::int64_t{gridDim.x} * blockDim.x)
        out[k] = bias[k % rows];
}

// One thread per row; neighbouring threads read neighbouring rows (coalesced).
__global__ void rowSumsKernel(const float *in, float *sums, int rows, int cols) {
    for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < rows; r += gridDim.x * blockDim.x) {
        float s = 0;
        for (int c = 0; c < cols; ++c)
            s += in[r + std::int64_t{c} * rows];
        sums[r] = s;
    }
}

__global__ void subtractKernel(const float *a, const float *b, float *out, std::int64_t count) {
    for (std::int64_t k = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; k < count;
         k += std::int64_t{gridDim.x} * blockDim.x)
        out[k] = a[k] - b[k];
}

} // namespace

void launchTanh(const float *in, float *out, std::int64_t count, cudaStream_t stream) {
    tanhKernel<<<blocksFor(count), kThreads, 0, stream>>>(in, out, count);
    REMAT_CUDA_CHECK(cudaGetLastError());
}

void launchTanhBackward(const float *t, float *grad, std::int64_t count, cudaStream_t stream) {
    tanhBackwardKernel<<<blocksFor(count), kThreads, 0, stream>>>(t, grad, count);
    REMAT_CUDA_CHECK(cudaGetLastError());
}

void launchBroadcastColumns(const float *bias, float *out, int rows, int cols, cudaStream_t stream) {
    const std::int64_t count = std::int64_t{rows} * cols;
    broadcastColumnsKernel<<<blocksFor(count), kThreads, 0, stream>>>(bias, out, rows, count);
    REMAT_CUDA_CHECK(cudaGetLastError());
}

void launchRowSums(const float *in, float *sums, int rows, int cols, cudaStream_t stream) {
    rowSumsKernel<<<blocksFor(rows), kThreads, 0, stream>>>(in, sums, rows, cols);
    REMAT_CUDA_CHECK(cudaGetLastError());
}

void launchSubtract(const float *a, const float *b, float *out, std::int64_t count, cudaStream_t stream) {
    subtractKernel<<<blocksFor(count), kThreads, 0, stream>>>(a, b, out, count);
    REMAT_CUDA_CHECK(cudaGetLastError());
}

} // namespace remat::gpu
