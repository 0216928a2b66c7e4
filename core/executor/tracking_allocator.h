#pragma once
// Host memory for node and workspace buffers, counted: every byte the CPU
// backend holds for activations passes through here, so the live and peak
// byte counts are exact (the sizes requested, not what malloc rounds to).
// Released blocks are cached by size and reused, as PyTorch's caching
// allocator does: a step allocates the same few sizes over and over, and
// going back to malloc (mmap and page faults for large blocks) each time
// costs several percent of a step. trim() returns the cache to the system.
// The blocks come from a BlockSource: the heap (aligned_alloc) for the CPU
// backend's arenas, page-locked memory (cudaHostAlloc) for the CUDA
// backend's host arena of offloaded copies.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

namespace remat::exec {

// Where a TrackingAllocator's blocks come from and go back to.
struct BlockSource {
    // A block of at least `bytes`, aligned to TrackingAllocator::kAlignment;
    // nullptr when the memory is exhausted (other failures may throw).
    void *(*acquire)(std::size_t bytes);
    void (*give)(void *block) noexcept;
    const char *memory; // "host", "pinned host": for out-of-memory messages
};
// aligned_alloc / free.
BlockSource heapBlocks();

class TrackingAllocator {
public:
    // 64 bytes: a cache line, and every Eigen packet size.
    static constexpr std::size_t kAlignment = 64;

    explicit TrackingAllocator(BlockSource source = heapBlocks()) : source_(source) {}

    // Throws OutOfMemory naming the bytes asked and the bytes live.
    float *allocate(std::int64_t bytes);
    void release(float *pointer, std::int64_t bytes) noexcept;
    // Frees every cached block (live blocks stay).
    void trim() noexcept;

    TrackingAllocator(const TrackingAllocator &) = delete;
    TrackingAllocator &operator=(const TrackingAllocator &) = delete;
    ~TrackingAllocator() { trim(); }

    std::int64_t liveBytes() const { return live_; }
    std::int64_t peakBytes() const { return peak_; }
    std::int64_t allocations() const { return allocations_; }
    std::int64_t cachedBytes() const { return cached_; }
    void resetPeak() { peak_ = live_; }

private:
    float *fresh(std::int64_t bytes);

    BlockSource source_;
    std::unordered_map<std::int64_t, std::vector<float *>> cache_; // by requested size
    std::int64_t cached_ = 0;
    std::int64_t live_ = 0;
    std::int64_t peak_ = 0;
    std::int64_t allocations_ = 0;
};

// A buffer owned through a TrackingAllocator (RAII: released on destruction).
class TrackedBuffer {
public:
    TrackedBuffer() = default;
    TrackedBuffer(TrackingAllocator &allocator, std::int64_t bytes)
        : allocator_(&allocator), data_(allocator.allocate(bytes)), bytes_(bytes) {}
    TrackedBuffer(TrackedBuffer &&other) noexcept { swap(other); }
    TrackedBuffer &operator=(TrackedBuffer &&other) noexcept {
        TrackedBuffer(std::move(other)).swap(*this);
        return *this;
    }
    TrackedBuffer(const TrackedBuffer &) = delete;
    TrackedBuffer &operator=(const TrackedBuffer &) = delete;
    ~TrackedBuffer() {
        if (data_)
            allocator_->release(data_, bytes_);
    }

    float *data() const { return data_; }
    std::int64_t bytes() const { return bytes_; }
    explicit operator bool() const { return data_ != nullptr; }

private:
    void swap(TrackedBuffer &o) noexcept {
        std::swap(allocator_, o.allocator_);
        std::swap(data_, o.data_);
        std::swap(bytes_, o.bytes_);
    }
    TrackingAllocator *allocator_ = nullptr;
    float *data_ = nullptr;
    std::int64_t bytes_ = 0;
};

} // namespace remat::exec
