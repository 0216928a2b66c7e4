#include "gpu/cuda_check.h"
#include "gpu/grid.cuh"
#include "gpu/kernels.h"

namespace remat::gpu {

namespace {

__global__ void tanhKernel(const float *in, float *out, std::int64_t count) {
    for (std::int64_t k = gridStart(); k < count; k += gridStride())
        out[k] = tanhf(in[k]);
}

__global__ void tanhBackwardKernel(const float *t, float *grad, std::int64_t count) {
    for (std::int64_t k = gridStart(); k < count; k += gridStride()) {
        const float v = t[k];
        grad[k] *= 1.0f - v * v;
    }
}

__global__ void broadcastColumnsKernel(const float *bias, float *out, int rows, std::int64_t count) {
    for (std::int64_t k = gridStart(); k < count; k += gridStride())
        out[k] = bias[k % rows];
}

// Row sums as a deterministic parallel reduction. A block is a tile of
// kRowSumRows rows x kRowSumLanes lanes: lane y sums columns y, y + lanes, ...
// in order (neighbouring threads read neighbouring rows: coalesced), then the
// lanes are added in a fixed tree. The order depends only on `cols`, never on
// timing, so every run gives the same bits (rowSumsReference mirrors it).
__global__ void rowSumsKernel(const float *in, float *sums, int rows, int cols) {
    __shared__ float partial[kRowSumLanes][kRowSumRows];
    const int x = static_cast<int>(threadIdx.x), y = static_cast<int>(threadIdx.y);
    for (int tile = static_cast<int>(blockIdx.x) * kRowSumRows; tile < rows;
         tile += static_cast<int>(gridDim.x) * kRowSumRows) {
        const int r = tile + x;
        float s = 0;
        if (r < rows)
            for (int c = y; c < cols; c += kRowSumLanes)
                s += in[r + std::int64_t{c} * rows];
        partial[y][x] = s;
        __syncthreads();
        for (int half = kRowSumLanes / 2; half > 0; half /= 2) {
            if (y < half)
                partial[y][x] += partial[y + half][x];
            __syncthreads();
        }
        if (y == 0 && r < rows)
            sums[r] = partial[0][x];
        __syncthreads(); // the next tile reuses `partial`
    }
}

__global__ void subtractKernel(const float *a, const float *b, float *out, std::int64_t count) {
    for (std::int64_t k = gridStart(); k < count; k += gridStride())
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
    const int tiles = (rows + kRowSumRows - 1) / kRowSumRows;
    const dim3 block(kRowSumRows, kRowSumLanes);
    rowSumsKernel<<<static_cast<unsigned>(tiles < 65535 ? tiles : 65535), block, 0, stream>>>(in, sums, rows, cols);
    REMAT_CUDA_CHECK(cudaGetLastError());
}

void launchSubtract(const float *a, const float *b, float *out, std::int64_t count, cudaStream_t stream) {
    subtractKernel<<<blocksFor(count), kThreads, 0, stream>>>(a, b, out, count);
    REMAT_CUDA_CHECK(cudaGetLastError());
}

void rowSumsReference(const float *in, float *sums, int rows, int cols) {
    for (int r = 0; r < rows; ++r) {
        float partial[kRowSumLanes];
        for (int y = 0; y < kRowSumLanes; ++y) {
            float s = 0;
            for (int c = y; c < cols; c += kRowSumLanes)
                s += in[r + std::int64_t{c} * rows];
            partial[y] = s;
        }
        for (int half = kRowSumLanes / 2; half > 0; half /= 2)
            for (int y = 0; y < half; ++y)
                partial[y] += partial[y + half];
        sums[r] = partial[0];
    }
}

} // namespace remat::gpu
