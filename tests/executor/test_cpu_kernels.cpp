// The CPU kernels of every instruction set this CPU runs (cpu_kernels.h): each
// computes what its BLAS-like contract says, every strategy gives store-all's
// gradients bit for bit on each, the variants agree with one another within
// fp32 rounding, and REMAT_CPU_ISA picks one or fails clearly.
#include "core/errors.h"
#include "core/executor/cpu_backend.h"
#include "core/executor/cpu_kernels.h"
#include "core/executor/network.h"
#include "core/executor/transformer_math.h"
#include "step_helpers.h"

#include <QtTest>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <optional>

using namespace remat;
using namespace remat::exec;
using cpu::Index;
using cpu::Isa;
using cpu::Transpose;

Q_DECLARE_METATYPE(remat::exec::cpu::Isa)
Q_DECLARE_METATYPE(remat::exec::cpu::Transpose)

namespace {

// Values in [-1, 1) from a fixed recurrence, different per `salt`.
std::vector<float> values(std::size_t count, unsigned salt) {
    std::vector<float> out(count);
    std::uint32_t x = 2463534242u + salt * 7919u;
    for (float &v : out) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        v = static_cast<float>(x % 2000u) / 1000.0f - 1.0f;
    }
    return out;
}

// Element (r, c) of op(X), X stored column-major with leading dimension ld.
double at(const std::vector<float> &X, Index ld, Transpose t, Index r, Index c) {
    return t == Transpose::Yes ? X[static_cast<std::size_t>(c + r * ld)] : X[static_cast<std::size_t>(r + c * ld)];
}

// GEMM packing space, aligned as the kernels want it.
class PackingBuffer {
public:
    explicit PackingBuffer(Index floats)
        : data_(static_cast<float *>(std::aligned_alloc(64, static_cast<std::size_t>(floats + 16) * 4 / 64 * 64 + 64))) {}
    ~PackingBuffer() { std::free(data_); }
    PackingBuffer(const PackingBuffer &) = delete;
    PackingBuffer &operator=(const PackingBuffer &) = delete;
    float *data() const { return data_; }

private:
    float *data_;
};

// Restores REMAT_CPU_ISA as it was when the test began.
class IsaEnvironment {
public:
    IsaEnvironment() : saved_(qgetenv("REMAT_CPU_ISA")), had_(qEnvironmentVariableIsSet("REMAT_CPU_ISA")) {}
    ~IsaEnvironment() {
        if (had_)
            qputenv("REMAT_CPU_ISA", saved_);
        else
            qunsetenv("REMAT_CPU_ISA");
    }
    IsaEnvironment(const IsaEnvironment &) = delete;
    IsaEnvironment &operator=(const IsaEnvironment &) = delete;

private:
    QByteArray saved_;
    bool had_;
};

void addRowPerIsa(const char *suffix = "") {
    QTest::addColumn<Isa>("isa");
    for (Isa isa : cpu::supportedIsas())
        QTest::newRow((std::string(cpu::isaName(isa)) + suffix).c_str()) << isa;
}

} // namespace

class TestCpuKernels : public QObject {
    Q_OBJECT

private slots:
    // Every x86-64 CPU runs the baseline; the fastest supported is the default.
    void baselineAlwaysRunsAndDefaultIsFastest() {
        const IsaEnvironment restore;
        qunsetenv("REMAT_CPU_ISA");
        const auto supported = cpu::supportedIsas();
        QVERIFY(!supported.empty());
        QCOMPARE(supported.front(), Isa::Baseline);
        QCOMPARE(cpu::selectedIsa(), supported.back());
        QCOMPARE(CpuBackend(std::make_shared<const NetworkParameters>(NetworkParameters::generate({2, 4, 2}))).isa(),
                 supported.back());
    }

    void environmentChoosesVariant_data() { addRowPerIsa(); }
    void environmentChoosesVariant() {
        QFETCH(Isa, isa);
        const IsaEnvironment restore;
        qputenv("REMAT_CPU_ISA", QByteArray(cpu::isaName(isa).data(), qsizetype(cpu::isaName(isa).size())));
        QCOMPARE(cpu::selectedIsa(), isa);
        const CpuBackend backend(std::make_shared<const NetworkParameters>(NetworkParameters::generate({2, 4, 2})));
        QCOMPARE(backend.isa(), isa);
        QVERIFY2(QString::fromStdString(backend.deviceName()).contains(QLatin1String(cpu::isaLabel(isa).data())),
                 backend.deviceName().c_str());
    }

    void unknownVariantIsRejected_data() {
        QTest::addColumn<QByteArray>("value");
        QTest::newRow("misspelt") << QByteArray("avx-512");
        QTest::newRow("upper case") << QByteArray("AVX2");
        QTest::newRow("other architecture") << QByteArray("neon");
    }
    void unknownVariantIsRejected() {
        QFETCH(QByteArray, value);
        const IsaEnvironment restore;
        qputenv("REMAT_CPU_ISA", value);
        try {
            cpu::selectedIsa();
            QFAIL("accepted an unknown REMAT_CPU_ISA");
        } catch (const InvalidArgument &e) {
            const QString message = e.what();
            QVERIFY2(message.contains("REMAT_CPU_ISA") && message.contains("'" + QString(value) + "'") &&
                         message.contains("baseline, avx2, avx512"),
                     e.what());
        }
    }

    // The BLAS contract, against double-precision loops: both transposes,
    // leading dimensions larger than the matrices, alpha and beta, and sizes
    // that leave partial vector registers.
    void gemmFollowsBlasContract_data() {
        QTest::addColumn<Isa>("isa");
        QTest::addColumn<Transpose>("transA");
        QTest::addColumn<Transpose>("transB");
        QTest::addColumn<float>("alpha");
        QTest::addColumn<float>("beta");
        for (Isa isa : cpu::supportedIsas())
            for (Transpose ta : {Transpose::No, Transpose::Yes})
                for (Transpose tb : {Transpose::No, Transpose::Yes})
                    for (auto [alpha, beta] : {std::pair{1.0f, 0.0f}, std::pair{0.5f, 1.0f}, std::pair{-2.0f, 0.25f}}) {
                        const std::string row = std::string(cpu::isaName(isa)) +
                                                (ta == Transpose::Yes ? " A^T" : " A") +
                                                (tb == Transpose::Yes ? " B^T" : " B") + " alpha " +
                                                std::to_string(alpha) + " beta " + std::to_string(beta);
                        QTest::newRow(row.c_str()) << isa << ta << tb << alpha << beta;
                    }
    }
    void gemmFollowsBlasContract() {
        QFETCH(Isa, isa);
        QFETCH(Transpose, transA);
        QFETCH(Transpose, transB);
        QFETCH(float, alpha);
        QFETCH(float, beta);
        const Index m = 37, n = 29, k = 70; // op(A) m x k, op(B) k x n
        const Index lda = (transA == Transpose::Yes ? k : m) + 3, ldb = (transB == Transpose::Yes ? n : k) + 5,
                    ldc = m + 2;
        const auto A = values(static_cast<std::size_t>(lda * (transA == Transpose::Yes ? m : k)), 1);
        const auto B = values(static_cast<std::size_t>(ldb * (transB == Transpose::Yes ? k : n)), 2);
        auto C = values(static_cast<std::size_t>(ldc * n), 3);
        if (beta == 0.0f) // C is only written: garbage in it must not leak out
            std::fill(C.begin(), C.end(), std::nanf(""));
        const std::vector<float> before = C;
        const cpu::Kernels &kernels = cpu::kernels(isa);
        const PackingBuffer packing(kernels.gemmPackingFloats(m, n, k));
        kernels.gemm(transA, transB, m, n, k, alpha, A.data(), lda, B.data(), ldb, beta, C.data(), ldc, packing.data());
        double worst = 0;
        for (Index c = 0; c < n; ++c)
            for (Index r = 0; r < ldc; ++r) {
                const auto u = static_cast<std::size_t>(r + c * ldc);
                if (r >= m) { // outside the matrix: untouched
                    QVERIFY(C[u] == before[u] || (std::isnan(C[u]) && std::isnan(before[u])));
                    continue;
                }
                double sum = 0;
                for (Index p = 0; p < k; ++p)
                    sum += at(A, lda, transA, r, p) * at(B, ldb, transB, p, c);
                const double expected = alpha * sum + (beta == 0.0f ? 0.0 : beta * double(before[u]));
                worst = std::max(worst, std::fabs(expected - C[u]));
            }
        QVERIFY2(worst < 1e-4, qPrintable(QString("max |diff| %1").arg(worst)));
    }

    // The elementwise and reduction kernels the tanh network uses.
    void elementwiseKernelsMatchScalarMath_data() { addRowPerIsa(); }
    void elementwiseKernelsMatchScalarMath() {
        QFETCH(Isa, isa);
        const cpu::Kernels &k = cpu::kernels(isa);
        const Index m = 19, n = 7, ld = 23, count = 301;
        const auto x = values(count, 4), y = values(count, 5);
        std::vector<float> t(count), g = y, d(count);
        k.tanh(count, x.data(), t.data());
        k.mulTanhDerivative(count, t.data(), g.data());
        k.subtract(count, x.data(), y.data(), d.data());
        double worst = 0;
        for (std::size_t i = 0; i < std::size_t(count); ++i) {
            const double ti = std::tanh(double(x[i]));
            worst = std::max({worst, std::fabs(t[i] - ti), std::fabs(g[i] - y[i] * (1 - double(t[i]) * t[i])),
                              std::fabs(d[i] - (double(x[i]) - y[i]))});
        }
        const auto bias = values(m, 6), A = values(static_cast<std::size_t>(ld * n), 7);
        auto C = A;
        std::vector<float> sums(m);
        k.addBias(m, n, bias.data(), C.data(), ld);
        k.rowSums(m, n, A.data(), ld, sums.data());
        for (Index r = 0; r < ld; ++r) {
            double sum = 0;
            for (Index c = 0; c < n; ++c) {
                const auto u = static_cast<std::size_t>(r + c * ld);
                sum += A[u];
                worst = std::max(worst, std::fabs(C[u] - (r < m ? double(A[u]) + bias[std::size_t(r)] : A[u])));
            }
            if (r < m)
                worst = std::max(worst, std::fabs(sums[std::size_t(r)] - sum));
        }
        QVERIFY2(worst < 1e-5, qPrintable(QString("max |diff| %1").arg(worst)));
    }

    // The transformer's kernels against the plain-loop references of
    // transformer_math.h (float), on sizes that leave partial vectors:
    // within a few float ulps (the vector exp and tanh are Eigen's
    // approximations; sums run in four vector lanes).
    void transformerKernelsMatchReferences_data() { addRowPerIsa(); }
    void transformerKernelsMatchReferences() {
        QFETCH(Isa, isa);
        const cpu::Kernels &k = cpu::kernels(isa);
        const int c = 37;
        const Index tokens = 11, count = c * tokens;
        auto x = values(count, 8), dy = values(count, 9), gamma = values(c, 10), beta = values(c, 11);
        for (float &g : gamma)
            g += 1.0f;
        const auto close = [](const std::vector<float> &a, const std::vector<float> &b, double tolerance) {
            double worst = 0;
            for (std::size_t i = 0; i < a.size(); ++i)
                worst = std::max(worst, std::fabs(double(a[i]) - b[i]) / std::max(1.0, std::fabs(double(b[i]))));
            return worst <= tolerance ? QString() : QString("max relative diff %1").arg(worst);
        };
        // GELU and its derivative, over a range that reaches tanh's flat ends.
        std::vector<float> u(count);
        for (Index i = 0; i < count; ++i)
            u[std::size_t(i)] = 12.0f * x[std::size_t(i)];
        std::vector<float> g(count), gRef(count), du(count), duRef(count);
        k.gelu(count, u.data(), g.data());
        math::geluForward(u.data(), gRef.data(), count);
        QVERIFY2(close(g, gRef, 2e-6).isEmpty(), qPrintable("gelu: " + close(g, gRef, 2e-6)));
        k.geluBackward(count, u.data(), dy.data(), du.data());
        math::geluBackward(u.data(), dy.data(), duRef.data(), count);
        QVERIFY2(close(du, duRef, 4e-6).isEmpty(), qPrintable("gelu backward: " + close(du, duRef, 4e-6)));
        // LayerNorm forward, apply, backward.
        std::vector<float> y(count), yRef(count), mean(tokens), rstd(tokens), meanRef(tokens), rstdRef(tokens);
        k.layerNormForward(c, tokens, x.data(), gamma.data(), beta.data(), y.data(), mean.data(), rstd.data());
        math::layerNormForward(x.data(), gamma.data(), beta.data(), yRef.data(), meanRef.data(), rstdRef.data(), c,
                               tokens);
        QVERIFY2(close(mean, meanRef, 1e-6).isEmpty(), qPrintable("mean: " + close(mean, meanRef, 1e-6)));
        QVERIFY2(close(rstd, rstdRef, 2e-6).isEmpty(), qPrintable("rstd: " + close(rstd, rstdRef, 2e-6)));
        QVERIFY2(close(y, yRef, 4e-6).isEmpty(), qPrintable("LayerNorm: " + close(y, yRef, 4e-6)));
        std::vector<float> applied(count);
        k.layerNormApply(c, tokens, x.data(), mean.data(), rstd.data(), gamma.data(), beta.data(), applied.data());
        QVERIFY(applied == y); // bitwise what the forward wrote
        std::vector<float> dx = dy, dxRef = dy, dgamma(c), dbeta(c), dgammaRef(c), dbetaRef(c);
        k.layerNormBackwardInput(c, tokens, dy.data(), x.data(), mean.data(), rstd.data(), gamma.data(), dx.data());
        k.layerNormBackwardParameters(c, c, tokens, dy.data(), x.data(), mean.data(), rstd.data(), dgamma.data(),
                                      dbeta.data());
        math::layerNormBackward(dy.data(), x.data(), mean.data(), rstd.data(), gamma.data(), dxRef.data(),
                                dgammaRef.data(), dbetaRef.data(), c, tokens);
        QVERIFY2(close(dx, dxRef, 2e-5).isEmpty(), qPrintable("LayerNorm dx: " + close(dx, dxRef, 2e-5)));
        QVERIFY2(close(dgamma, dgammaRef, 2e-6).isEmpty(), qPrintable("dgamma: " + close(dgamma, dgammaRef, 2e-6)));
        QVERIFY2(close(dbeta, dbetaRef, 2e-6).isEmpty(), qPrintable("dbeta: " + close(dbeta, dbetaRef, 2e-6)));
        // Softmax of scaled scores down 11 columns of 37, and its backward.
        const float scale = 0.37f;
        std::vector<float> p(count), pRef(count);
        for (Index i = 0; i < count; ++i)
            p[std::size_t(i)] = pRef[std::size_t(i)] = 20.0f * x[std::size_t(i)];
        k.scaledSoftmax(c, tokens, scale, p.data());
        for (float &v : pRef)
            v *= scale;
        math::softmaxForward(pRef.data(), c, tokens);
        QVERIFY2(close(p, pRef, 2e-6).isEmpty(), qPrintable("softmax: " + close(p, pRef, 2e-6)));
        std::vector<float> dz(count), dzRef(count);
        k.scaledSoftmaxBackward(c, tokens, scale, p.data(), dy.data(), dz.data());
        math::softmaxBackward(p.data(), dy.data(), dzRef.data(), c, tokens);
        for (float &v : dzRef)
            v *= scale;
        QVERIFY2(close(dz, dzRef, 2e-6).isEmpty(), qPrintable("softmax backward: " + close(dz, dzRef, 2e-6)));
    }

    // A value's bits depend on neither its address nor where a range is cut:
    // what lets CpuOps cut ops into tasks (and a recording forward compute in
    // the saved buffers what a discarding one computes in the workspace).
    void kernelsIgnoreAddressAndCuts_data() { addRowPerIsa(); }
    void kernelsIgnoreAddressAndCuts() {
        QFETCH(Isa, isa);
        const cpu::Kernels &k = cpu::kernels(isa);
        const Index count = 203, cut = 77; // neither a multiple of any vector width
        const auto x = values(count, 12);
        // The same range at an odd address, in two calls.
        std::vector<float> shifted(count + 1);
        std::copy(x.begin(), x.end(), shifted.begin() + 1);
        const auto whole = [&](auto kernel) {
            std::vector<float> out(count);
            kernel(count, x.data(), out.data());
            return out;
        };
        const auto split = [&](auto kernel) {
            std::vector<float> out(count + 1);
            kernel(cut, shifted.data() + 1, out.data() + 1);
            kernel(count - cut, shifted.data() + 1 + cut, out.data() + 1 + cut);
            return std::vector<float>(out.begin() + 1, out.end());
        };
        const auto gelu = [&](Index n, const float *in, float *out) { k.gelu(n, in, out); };
        const auto tanh = [&](Index n, const float *in, float *out) { k.tanh(n, in, out); };
        const auto dgelu = [&](Index n, const float *in, float *out) { k.geluBackward(n, in, in, out); };
        QVERIFY(whole(gelu) == split(gelu));
        QVERIFY(whole(tanh) == split(tanh));
        QVERIFY(whole(dgelu) == split(dgelu));
        // Per-token and per-column kernels: a token or column at an odd address.
        const Index c = 29, tokens = 7;
        std::vector<float> a(c * tokens), b(c * tokens + 1), mean(tokens), rstd(tokens), mean2(tokens + 1),
            rstd2(tokens + 1);
        const auto gamma = values(c, 13), beta = values(c, 14);
        k.layerNormForward(c, tokens, x.data(), gamma.data(), beta.data(), a.data(), mean.data(), rstd.data());
        k.layerNormForward(c, 3, shifted.data() + 1, gamma.data(), beta.data(), b.data() + 1, mean2.data() + 1,
                           rstd2.data() + 1);
        k.layerNormForward(c, tokens - 3, shifted.data() + 1 + 3 * c, gamma.data(), beta.data(), b.data() + 1 + 3 * c,
                           mean2.data() + 4, rstd2.data() + 4);
        QVERIFY(std::equal(a.begin(), a.end(), b.begin() + 1));
        QVERIFY(std::equal(mean.begin(), mean.end(), mean2.begin() + 1));
        std::vector<float> p(x.begin(), x.begin() + c * tokens), q(c * tokens + 1);
        std::copy(p.begin(), p.end(), q.begin() + 1);
        k.scaledSoftmax(c, tokens, 0.5f, p.data());
        k.scaledSoftmax(c, 2, 0.5f, q.data() + 1);
        k.scaledSoftmax(c, tokens - 2, 0.5f, q.data() + 1 + 2 * c);
        QVERIFY(std::equal(p.begin(), p.end(), q.begin() + 1));
        // Row sums and parameter gradients: rows cut anywhere, each sums its columns in order.
        std::vector<float> sums(c), sums2(c);
        k.rowSums(c, tokens, x.data(), c, sums.data());
        k.rowSums(11, tokens, x.data(), c, sums2.data());
        k.rowSums(c - 11, tokens, x.data() + 11, c, sums2.data() + 11);
        QVERIFY(sums == sums2);
        std::vector<float> dg(c), db(c), dg2(c), db2(c);
        k.layerNormBackwardParameters(c, c, tokens, x.data(), x.data(), mean.data(), rstd.data(), dg.data(), db.data());
        k.layerNormBackwardParameters(5, c, tokens, x.data(), x.data(), mean.data(), rstd.data(), dg2.data(),
                                      db2.data());
        k.layerNormBackwardParameters(c - 5, c, tokens, x.data() + 5, x.data() + 5, mean.data(), rstd.data(),
                                      dg2.data() + 5, db2.data() + 5);
        QVERIFY(dg == dg2);
        QVERIFY(db == db2);
    }

    // Within one variant, every strategy's gradients are store-all's, bit for bit.
    void strategiesBitwiseEqualOnEveryIsa_data() {
        QTest::addColumn<Isa>("isa");
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("width");
        QTest::addColumn<int>("batch");
        for (Isa isa : cpu::supportedIsas()) {
            const std::string name(cpu::isaName(isa));
            QTest::newRow((name + " n=9 w=24 b=5").c_str()) << isa << 9 << 24 << 5;
            QTest::newRow((name + " n=7 w=67 b=33").c_str()) << isa << 7 << 67 << 33;
        }
    }
    void strategiesBitwiseEqualOnEveryIsa() {
        QFETCH(Isa, isa);
        QFETCH(int, n);
        QFETCH(int, width);
        QFETCH(int, batch);
        const auto params = std::make_shared<const NetworkParameters>(NetworkParameters::generate({n, width, batch}));
        const Model model = networkModel(params->shape);
        CpuBackend backend(params, isa);
        const Gradients reference =
            testing::runOnce(backend, model, StrategyRegistry::builtin().get("store-all").makeSchedule(model, {}));
        for (const testing::Planned &p : testing::allSchedules(model)) {
            const Gradients g = testing::runOnce(backend, model, p.schedule);
            QVERIFY2(g.bitwiseEqual(reference), qPrintable(QString::fromStdString(p.strategy) +
                                                           QString(": max |diff| %1").arg(g.maxAbsDiff(reference))));
        }
    }

    // Across variants only rounding differs (FMA, blocking, vectorised tanh):
    // gradients agree to a few fp32 ulps of their largest magnitude.
    void isasAgreeWithinRounding_data() { addRowPerIsa(" vs baseline"); }
    void isasAgreeWithinRounding() {
        QFETCH(Isa, isa);
        const auto params = std::make_shared<const NetworkParameters>(NetworkParameters::generate({6, 96, 40}));
        const Model model = networkModel(params->shape);
        const Schedule s = StrategyRegistry::builtin().get("store-all").makeSchedule(model, {});
        CpuBackend baseline(params, Isa::Baseline), other(params, isa);
        const Gradients a = testing::runOnce(baseline, model, s), b = testing::runOnce(other, model, s);
        double largest = 0;
        for (float v : a.weights)
            largest = std::max(largest, std::fabs(double(v)));
        QVERIFY(largest > 1e-2); // not vacuous
        const double diff = a.maxAbsDiff(b);
        QVERIFY2(diff <= 1e-5 * largest, qPrintable(QString("max |diff| %1, largest %2").arg(diff).arg(largest)));
    }
};

QTEST_GUILESS_MAIN(TestCpuKernels)
#include "test_cpu_kernels.moc"
