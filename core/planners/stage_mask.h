#pragma once
// Sets of forward positions as 64-bit masks, shared by the graph stage
// search and its memory bound (a graph of up to 63 layers).
#include <bit>
#include <cstdint>
#include <vector>

namespace remat::planners {

using StageMask = std::uint64_t;

constexpr StageMask bitOf(int p) { return StageMask{1} << p; }

// Forward positions 1..k.
constexpr StageMask upTo(int k) {
    return k <= 0 ? 0 : (k >= 63 ? ~StageMask{0} << 1 : ((StageMask{1} << (k + 1)) - 2));
}

// The sum of `values` over the positions in `m`.
inline std::int64_t sumOf(StageMask m, const std::vector<std::int64_t> &values) {
    std::int64_t total = 0;
    for (; m; m &= m - 1)
        total += values[static_cast<std::size_t>(std::countr_zero(m))];
    return total;
}

} // namespace remat::planners
