// The transformer layer's math: its forward is the layer of transformer.h
// (checked against plain loops), its backward is the derivative of that
// forward (checked against double-precision finite differences through a
// stack of layers and the loss), the fp32 path agrees with the fp64 one, and
// bad shapes are refused with a message naming the value.
#include "core/errors.h"
#include "core/executor/cpu_ops.h"
#include "core/executor/transformer.h"

#include <QtTest>
#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

using namespace remat;
using namespace remat::exec;

namespace {

using Vec = std::vector<double>;

TransformerShape makeShape(int layers, int h, int heads, int seq, int batch) {
    TransformerShape s;
    s.layers = layers;
    s.hidden = h;
    s.heads = heads;
    s.seq = seq;
    s.batch = batch;
    return s;
}

// The whole network in double: parameters, input and target as generated in fp32.
struct DoubleNetwork {
    TransformerShape shape;
    Vec matrices, vectors, input, target;

    explicit DoubleNetwork(const TransformerParameters &p)
        : shape(p.shape), matrices(p.matrices.begin(), p.matrices.end()), vectors(p.vectors.begin(), p.vectors.end()),
          input(p.input.begin(), p.input.end()), target(p.target.begin(), p.target.end()) {}

    LayerTensors<const double *> layer(int i) const {
        return layerTensors(matrices.data(), vectors.data(), shape.hidden, i);
    }

    // Loss, and when asked the gradients of the matrices, vectors and input.
    double run(Vec *dMatrices = nullptr, Vec *dVectors = nullptr, Vec *dInput = nullptr) const {
        const int layers = shape.layers;
        std::vector<Vec> a(static_cast<std::size_t>(layers) + 1, input);
        std::vector<Vec> saved(static_cast<std::size_t>(layers) + 1, Vec(static_cast<std::size_t>(savedFloats(shape))));
        Vec forwardWork(static_cast<std::size_t>(forwardWorkspaceFloats(shape)));
        for (int i = 1; i <= layers; ++i)
            transformerLayerForward<double>(shape, layer(i), a[i - 1].data(), a[i].data(), saved[i].data(),
                                            forwardWork.data());
        double loss = 0;
        Vec grad(input.size());
        for (std::size_t k = 0; k < grad.size(); ++k) {
            grad[k] = a[layers][k] - target[k];
            loss += 0.5 * grad[k] * grad[k];
        }
        if (!dMatrices)
            return loss;
        dMatrices->assign(matrices.size(), 0);
        dVectors->assign(vectors.size(), 0);
        Vec backwardWork(static_cast<std::size_t>(backwardWorkspaceFloats(shape))), below(input.size());
        for (int i = layers; i >= 1; --i) {
            transformerLayerBackward<double>(
                shape, layer(i), a[i - 1].data(), grad.data(), saved[i].data(), below.data(),
                layerTensors(dMatrices->data(), dVectors->data(), shape.hidden, i), backwardWork.data());
            grad.swap(below);
        }
        *dInput = grad;
        return loss;
    }
};

double layerNormAt(const Vec &x, int h, std::int64_t t, int k, const double *gamma, const double *beta) {
    double mean = 0, var = 0;
    for (int j = 0; j < h; ++j)
        mean += x[static_cast<std::size_t>(t * h + j)] / h;
    for (int j = 0; j < h; ++j) {
        const double d = x[static_cast<std::size_t>(t * h + j)] - mean;
        var += d * d / h;
    }
    return (x[static_cast<std::size_t>(t * h + k)] - mean) / std::sqrt(var + 1e-5) * gamma[k] + beta[k];
}

// out (rows x n) = W (rows x in) x (in x n) + bias, plain loops.
Vec affine(const double *w, const double *bias, const Vec &x, int rows, int in, std::int64_t n) {
    Vec y(static_cast<std::size_t>(rows * n));
    for (std::int64_t t = 0; t < n; ++t)
        for (int r = 0; r < rows; ++r) {
            double sum = bias[r];
            for (int k = 0; k < in; ++k)
                sum += w[r + static_cast<std::int64_t>(k) * rows] * x[static_cast<std::size_t>(t * in + k)];
            y[static_cast<std::size_t>(t * rows + r)] = sum;
        }
    return y;
}

// One layer written out from its definition (transformer.h), independent of transformer_math.
Vec referenceLayer(const TransformerShape &s, const LayerTensors<const double *> &w, const Vec &x) {
    const int h = s.hidden, d = h / s.heads;
    const std::int64_t n = s.tokens();
    const auto normalised = [&](const Vec &v, const double *g, const double *b) {
        Vec y(v.size());
        for (std::int64_t t = 0; t < n; ++t)
            for (int k = 0; k < h; ++k)
                y[static_cast<std::size_t>(t * h + k)] = layerNormAt(v, h, t, k, g, b);
        return y;
    };
    const Vec qkv = affine(w.qkvWeight, w.qkvBias, normalised(x, w.ln1Gamma, w.ln1Beta), 3 * h, h, n);
    const auto at = [&](std::int64_t token, int row) { return qkv[static_cast<std::size_t>(token * 3 * h + row)]; };
    Vec ctx(static_cast<std::size_t>(h * n));
    for (int b = 0; b < s.batch; ++b)
        for (int head = 0; head < s.heads; ++head)
            for (int i = 0; i < s.seq; ++i) {
                const std::int64_t query = std::int64_t{b} * s.seq + i;
                Vec score(static_cast<std::size_t>(s.seq));
                double top = -1e300, sum = 0;
                for (int j = 0; j < s.seq; ++j) {
                    double dot = 0;
                    for (int k = 0; k < d; ++k)
                        dot += at(query, head * d + k) * at(std::int64_t{b} * s.seq + j, h + head * d + k);
                    score[static_cast<std::size_t>(j)] = dot / std::sqrt(static_cast<double>(d));
                    top = std::max(top, score[static_cast<std::size_t>(j)]);
                }
                for (double &v : score)
                    sum += (v = std::exp(v - top));
                for (int k = 0; k < d; ++k) {
                    double c = 0;
                    for (int j = 0; j < s.seq; ++j)
                        c += score[static_cast<std::size_t>(j)] / sum *
                             at(std::int64_t{b} * s.seq + j, 2 * h + head * d + k);
                    ctx[static_cast<std::size_t>(query * h + head * d + k)] = c;
                }
            }
    Vec x2 = affine(w.projWeight, w.projBias, ctx, h, h, n);
    for (std::size_t k = 0; k < x2.size(); ++k)
        x2[k] += x[k];
    Vec u = affine(w.fc1Weight, w.fc1Bias, normalised(x2, w.ln2Gamma, w.ln2Beta), 4 * h, h, n);
    for (double &v : u)
        v = 0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
    Vec y = affine(w.fc2Weight, w.fc2Bias, u, h, 4 * h, n);
    for (std::size_t k = 0; k < y.size(); ++k)
        y[k] += x2[k];
    return y;
}

// The shape of the current row of shapes_data().
TransformerShape fetchShape() {
    QFETCH(int, layers);
    QFETCH(int, hidden);
    QFETCH(int, heads);
    QFETCH(int, seq);
    QFETCH(int, batch);
    return makeShape(layers, hidden, heads, seq, batch);
}

double largestMagnitude(const Vec &v) {
    double m = 0;
    for (double x : v)
        m = std::max(m, std::fabs(x));
    return m;
}

// One fp32 layer's forward and backward (loss 1/2 ||y - target||^2), on the
// reference ops (`ops` null) or on CpuOps.
struct FloatLayer {
    std::vector<float> y, dx, dm, dv;

    FloatLayer(const TransformerShape &s, const TransformerParameters &p, CpuOps *ops)
        : y(p.input.size()), dx(p.input.size()), dm(p.matrices.size()), dv(p.vectors.size()) {
        std::vector<float> dy(p.input.size()), saved(static_cast<std::size_t>(savedFloats(s)));
        std::vector<float> work(
            static_cast<std::size_t>(std::max(forwardWorkspaceFloats(s), backwardWorkspaceFloats(s))));
        const LayerTensors<float *> grads = layerTensors(dm.data(), dv.data(), s.hidden, 1);
        if (ops)
            transformerLayerForward(s, *ops, p.layer(1), p.input.data(), y.data(), saved.data(), work.data());
        else
            transformerLayerForward<float>(s, p.layer(1), p.input.data(), y.data(), saved.data(), work.data());
        for (std::size_t k = 0; k < dy.size(); ++k)
            dy[k] = y[k] - p.target[k];
        if (ops)
            transformerLayerBackward(s, *ops, p.layer(1), p.input.data(), dy.data(), saved.data(), dx.data(), grads,
                                     work.data());
        else
            transformerLayerBackward<float>(s, p.layer(1), p.input.data(), dy.data(), saved.data(), dx.data(), grads,
                                            work.data());
    }
};

} // namespace

class TestTransformerLayer : public QObject {
    Q_OBJECT

private slots:
    void shapes_data() {
        QTest::addColumn<int>("layers");
        QTest::addColumn<int>("hidden");
        QTest::addColumn<int>("heads");
        QTest::addColumn<int>("seq");
        QTest::addColumn<int>("batch");
        QTest::newRow("h8 a2 s5 b3") << 2 << 8 << 2 << 5 << 3;
        QTest::newRow("odd: h6 a3 s7 b1") << 2 << 6 << 3 << 7 << 1;
        QTest::newRow("one head, one token") << 1 << 4 << 1 << 1 << 2;
        QTest::newRow("head dim 1: h5 a5 s4 b2") << 3 << 5 << 5 << 4 << 2;
        QTest::newRow("seq > h: h4 a2 s9 b1") << 1 << 4 << 2 << 9 << 1;
    }

    // transformer_math composes to the layer as defined, value for value.
    void forwardIsTheDefinedLayer_data() { shapes_data(); }
    void forwardIsTheDefinedLayer() {
        const TransformerShape s = fetchShape();
        const DoubleNetwork net(TransformerParameters::generate(s));
        Vec saved(static_cast<std::size_t>(savedFloats(s))), work(static_cast<std::size_t>(forwardWorkspaceFloats(s)));
        Vec y(net.input.size());
        transformerLayerForward<double>(s, net.layer(1), net.input.data(), y.data(), saved.data(), work.data());
        const Vec expected = referenceLayer(s, net.layer(1), net.input);
        for (std::size_t k = 0; k < y.size(); ++k)
            QVERIFY2(std::fabs(y[k] - expected[k]) < 1e-10 * std::max(1.0, std::fabs(expected[k])),
                     qPrintable(QString("value %1: %2 vs %3").arg(k).arg(y[k]).arg(expected[k])));
    }

    // Every gradient (every parameter and the input) against central differences of the loss.
    void gradientsMatchFiniteDifferences_data() { shapes_data(); }
    void gradientsMatchFiniteDifferences() {
        DoubleNetwork net(TransformerParameters::generate(fetchShape()));
        Vec dMatrices, dVectors, dInput;
        net.run(&dMatrices, &dVectors, &dInput);
        const double step = 1e-6;
        const auto check = [&](Vec &values, const Vec &analytic, const char *what) {
            for (std::size_t k = 0; k < values.size(); ++k) {
                const double keep = values[k];
                values[k] = keep + step;
                const double up = net.run();
                values[k] = keep - step;
                const double down = net.run();
                values[k] = keep;
                const double numeric = (up - down) / (2 * step);
                QVERIFY2(std::fabs(numeric - analytic[k]) <= 1e-6 * std::max(1.0, std::fabs(numeric)),
                         qPrintable(QString("%1[%2]: finite difference %3, backward %4")
                                        .arg(what)
                                        .arg(k)
                                        .arg(numeric, 0, 'g', 12)
                                        .arg(analytic[k], 0, 'g', 12)));
            }
        };
        check(net.matrices, dMatrices, "matrices");
        check(net.vectors, dVectors, "vectors");
        check(net.input, dInput, "input");
        QVERIFY(largestMagnitude(dMatrices) > 1e-3); // the check above compared something
    }

    // The fp32 layer agrees with the fp64 one: on the reference ops, and on
    // the CPU backend's (every kernel variant, one thread and three).
    void floatAgreesWithDouble_data() { shapes_data(); }
    void floatAgreesWithDouble() {
        const TransformerShape s = fetchShape();
        const TransformerParameters p = TransformerParameters::generate(s);
        TransformerShape one = s;
        one.layers = 1;
        DoubleNetwork single(p);
        single.shape = one;
        Vec dMatrices, dVectors, dInput;
        single.run(&dMatrices, &dVectors, &dInput);
        const auto close = [](const std::vector<float> &f, const Vec &d, std::size_t count) {
            const double scale = std::max(1e-6, largestMagnitude(d));
            for (std::size_t k = 0; k < count; ++k)
                if (std::fabs(f[k] - d[k]) > 1e-4 * scale)
                    return false;
            return true;
        };
        std::vector<std::unique_ptr<CpuOps>> ops;
        ops.push_back(nullptr); // the reference
        for (cpu::Isa isa : cpu::supportedIsas())
            for (int threads : {1, 3})
                ops.push_back(std::make_unique<CpuOps>(isa, threads));
        for (const auto &o : ops) {
            const FloatLayer layer(s, p, o.get());
            const char *which = o ? cpu::isaName(o->isa()).data() : "reference";
            QVERIFY2(close(layer.dm, dMatrices, static_cast<std::size_t>(layerMatrixFloats(s.hidden))), which);
            QVERIFY2(close(layer.dv, dVectors, static_cast<std::size_t>(layerVectorFloats(s.hidden))), which);
            QVERIFY2(close(layer.dx, dInput, layer.dx.size()), which);
        }
    }

    // A forward that discards computes the very bits of one that records:
    // what makes gradients bitwise equal across strategies. On the reference
    // ops and on every kernel variant, threaded.
    void discardingEqualsRecording_data() { shapes_data(); }
    void discardingEqualsRecording() {
        const TransformerShape s = fetchShape();
        const TransformerParameters p = TransformerParameters::generate(s);
        std::vector<float> recorded(p.input.size()), discarded(p.input.size(), 7.0f);
        std::vector<float> saved(static_cast<std::size_t>(savedFloats(s)));
        std::vector<float> work(static_cast<std::size_t>(forwardWorkspaceFloats(s)));
        transformerLayerForward<float>(s, p.layer(1), p.input.data(), recorded.data(), saved.data(), work.data());
        transformerLayerForward<float>(s, p.layer(1), p.input.data(), discarded.data(), nullptr, work.data());
        QVERIFY(std::memcmp(recorded.data(), discarded.data(), recorded.size() * sizeof(float)) == 0);
        for (cpu::Isa isa : cpu::supportedIsas()) {
            CpuOps ops(isa, 2);
            // The saved buffers at an odd offset from the workspace's alignment.
            std::vector<float> oddSaved(saved.size() + 1);
            transformerLayerForward(s, ops, p.layer(1), p.input.data(), recorded.data(), oddSaved.data() + 1,
                                    work.data());
            std::fill(discarded.begin(), discarded.end(), 7.0f);
            transformerLayerForward(s, ops, p.layer(1), p.input.data(), discarded.data(), nullptr, work.data());
            QVERIFY2(std::memcmp(recorded.data(), discarded.data(), recorded.size() * sizeof(float)) == 0,
                     cpu::isaName(isa).data());
        }
    }

    // What a layer saves: the buffers listed, and nothing PyTorch eager would
    // keep beyond them (Korthikanti et al. count 16 h-wide tensors per token in
    // fp32 without dropout, sbh*64 + 4as^2b bytes; this layer keeps 9 and two
    // pairs of LayerNorm statistics).
    void savedBytesAreTheListedBuffers() {
        const TransformerShape s = makeShape(4, 64, 4, 32, 3);
        const std::int64_t n = s.tokens(), h = s.hidden;
        const std::int64_t probs = std::int64_t{s.heads} * s.seq * s.seq * s.batch;
        QCOMPARE(savedBytes(s), 4 * (n * (9 * h + 4) + probs));
        QVERIFY(savedBytes(s) < 64 * n * h + 4 * probs);
        QCOMPARE(forwardWorkspaceFloats(s), 5 * h * n + std::int64_t{s.seq} * s.seq + 2 * n);
        QCOMPARE(backwardWorkspaceFloats(s), 5 * h * n + std::int64_t{s.seq} * s.seq);
    }

    void badShapesAreRefused_data() {
        QTest::addColumn<int>("hidden");
        QTest::addColumn<int>("heads");
        QTest::addColumn<int>("seq");
        QTest::addColumn<int>("batch");
        QTest::addColumn<bool>("limit"); // LimitExceeded rather than InvalidArgument
        QTest::addColumn<QString>("message");
        QTest::newRow("h not divisible") << 10 << 3 << 4 << 2 << false << "h = 10 is not divisible by heads = 3";
        QTest::newRow("more heads than h")
            << 4 << 8 << 4 << 2 << false << "heads must be an integer from 1 to 4, got 8";
        QTest::newRow("zero hidden") << 0 << 1 << 4 << 2 << false << "hidden size h must be an integer from 1 to";
        QTest::newRow("zero seq") << 8 << 2 << 0 << 2 << false << "sequence length must be an integer from 1 to";
        QTest::newRow("negative batch") << 8 << 2 << 4 << -1 << false << "batch must be an integer from 1 to";
        QTest::newRow("tokens overflow int") << 8 << 2 << (1 << 20) << (1 << 20) << true << "1099511627776 tokens";
        QTest::newRow("probabilities too large")
            << 64 << 64 << (1 << 18) << 64 << true << "remat accepts for one layer";
    }
    void badShapesAreRefused() {
        QFETCH(int, hidden);
        QFETCH(int, heads);
        QFETCH(int, seq);
        QFETCH(int, batch);
        QFETCH(bool, limit);
        QFETCH(QString, message);
        const TransformerShape s = makeShape(2, hidden, heads, seq, batch);
        try {
            s.validate();
            QFAIL("accepted");
        } catch (const LimitExceeded &e) {
            QVERIFY(limit);
            QVERIFY2(QString(e.what()).contains(message), e.what());
        } catch (const InvalidArgument &e) {
            QVERIFY(!limit);
            QVERIFY2(QString(e.what()).contains(message), e.what());
        }
        QVERIFY_THROWS_EXCEPTION(Error, TransformerParameters::generate(s));
    }
};

QTEST_APPLESS_MAIN(TestTransformerLayer)
#include "test_transformer_layer.moc"
