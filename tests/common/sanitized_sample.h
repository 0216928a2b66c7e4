#pragma once
// A sanitizer build runs the suite several times slower, and what it looks
// for (memory errors, undefined behaviour) shows on any case that takes a
// code path. So the randomized and swept properties run every case in the
// plain build, where their statistics are held to, and a fixed sample under
// AddressSanitizer: every fifth case from the first (five shares no factor with the
// small moduli the cases vary by, so the sample varies as the whole does).

namespace remat::test {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr int kSanitizedStride = 5;
#else
inline constexpr int kSanitizedStride = 1;
#endif

// Whether case `k` (counted from 1) of a property runs in this build.
constexpr bool caseRuns(unsigned k) { return k % kSanitizedStride == 1 % kSanitizedStride; }

// A count the plain build must reach (cases run, budgets met), scaled to the
// sample: at least one where the plain count is.
constexpr int sampledCount(int plain) { return plain > 0 && plain < kSanitizedStride ? 1 : plain / kSanitizedStride; }

} // namespace remat::test
