// Every kernel of gpu/kernels.h against a CPU reference (llm.c style), on sizes
// that are not multiples of the block or tile size, and one beyond the grid.
#include "gpu/check/check.h"
#include "gpu/check/device_data.h"
#include "gpu/kernels.h"

#include <cmath>
#include <cstdint>
#include <string>

namespace remat::gpu::check {

namespace {

// tanh, its derivative and the difference on `count` values.
CheckList elementwise(std::int64_t count) {
    std::string size = " count=";
    size += std::to_string(count);
    CheckList out;
    out.push_back({"kernel/tanh" + size, [count] {
                       const auto a = randomValues(count, 4.0f, 1);
                       const DeviceBuffer da = toDevice(a), dout = toDevice(std::vector<float>(a.size()));
                       launchTanh(da.data(), dout.data(), count, nullptr);
                       std::vector<float> ref(a.size());
                       for (std::size_t k = 0; k < a.size(); ++k)
                           ref[k] = std::tanh(a[k]);
                       const double w = worstRelative(toHost(dout), ref);
                       // tanhf is within 2 ulp on both sides.
                       return expect(w <= 4e-7, "max relative difference " + number(w) + " (allowed 4e-7)");
                   }});
    out.push_back({"kernel/tanh-backward" + size, [count] {
                       const auto t = randomValues(count, 1.0f, 2), g = randomValues(count, 4.0f, 3);
                       const DeviceBuffer dt = toDevice(t), dg = toDevice(g);
                       launchTanhBackward(dt.data(), dg.data(), count, nullptr);
                       std::vector<float> ref(g.size());
                       for (std::size_t k = 0; k < g.size(); ++k)
                           ref[k] = g[k] * (1.0f - t[k] * t[k]);
                       // nvcc fuses 1 - t*t into one FMA: up to an ulp of t*t, times |g| <= 4.
                       const double w = worstRelative(toHost(dg), ref);
                       return expect(w <= 1e-6, "max relative difference " + number(w) + " (allowed 1e-6)");
                   }});
    out.push_back({"kernel/subtract" + size, [count] {
                       const auto a = randomValues(count, 4.0f, 4), b = randomValues(count, 4.0f, 5);
                       const DeviceBuffer da = toDevice(a), db = toDevice(b),
                                          dout = toDevice(std::vector<float>(a.size()));
                       launchSubtract(da.data(), db.data(), dout.data(), count, nullptr);
                       std::vector<float> ref(a.size());
                       for (std::size_t k = 0; k < a.size(); ++k)
                           ref[k] = a[k] - b[k];
                       // One rounding, identical on both sides.
                       return expect(toHost(dout) == ref, "bitwise equal to the CPU's a - b");
                   }});
    return out;
}

// The bias broadcast and the bias-gradient reduction on a rows x cols matrix.
CheckList columns(int rows, int cols) {
    std::string size = " ";
    size += matrixSize(rows, cols);
    const std::int64_t count = std::int64_t{rows} * cols;
    CheckList out;
    out.push_back({"kernel/broadcast-columns" + size, [rows, count] {
                       const auto bias = randomValues(rows, 1.0f, 6);
                       const DeviceBuffer dbias = toDevice(bias), dout = toDevice(std::vector<float>(count));
                       launchBroadcastColumns(dbias.data(), dout.data(), rows, static_cast<int>(count / rows), nullptr);
                       std::vector<float> ref(static_cast<std::size_t>(count));
                       for (std::int64_t k = 0; k < count; ++k)
                           ref[static_cast<std::size_t>(k)] = bias[static_cast<std::size_t>(k % rows)];
                       return expect(toHost(dout) == ref, "every column bitwise equal to the bias");
                   }});
    out.push_back({"kernel/row-sums" + size, [rows, cols, count] {
                       const auto m = randomValues(count, 1.0f, 7);
                       const DeviceBuffer dm = toDevice(m), dsums = toDevice(std::vector<float>(rows));
                       launchRowSums(dm.data(), dsums.data(), rows, cols, nullptr);
                       const auto first = toHost(dsums);
                       launchRowSums(dm.data(), dsums.data(), rows, cols, nullptr);
                       const auto second = toHost(dsums);
                       std::vector<float> ref(static_cast<std::size_t>(rows));
                       rowSumsReference(m.data(), ref.data(), rows, cols);
                       if (first != second)
                           return fail("two launches on the same data gave different bits");
                       return expect(first == ref, "bitwise equal to rowSumsReference (the kernel's order), twice");
                   }});
    return out;
}

} // namespace

CheckList kernelChecks() {
    CheckList out;
    for (const std::int64_t count : {std::int64_t{1}, std::int64_t{257}, (std::int64_t{1} << 20) + 3,
                                     std::int64_t{65535} * 256 + 17}) // the last is beyond one grid
        for (Check &c : elementwise(count))
            out.push_back(std::move(c));
    for (const auto &[rows, cols] : {std::pair{1, 1}, {33, 7}, {1024, 256}, {3, 5000}, {70000, 3}})
        for (Check &c : columns(rows, cols))
            out.push_back(std::move(c));
    return out;
}

} // namespace remat::gpu::check
