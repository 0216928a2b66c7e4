#include "core/executor/tracking_allocator.h"

#include "core/errors.h"
#include "core/units.h"

#include <cstdlib>
#include <string>

namespace remat::exec {

namespace {
void *alignedHeapBlock(std::size_t bytes) {
    // aligned_alloc wants a multiple of the alignment.
    const auto rounded = (bytes + TrackingAllocator::kAlignment - 1) / TrackingAllocator::kAlignment *
                         TrackingAllocator::kAlignment;
    return std::aligned_alloc(TrackingAllocator::kAlignment, rounded);
}
void freeHeapBlock(void *block) noexcept {
    std::free(block);
}
} // namespace

BlockSource heapBlocks() {
    return {alignedHeapBlock, freeHeapBlock, "host"};
}

float *TrackingAllocator::allocate(std::int64_t bytes) {
    if (bytes <= 0)
        throw InvalidArgument("buffer size must be positive, got " + std::to_string(bytes));
    float *result = nullptr;
    if (auto found = cache_.find(bytes); found != cache_.end() && !found->second.empty()) {
        result = found->second.back();
        found->second.pop_back();
        cached_ -= bytes;
    } else {
        result = fresh(bytes);
    }
    live_ += bytes;
    ++allocations_;
    if (live_ > peak_)
        peak_ = live_;
    return result;
}

float *TrackingAllocator::fresh(std::int64_t bytes) {
    void *p = source_.acquire(static_cast<std::size_t>(bytes));
    if (!p)
        throw OutOfMemory(std::string(source_.memory) + " out of memory: asked " + formatBytes(bytes) + " (" + std::to_string(bytes) +
                          " bytes) with " + formatBytes(live_) + " of activations live and " + formatBytes(cached_) +
                          " cached");
    return static_cast<float *>(p);
}

void TrackingAllocator::release(float *pointer, std::int64_t bytes) noexcept {
    live_ -= bytes;
    try {
        cache_[bytes].push_back(pointer);
        cached_ += bytes;
    } catch (...) { // no room to remember it: give it back instead
        source_.give(pointer);
    }
}

void TrackingAllocator::trim() noexcept {
    for (auto &[bytes, blocks] : cache_)
        for (float *p : blocks)
            source_.give(p);
    cache_.clear();
    cached_ = 0;
}

} // namespace remat::exec
