#pragma once
// The elementwise parts of the network, as small CUDA kernels (the GEMMs are
// cuBLAS). Matrices are w x b, column-major, like the CPU backend's. Each
// launcher queues its kernel on `stream` and checks the launch; each has a
// CPU reference check in gpu/check/kernel_checks.cpp.
#include <cstdint>
#include <cuda_runtime_api.h>

namespace remat::gpu {

// out[k] = tanh(in[k]), k < count.
void launchTanh(const float *in, float *out, std::int64_t count, cudaStream_t stream);
// grad[k] *= 1 - t[k]^2, where t = tanh(a): the derivative of tanh at a.
void launchTanhBackward(const float *t, float *grad, std::int64_t count, cudaStream_t stream);
// out[r + c*rows] = bias[r]: a GEMM with beta = 1 then adds W*x.
void launchBroadcastColumns(const float *bias, float *out, int rows, int cols, cudaStream_t stream);
// sums[r] = sum over c of in[r + c*rows] (the bias gradient): a parallel
// reduction in a fixed order, so bitwise reproducible. kRowSumLanes partial
// sums per row, each over every kRowSumLanes-th column, added in a fixed tree.
inline constexpr int kRowSumRows = 32;
inline constexpr int kRowSumLanes = 8; // a power of two
void launchRowSums(const float *in, float *sums, int rows, int cols, cudaStream_t stream);
// The same sums on the host, in exactly the kernel's order (bitwise equal).
void rowSumsReference(const float *in, float *sums, int rows, int cols);
// out[k] = a[k] - b[k].
void launchSubtract(const float *a, const float *b, float *out, std::int64_t count, cudaStream_t stream);

} // namespace remat::gpu
