#pragma once
// Launch sizes shared by the .cu files: grid-stride loops over `count` items
// with a bounded grid, so any count works.
#include <cstdint>

namespace remat::gpu {

inline constexpr int kThreads = 256;
inline constexpr std::int64_t kMaxBlocks = 65535;

inline unsigned blocksFor(std::int64_t count, int threads = kThreads) {
    const std::int64_t blocks = (count + threads - 1) / threads;
    return static_cast<unsigned>(blocks < kMaxBlocks ? (blocks > 0 ? blocks : 1) : kMaxBlocks);
}

// The first index of this thread and the stride of a grid-stride loop.
__device__ inline std::int64_t gridStart() {
    return blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x;
}
__device__ inline std::int64_t gridStride() {
    return std::int64_t{gridDim.x} * blockDim.x;
}

} // namespace remat::gpu
