#include "core/executor/transformer_math.h"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <type_traits>

namespace remat::exec::math {

namespace {

template <typename T> using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor>;
template <typename T> using Vector = Eigen::Matrix<T, Eigen::Dynamic, 1>;
template <typename T> using Map = Eigen::Map<Matrix<T>>;
template <typename T> using ConstMap = Eigen::Map<const Matrix<T>>;
template <typename T> using VectorMap = Eigen::Map<Vector<T>>;
template <typename T> using ConstVectorMap = Eigen::Map<const Vector<T>>;
// A block of rows of a wider column-major matrix (one head's slice of qkv or ctx).
using Strided = Eigen::OuterStride<Eigen::Dynamic>;

// One (sequence, head) of qkv: its queries, keys and values as d x seq
// strided blocks, and the matching block of a context-shaped (h x tokens) matrix.
template <typename T> struct HeadView {
    using Block = Eigen::Map<
        std::conditional_t<std::is_const_v<T>, const Matrix<std::remove_const_t<T>>, Matrix<std::remove_const_t<T>>>, 0,
        Strided>;
    Block q, k, v;
    std::remove_const_t<T> scale;
    std::int64_t contextOffset;
    int headDim, seq, hidden;

    HeadView(T *qkv, const AttentionShape &shape, int batch, int head)
        : q(at(qkv, shape, batch, head, 0)), k(at(qkv, shape, batch, head, 1)), v(at(qkv, shape, batch, head, 2)),
          scale(std::remove_const_t<T>(1) / std::sqrt(static_cast<std::remove_const_t<T>>(shape.headDim()))),
          contextOffset(std::int64_t{batch} * shape.seq * shape.hidden + std::int64_t{head} * shape.headDim()),
          headDim(shape.headDim()), seq(shape.seq), hidden(shape.hidden) {}

    template <typename U> auto context(U *matrix) const {
        using Plain = Matrix<std::remove_const_t<U>>;
        return Eigen::Map<std::conditional_t<std::is_const_v<U>, const Plain, Plain>, 0, Strided>(
            matrix + contextOffset, headDim, seq, Strided(hidden));
    }

private:
    static Block at(T *qkv, const AttentionShape &shape, int batch, int head, int part) {
        const int h = shape.hidden, d = shape.headDim();
        const std::int64_t offset = std::int64_t{batch} * shape.seq * 3 * h + std::int64_t{part} * h + head * d;
        return Block(qkv + offset, d, shape.seq, Strided(3 * h));
    }
};

} // namespace

template <typename T>
void layerNormForward(const T *x, const T *gamma, const T *beta, T *y, T *mean, T *rstd, int c, std::int64_t n) {
    for (std::int64_t t = 0; t < n; ++t) {
        const T *xt = x + t * c;
        T sum = 0;
        for (int k = 0; k < c; ++k)
            sum += xt[k];
        const T m = sum / static_cast<T>(c);
        T var = 0;
        for (int k = 0; k < c; ++k)
            var += (xt[k] - m) * (xt[k] - m);
        var /= static_cast<T>(c);
        mean[t] = m;
        rstd[t] = T(1) / std::sqrt(var + static_cast<T>(kLayerNormEps));
    }
    layerNormApply(x, mean, rstd, gamma, beta, y, c, n);
}

template <typename T>
void layerNormApply(const T *x, const T *mean, const T *rstd, const T *gamma, const T *beta, T *y, int c,
                    std::int64_t n) {
    for (std::int64_t t = 0; t < n; ++t) {
        const T *xt = x + t * c;
        T *yt = y + t * c;
        for (int k = 0; k < c; ++k)
            yt[k] = (xt[k] - mean[t]) * rstd[t] * gamma[k] + beta[k];
    }
}

template <typename T>
void layerNormBackward(const T *dy, const T *x, const T *mean, const T *rstd, const T *gamma, T *dx, T *dgamma,
                       T *dbeta, int c, std::int64_t n) {
    for (int k = 0; k < c; ++k)
        dgamma[k] = dbeta[k] = 0;
    for (std::int64_t t = 0; t < n; ++t) {
        const T *xt = x + t * c, *dyt = dy + t * c;
        T *dxt = dx + t * c;
        // Means over the features of dxhat and dxhat * xhat.
        T meanDxhat = 0, meanDxhatXhat = 0;
        for (int k = 0; k < c; ++k) {
            const T xhat = (xt[k] - mean[t]) * rstd[t];
            const T dxhat = dyt[k] * gamma[k];
            meanDxhat += dxhat;
            meanDxhatXhat += dxhat * xhat;
        }
        meanDxhat /= static_cast<T>(c);
        meanDxhatXhat /= static_cast<T>(c);
        for (int k = 0; k < c; ++k) {
            const T xhat = (xt[k] - mean[t]) * rstd[t];
            const T dxhat = dyt[k] * gamma[k];
            dgamma[k] += dyt[k] * xhat;
            dbeta[k] += dyt[k];
            dxt[k] += rstd[t] * (dxhat - meanDxhat - xhat * meanDxhatXhat);
        }
    }
}

template <typename T>
void linearForward(const T *x, const T *weight, const T *bias, T *y, int in, int out, std::int64_t n) {
    Map<T> yMap(y, out, n);
    yMap.noalias() = ConstMap<T>(weight, out, in) * ConstMap<T>(x, in, n);
    biasAdd(y, bias, out, n);
}

template <typename T> void linearAccumulate(const T *x, const T *weight, T *y, int in, int out, std::int64_t n) {
    Map<T>(y, out, n).noalias() += ConstMap<T>(weight, out, in) * ConstMap<T>(x, in, n);
}

template <typename T>
void linearBackwardParameters(const T *dy, const T *x, T *dweight, T *dbias, int in, int out, std::int64_t n) {
    const ConstMap<T> dyMap(dy, out, n);
    Map<T>(dweight, out, in).noalias() = dyMap * ConstMap<T>(x, in, n).transpose();
    VectorMap<T>(dbias, out) = dyMap.rowwise().sum();
}

template <typename T> void linearBackwardInput(const T *dy, const T *weight, T *dx, int in, int out, std::int64_t n) {
    Map<T>(dx, in, n).noalias() = ConstMap<T>(weight, out, in).transpose() * ConstMap<T>(dy, out, n);
}

template <typename T> void biasAdd(T *y, const T *bias, int c, std::int64_t n) {
    Map<T>(y, c, n).colwise() += ConstVectorMap<T>(bias, c);
}

template <typename T> void residualAdd(T *y, const T *x, std::int64_t count) {
    for (std::int64_t k = 0; k < count; ++k)
        y[k] += x[k];
}

template <typename T> void softmaxForward(T *p, int rows, std::int64_t cols) {
    for (std::int64_t j = 0; j < cols; ++j) {
        T *col = p + j * rows;
        T top = col[0];
        for (int k = 1; k < rows; ++k)
            top = std::max(top, col[k]);
        T sum = 0;
        for (int k = 0; k < rows; ++k) {
            col[k] = std::exp(col[k] - top);
            sum += col[k];
        }
        const T scale = T(1) / sum;
        for (int k = 0; k < rows; ++k)
            col[k] *= scale;
    }
}

template <typename T> void softmaxBackward(const T *p, const T *dp, T *dz, int rows, std::int64_t cols) {
    for (std::int64_t j = 0; j < cols; ++j) {
        const T *pc = p + j * rows, *dpc = dp + j * rows;
        T *dzc = dz + j * rows;
        T dot = 0;
        for (int k = 0; k < rows; ++k)
            dot += pc[k] * dpc[k];
        for (int k = 0; k < rows; ++k)
            dzc[k] = pc[k] * (dpc[k] - dot);
    }
}

namespace {
// sqrt(2 / pi), as GPT-2 and torch's gelu(approximate="tanh").
template <typename T> constexpr T kGeluScale = static_cast<T>(0.7978845608028654);
template <typename T> constexpr T kGeluCube = static_cast<T>(0.044715);
} // namespace

template <typename T> void geluForward(const T *u, T *g, std::int64_t count) {
    for (std::int64_t k = 0; k < count; ++k) {
        const T x = u[k];
        g[k] = T(0.5) * x * (T(1) + std::tanh(kGeluScale<T> * (x + kGeluCube<T> * x * x * x)));
    }
}

template <typename T> void geluBackward(const T *u, const T *dg, T *du, std::int64_t count) {
    for (std::int64_t k = 0; k < count; ++k) {
        const T x = u[k];
        const T th = std::tanh(kGeluScale<T> * (x + kGeluCube<T> * x * x * x));
        const T sech2 = T(1) - th * th;
        const T inner = kGeluScale<T> * (T(1) + T(3) * kGeluCube<T> * x * x);
        du[k] = dg[k] * (T(0.5) * (T(1) + th) + T(0.5) * x * sech2 * inner);
    }
}

template <typename T>
void attentionForward(const T *qkv, T *probs, std::int64_t blockStride, T *ctx, const AttentionShape &shape) {
    const int s = shape.seq;
    for (int b = 0; b < shape.batch; ++b)
        for (int head = 0; head < shape.heads; ++head) {
            const HeadView<const T> view(qkv, shape, b, head);
            const auto &q = view.q, &k = view.k, &v = view.v;
            T *pBlock = probs + (std::int64_t{b} * shape.heads + head) * blockStride;
            Map<T> p(pBlock, s, s);
            p.noalias() = k.transpose() * q;
            p *= view.scale;
            softmaxForward(pBlock, s, s);
            view.context(ctx).noalias() = v * p;
        }
}

template <typename T>
void attentionBackward(const T *dctx, const T *qkv, const T *probs, T *dqkv, T *scratch, const AttentionShape &shape) {
    const int s = shape.seq;
    for (int b = 0; b < shape.batch; ++b)
        for (int head = 0; head < shape.heads; ++head) {
            const HeadView<const T> view(qkv, shape, b, head);
            const auto &q = view.q, &k = view.k, &v = view.v;
            HeadView<T> grad(dqkv, shape, b, head);
            auto &dq = grad.q, &dk = grad.k, &dv = grad.v;
            const auto dc = view.context(dctx);
            const T *pBlock = probs + (std::int64_t{b} * shape.heads + head) * s * s;
            const ConstMap<T> p(pBlock, s, s);
            Map<T> dp(scratch, s, s);
            dv.noalias() = dc * p.transpose();
            dp.noalias() = v.transpose() * dc;
            softmaxBackward(pBlock, scratch, scratch, s, s);
            dp *= view.scale; // now dL/d(K^T Q)
            dq.noalias() = k * dp;
            dk.noalias() = q * dp.transpose();
        }
}

#define REMAT_INSTANTIATE_TRANSFORMER_MATH(T)                                                                          \
    template void layerNormForward<T>(const T *, const T *, const T *, T *, T *, T *, int, std::int64_t);              \
    template void layerNormApply<T>(const T *, const T *, const T *, const T *, const T *, T *, int, std::int64_t);    \
    template void layerNormBackward<T>(const T *, const T *, const T *, const T *, const T *, T *, T *, T *, int,      \
                                       std::int64_t);                                                                  \
    template void linearForward<T>(const T *, const T *, const T *, T *, int, int, std::int64_t);                      \
    template void linearBackwardParameters<T>(const T *, const T *, T *, T *, int, int, std::int64_t);                 \
    template void linearBackwardInput<T>(const T *, const T *, T *, int, int, std::int64_t);                           \
    template void biasAdd<T>(T *, const T *, int, std::int64_t);                                                       \
    template void residualAdd<T>(T *, const T *, std::int64_t);                                                        \
    template void softmaxForward<T>(T *, int, std::int64_t);                                                           \
    template void softmaxBackward<T>(const T *, const T *, T *, int, std::int64_t);                                    \
    template void geluForward<T>(const T *, T *, std::int64_t);                                                        \
    template void geluBackward<T>(const T *, const T *, T *, std::int64_t);                                            \
    template void attentionForward<T>(const T *, T *, std::int64_t, T *, const AttentionShape &);                      \
    template void linearAccumulate<T>(const T *, const T *, T *, int, int, std::int64_t);                              \
    template void attentionBackward<T>(const T *, const T *, const T *, T *, T *, const AttentionShape &);

REMAT_INSTANTIATE_TRANSFORMER_MATH(float)
REMAT_INSTANTIATE_TRANSFORMER_MATH(double)

} // namespace remat::exec::math
