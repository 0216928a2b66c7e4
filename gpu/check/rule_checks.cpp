// Host-only checks: the CPU reference of the bias-gradient reduction is a sum,
// and the pool-peak rule of `remat measure --verify` accepts and refuses what
// it should. They need no device, so CTest runs them on every machine.
#include "gpu/check/check.h"
#include "gpu/check/device_data.h"
#include "gpu/cuda_backend.h"
#include "gpu/kernels.h"

#include <cmath>
#include <cstdint>
#include <string>

namespace remat::gpu::check {

namespace {

Outcome rowSumsReferenceIsASum(int rows, int cols) {
    // Small integers: every partial sum is exact in fp32 (|sum| < 2^24), so
    // any order must give exactly the integer sum; a missed or doubled column
    // cannot hide in rounding.
    std::vector<float> m = randomValues(std::int64_t{rows} * cols, 8.0f, 11);
    for (float &x : m)
        x = std::round(x);
    std::vector<float> sums(static_cast<std::size_t>(rows));
    rowSumsReference(m.data(), sums.data(), rows, cols);
    for (int r = 0; r < rows; ++r) {
        std::int64_t exact = 0;
        for (int c = 0; c < cols; ++c)
            exact += static_cast<std::int64_t>(m[static_cast<std::size_t>(r + std::int64_t{c} * rows)]);
        if (sums[static_cast<std::size_t>(r)] != static_cast<float>(exact))
            return fail("row " + std::to_string(r) + ": " + number(sums[static_cast<std::size_t>(r)]) +
                        ", the exact sum is " + std::to_string(exact));
    }
    return pass("every row equals its exact integer sum");
}

// poolPeakMismatch(model, predicted, observed) must return `refused`.
Outcome poolRule(exec::NetworkShape shape, std::int64_t predicted, std::optional<std::int64_t> observed, bool refused) {
    const auto why = poolPeakMismatch(exec::networkModel(shape), predicted, observed);
    if (why.has_value() != refused)
        return fail(refused ? "accepted" : "refused: " + *why);
    return pass(refused ? "refused: " + *why : "accepted");
}

// The pool rule's exact case is reachable for the transformer: the shape the
// backend checks use is whole pages, and a small odd one is not.
Outcome transformerPages() {
    const exec::TransformerShape odd{2, 24, 3, 5, 3};
    if (!poolPeakIsExact(exec::transformerModel(kTransformerWholePagesShape)))
        return fail("kTransformerWholePagesShape has a buffer that is not whole pages");
    if (poolPeakIsExact(exec::transformerModel(odd)))
        return fail("a transformer with 72-float layers counted as whole pages");
    return pass("kTransformerWholePagesShape is whole pages, h=24 s=5 b=3 is not");
}

} // namespace

CheckList ruleChecks() {
    CheckList out;
    for (const auto &[rows, cols] : {std::pair{33, 7}, {1024, 256}, {3, 5000}})
        out.push_back({std::string("rule/row-sums-reference ").append(matrixSize(rows, cols)),
                       [rows, cols] { return rowSumsReferenceIsASum(rows, cols); }, false});
    const exec::NetworkShape pages{8, 1024, 512}, odd{6, 33, 7}; // 2 MiB nodes; 924-byte nodes
    const std::int64_t p = 10 * pages.nodeBytes(), q = 10 * odd.nodeBytes();
    const struct {
        const char *what;
        exec::NetworkShape shape;
        std::int64_t predicted;
        std::optional<std::int64_t> observed;
        bool refused;
    } cases[] = {
        {"whole pages, equal", pages, p, p, false},
        {"whole pages, one page more", pages, p, p + kPoolPageBytes, true},
        {"whole pages, below", pages, p, p - pages.nodeBytes(), true},
        {"odd sizes, rounded up", odd, q, q + 4096, false},
        {"odd sizes, equal", odd, q, q, false},
        {"odd sizes, below", odd, q, q - 4, true},
        {"nothing allocated", odd, q, 0, true},
        {"no figure", pages, p, std::nullopt, true},
    };
    for (const auto &c : cases)
        out.push_back({std::string("rule/pool-peak ") + c.what,
                       [c] { return poolRule(c.shape, c.predicted, c.observed, c.refused); }, false});
    out.push_back({"rule/pool-peak transformer whole pages", transformerPages, false});
    return out;
}

} // namespace remat::gpu::check
