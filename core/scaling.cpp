#include "core/scaling.h"

#include "core/errors.h"

#include <cmath>

namespace remat {

double logLogSlope(const std::vector<double> &n, const std::vector<double> &y) {
    if (n.size() != y.size() || n.size() < 2)
        throw InvalidArgument("a slope needs at least two points");
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (std::size_t i = 0; i < n.size(); ++i) {
        if (!(n[i] > 0) || !(y[i] > 0))
            throw InvalidArgument("log-log slope needs positive values");
        const double lx = std::log(n[i]), ly = std::log(y[i]);
        sx += lx;
        sy += ly;
        sxx += lx * lx;
        sxy += lx * ly;
    }
    const double k = static_cast<double>(n.size());
    const double denom = k * sxx - sx * sx;
    if (std::fabs(denom) < 1e-12)
        throw InvalidArgument("a slope needs at least two distinct n");
    return (k * sxy - sx * sy) / denom;
}

} // namespace remat
