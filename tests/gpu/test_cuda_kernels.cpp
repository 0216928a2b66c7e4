// Every CUDA kernel against a CPU reference (llm.c style), on sizes that are
// not multiples of the block size.
#include "cuda_skip.h"

#include "gpu/device_buffer.h"
#include "gpu/kernels.h"

#include <cmath>
#include <random>
#include <vector>

using namespace remat::gpu;

namespace {

std::vector<float> randomValues(std::int64_t count, float scale, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-scale, scale);
    std::vector<float> v(static_cast<std::size_t>(count));
    for (float &x : v)
        x = u(rng);
    return v;
}

DeviceBuffer toDevice(const std::vector<float> &host) {
    DeviceBuffer b(static_cast<std::int64_t>(host.size() * sizeof(float)));
    b.upload(host.data(), b.bytes());
    return b;
}

std::vector<float> toHost(const DeviceBuffer &b) {
    REMAT_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<float> v(static_cast<std::size_t>(b.bytes()) / sizeof(float));
    b.download(v.data(), b.bytes());
    return v;
}

// Largest |gpu - cpu| relative to max(1, |cpu|).
double worst(const std::vector<float> &gpu, const std::vector<float> &cpu) {
    double w = 0;
    for (std::size_t k = 0; k < cpu.size(); ++k)
        w = std::max(w, std::fabs(static_cast<double>(gpu[k]) - cpu[k]) / std::max(1.0, std::fabs(double{cpu[k]})));
    return w;
}

} // namespace

class TestCudaKernels : public QObject {
    Q_OBJECT

private slots:
    void init() { REMAT_REQUIRE_CUDA(); }

    void elementwise_data() {
        QTest::addColumn<qlonglong>("count");
        QTest::newRow("1") << 1LL;
        QTest::newRow("257") << 257LL;
        QTest::newRow("1M+3") << (1LL << 20) + 3;
        QTest::newRow("beyond the grid") << 65535LL * 256 + 17;
    }
    void elementwise() {
        QFETCH(qlonglong, count);
        const auto a = randomValues(count, 4.0f, 1), b = randomValues(count, 4.0f, 2);
        const DeviceBuffer da = toDevice(a), db = toDevice(b), out = toDevice(std::vector<float>(a.size()));

        launchTanh(da.data(), out.data(), count, nullptr);
        std::vector<float> ref(a.size());
        for (std::size_t k = 0; k < a.size(); ++k)
            ref[k] = std::tanh(a[k]);
        QVERIFY(worst(toHost(out), ref) <= 4e-7); // tanhf is within 2 ulp on both sides

        const DeviceBuffer grad = toDevice(b);
        launchTanhBackward(out.data(), grad.data(), count, nullptr);
        const auto t = toHost(out);
        for (std::size_t k = 0; k < a.size(); ++k)
            ref[k] = b[k] * (1.0f - t[k] * t[k]);
        // nvcc fuses 1 - t*t into one FMA; near |t| = 1 that differs from the
        // CPU's two roundings by up to an ulp of t*t, times |grad| <= 4.
        QVERIFY(worst(toHost(grad), ref) <= 1e-6);

        launchSubtract(da.data(), db.data(), out.data(), count, nullptr);
        for (std::size_t k = 0; k < a.size(); ++k)
            ref[k] = a[k] - b[k];
        QCOMPARE(toHost(out), ref); // one rounding, identical on both
    }

    void columns_data() {
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("cols");
        QTest::newRow("1x1") << 1 << 1;
        QTest::newRow("33x7") << 33 << 7;
        QTest::newRow("1024x256") << 1024 << 256;
        QTest::newRow("3x5000") << 3 << 5000;
    }
    void columns() {
        QFETCH(int, rows);
        QFETCH(int, cols);
        const std::int64_t count = std::int64_t{rows} * cols;
        const auto bias = randomValues(rows, 1.0f, 3), m = randomValues(count, 1.0f, 4);
        const DeviceBuffer dbias = toDevice(bias), dm = toDevice(m), out = toDevice(std::vector<float>(m.size()));
        launchBroadcastColumns(dbias.data(), out.data(), rows, cols, nullptr);
        const auto broadcast = toHost(out);
        for (std::int64_t k = 0; k < count; ++k)
            QCOMPARE(broadcast[static_cast<std::size_t>(k)], bias[static_cast<std::size_t>(k % rows)]);

        const DeviceBuffer sums = toDevice(std::vector<float>(bias.size()));
        launchRowSums(dm.data(), sums.data(), rows, cols, nullptr);
        std::vector<float> ref(bias.size(), 0.0f);
        for (int r = 0; r < rows; ++r)
            for (int c = 0; c < cols; ++c)
                ref[r] += m[static_cast<std::size_t>(r + std::int64_t{c} * rows)]; // the kernel's order
        QCOMPARE(toHost(sums), ref);
    }
};

QTEST_GUILESS_MAIN(TestCudaKernels)
#include "test_cuda_kernels.moc"
