#pragma once
// The binomial arithmetic of Griewank & Walther's revolve (ACM TOMS 2000,
// Algorithm 799). Reversing l states x_0..x_{l-1} with c checkpoint slots costs
// at least T(l, c) = r*l - beta(c+1, r-1) forward steps, where beta(s, t) =
// C(s+t, s) and r is the repetition number: beta(c, r-1) < l <= beta(c, r).
// In the chain model a_0..a_n is reversed with l = n+1 (docs/planners.md).
#include <cstdint>

namespace remat::planners {

// C(s+t, s), saturated at kBinomialCap so that comparisons with chain lengths
// stay correct without overflow.
constexpr std::int64_t kBinomialCap = std::int64_t{1} << 62;
std::int64_t beta(std::int64_t s, std::int64_t t);

// r with beta(c, r-1) < l <= beta(c, r); l >= 1, c >= 1.
std::int64_t repetitionNumber(std::int64_t l, std::int64_t c);
// T(l, c), the proven minimum of forward steps; 0 for l = 1.
std::int64_t revolveForwardSteps(std::int64_t l, std::int64_t c);
// How far the first advance of an optimal schedule goes from the leftmost of
// l states with c slots: a distance d in 1..l-1 with
// d + T(l-d, c-1) + T(d, c) = T(l, c). Needs l >= 2 and c >= 1.
std::int64_t revolveAdvance(std::int64_t l, std::int64_t c);

} // namespace remat::planners
