#include "core/planners/binomial.h"

#include "core/errors.h"

#include <algorithm>
#include <string>

namespace remat::planners {

std::int64_t beta(std::int64_t s, std::int64_t t) {
    if (s < 0 || t < 0)
        return 0;
    // C(s+t, k) with k = min(s, t), built as a running product of exact binomials.
    const std::int64_t k = std::min(s, t), top = s + t;
    std::int64_t result = 1;
    for (std::int64_t i = 1; i <= k; ++i) {
        const std::int64_t factor = top - k + i;
        // result * factor / i is exact: result*factor is i * C(top-k+i, i).
        if (result > kBinomialCap / factor)
            return kBinomialCap;
        result = result * factor / i;
    }
    return std::min(result, kBinomialCap);
}

std::int64_t repetitionNumber(std::int64_t l, std::int64_t c) {
    if (l < 1 || c < 1)
        throw InvalidArgument("revolve needs l >= 1 states and c >= 1 slots, got l = " + std::to_string(l) +
                              ", c = " + std::to_string(c));
    std::int64_t r = 0;
    while (beta(c, r) < l)
        ++r;
    return r;
}

std::int64_t revolveForwardSteps(std::int64_t l, std::int64_t c) {
    const std::int64_t r = repetitionNumber(l, c);
    return r * l - beta(c + 1, r - 1);
}

std::int64_t revolveAdvance(std::int64_t l, std::int64_t c) {
    if (l < 2)
        throw InvalidArgument("revolveAdvance needs at least two states, got " + std::to_string(l));
    if (c == 1)
        return l - 1; // no slot to spare: run to the end, the last state is the working one
    const std::int64_t r = repetitionNumber(l, c);
    // T(., c) grows by about its repetition number per state, so the split is
    // optimal where the left part (c slots) repeats r-1 times and the right
    // part (c-1 slots) r times: beta(c, r-2) <= d and l - d <= beta(c-1, r).
    // beta(c-1, r) + beta(c, r-1) = beta(c, r) >= l keeps that range non-empty.
    const std::int64_t d = std::max(l - beta(c - 1, r), beta(c, r - 2));
    return std::clamp<std::int64_t>(d, 1, l - 1);
}

} // namespace remat::planners
