#include "core/executor/tracking_allocator.h"

#include "core/errors.h"
#include "core/units.h"

#include <cstdlib>
#include <string>

namespace remat::exec {

float *TrackingAllocator::allocate(std::int64_t bytes) {
    if (bytes <= 0)
        throw InvalidArgument("buffer size must be positive, got " + std::to_string(bytes));
    // aligned_alloc wants a multiple of the alignment.
    const auto rounded = (static_cast<std::size_t>(bytes) + kAlignment - 1) / kAlignment * kAlignment;
    void *p = std::aligned_alloc(kAlignment, rounded);
    if (!p)
        throw OutOfMemory("host out of memory: asked " + formatBytes(bytes) + " (" + std::to_string(bytes) +
                          " bytes) with " + formatBytes(live_) + " of activations already live");
    live_ += bytes;
    ++allocations_;
    if (live_ > peak_)
        peak_ = live_;
    return static_cast<float *>(p);
}

void TrackingAllocator::release(float *pointer, std::int64_t bytes) noexcept {
    std::free(pointer);
    live_ -= bytes;
}

} // namespace remat::exec
