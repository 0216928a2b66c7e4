#pragma once
// Growth laws from measurements: the slope of log(y) against log(n), fitted by
// least squares. Slope 1 is O(n), 0.5 is O(sqrt n), 2 is O(n^2).
#include <vector>

namespace remat {

// Needs at least two points with distinct n; all values must be > 0.
// Throws InvalidArgument otherwise.
double logLogSlope(const std::vector<double> &n, const std::vector<double> &y);

} // namespace remat
