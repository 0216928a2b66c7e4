#pragma once
// Wall-clock seconds for the planner benchmarks (their budgets are work,
// never time; the clock only reports).
#include <chrono>

namespace remat::bench {

using Clock = std::chrono::steady_clock;

inline double seconds(Clock::time_point since) {
    return std::chrono::duration<double>(Clock::now() - since).count();
}

} // namespace remat::bench
