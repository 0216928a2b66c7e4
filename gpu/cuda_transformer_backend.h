#pragma once
// The transformer network (core/executor/transformer.h) on CUDA, seen from
// plain C++: the same Backend as the CPU's TransformerCpuBackend (the same
// model, saved buffers and workspaces, from the same functions), its math as
// cuBLAS GEMMs and the kernels of gpu/transformer_kernels.h, every buffer from
// the CUDA backend's counted memory pool (gpu/device_backend.h).
#include "core/executor/backend.h"
#include "core/executor/transformer.h"

#include <memory>

namespace remat::gpu {

// CPU and CUDA run the same fp32 layer with different summation orders
// (Eigen's blocking vs cuBLAS's kernels, sequential vs tree reductions in
// LayerNorm and softmax), so their gradients agree to a tolerance, not
// bitwise: max |g_cuda - g_cpu| <= kTransformerCpuAgreementTolerance *
// max(1, max |g_cpu|) over every weight, bias and LayerNorm gradient and b_0
// (docs/executor.md). Looser than the tanh network's 1e-3: softmax and
// LayerNorm divide by sums that rounding moves.
inline constexpr double kTransformerCpuAgreementTolerance = 2e-3;

// Uploads the parameters and sets up the pool, stream and cuBLAS handle.
// Throws DeviceUnavailable without a usable device, OutOfMemory before
// allocating when the parameters alone do not fit.
std::unique_ptr<exec::Backend>
makeCudaTransformerBackend(std::shared_ptr<const exec::TransformerParameters> parameters);

} // namespace remat::gpu
