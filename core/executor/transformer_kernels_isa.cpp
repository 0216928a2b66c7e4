// The transformer's elementwise and per-token kernels (LayerNorm, softmax,
// GELU), compiled once per instruction set as cpu_kernels_isa.cpp is, with the
// same rule: Eigen's packets only, no standard library. Their references, in
// plain loops, are transformer_math.h's; tests/executor compares them.
#include "core/executor/cpu_kernels_isa.h"

namespace remat::exec::cpu::REMAT_ISA_NAMESPACE {

using namespace packets;

namespace {

constexpr float kGeluScale = 0.7978845608028654f; // sqrt(2 / pi), as transformer_math.cpp
constexpr float kGeluCube = 0.044715f;
constexpr float kLayerNormEps = 1e-5f; // math::kLayerNormEps
constexpr float kMinusInfinity = -__builtin_inff();

// tanh(sqrt(2/pi) (u + 0.044715 u^3))
inline Packet geluTanh(const Packet &u) {
    const Packet cube = ei::pmul(ei::pmul(u, u), u);
    return ei::ptanh(ei::pmul(broadcast(kGeluScale), ei::padd(u, ei::pmul(broadcast(kGeluCube), cube))));
}

} // namespace

void gelu(Index count, const float *u, float *g) {
    map1(count, u, g, [](const Packet &x) {
        const Packet half = broadcast(0.5f);
        return ei::pmul(ei::pmul(half, x), ei::padd(broadcast(1.0f), geluTanh(x)));
    });
}

void geluBackward(Index count, const float *u, const float *dg, float *du) {
    map2(count, u, dg, du, [](const Packet &x, const Packet &d) {
        const Packet one = broadcast(1.0f), half = broadcast(0.5f);
        const Packet th = geluTanh(x);
        const Packet sech2 = ei::psub(one, ei::pmul(th, th));
        const Packet inner =
            ei::pmul(broadcast(kGeluScale), ei::padd(one, ei::pmul(broadcast(3.0f * kGeluCube), ei::pmul(x, x))));
        const Packet slope =
            ei::padd(ei::pmul(half, ei::padd(one, th)), ei::pmul(ei::pmul(ei::pmul(half, x), sech2), inner));
        return ei::pmul(d, slope);
    });
}

void layerNormApply(Index c, Index tokens, const float *x, const float *mean, const float *rstd, const float *gamma,
                    const float *beta, float *y) {
    for (Index t = 0; t < tokens; ++t) {
        const Packet m = broadcast(mean[t]), r = broadcast(rstd[t]);
        const float *xt = x + t * c;
        float *yt = y + t * c;
        forEach(c, [&](const Lanes &l) {
            const Packet xhat = ei::pmul(ei::psub(l.at(xt), m), r);
            put(yt, l, ei::padd(ei::pmul(xhat, l.at(gamma)), l.at(beta)));
        });
    }
}

// Two passes per token, as the reference: the mean, then the centred variance.
void layerNormForward(Index c, Index tokens, const float *x, const float *gamma, const float *beta, float *y,
                      float *mean, float *rstd) {
    const float inverseC = 1.0f / static_cast<float>(c);
    for (Index t = 0; t < tokens; ++t) {
        const float *xt = x + t * c;
        const float m = sum(c, [&](const Lanes &l) { return l.at(xt); }) * inverseC;
        const Packet mv = broadcast(m);
        // Padded lanes hold the mean: they add nothing.
        const float var = sum(c, [&](const Lanes &l) {
                              const Packet d = ei::psub(l.at(xt, m), mv);
                              return ei::pmul(d, d);
                          }) *
                          inverseC;
        mean[t] = m;
        rstd[t] = 1.0f / Eigen::numext::sqrt(var + kLayerNormEps);
    }
    layerNormApply(c, tokens, x, mean, rstd, gamma, beta, y);
}

void layerNormBackwardInput(Index c, Index tokens, const float *dy, const float *x, const float *mean,
                            const float *rstd, const float *gamma, float *dx) {
    const float inverseC = 1.0f / static_cast<float>(c);
    for (Index t = 0; t < tokens; ++t) {
        const float *xt = x + t * c, *dyt = dy + t * c;
        float *dxt = dx + t * c;
        const Packet m = broadcast(mean[t]), r = broadcast(rstd[t]);
        // Padded lanes: dy = 0, so dxhat = 0.
        const float meanDxhat = sum(c, [&](const Lanes &l) { return ei::pmul(l.at(dyt), l.at(gamma)); }) * inverseC;
        const float meanDxhatXhat = sum(c, [&](const Lanes &l) {
                                        const Packet xhat = ei::pmul(ei::psub(l.at(xt), m), r);
                                        return ei::pmul(ei::pmul(l.at(dyt), l.at(gamma)), xhat);
                                    }) *
                                    inverseC;
        const Packet a = broadcast(meanDxhat), b = broadcast(meanDxhatXhat);
        forEach(c, [&](const Lanes &l) {
            const Packet xhat = ei::pmul(ei::psub(l.at(xt), m), r);
            const Packet dxhat = ei::pmul(l.at(dyt), l.at(gamma));
            const Packet g = ei::pmul(r, ei::psub(ei::psub(dxhat, a), ei::pmul(xhat, b)));
            put(dxt, l, ei::padd(l.at(dxt), g));
        });
    }
}

// A packet of features at a time, its sums running over the tokens in order.
void layerNormBackwardParameters(Index features, Index c, Index tokens, const float *dy, const float *x,
                                 const float *mean, const float *rstd, float *dgamma, float *dbeta) {
    forEach(features, [&](const Lanes &l) {
        Packet sg = broadcast(0.0f), sb = sg;
        for (Index t = 0; t < tokens; ++t) {
            const Packet dyv = l.at(dy + t * c);
            const Packet xhat = ei::pmul(ei::psub(l.at(x + t * c), broadcast(mean[t])), broadcast(rstd[t]));
            sg = ei::padd(sg, ei::pmul(dyv, xhat));
            sb = ei::padd(sb, dyv);
        }
        put(dgamma, l, sg);
        put(dbeta, l, sb);
    });
}

// Per column: the largest scaled score, exp of each minus it (summed), then
// the normalisation. Padded lanes are -inf, whose exp adds nothing.
void scaledSoftmax(Index rows, Index cols, float scale, float *p) {
    const Packet s = broadcast(scale);
    for (Index j = 0; j < cols; ++j) {
        float *col = p + j * rows;
        Packet top = broadcast(kMinusInfinity);
        forEach(rows, [&](const Lanes &l) { top = ei::pmax(top, ei::pmul(l.at(col, kMinusInfinity), s)); });
        const Packet largest = broadcast(ei::predux_max(top));
        const float total = sum(rows, [&](const Lanes &l) {
            put(col, l, ei::pexp(ei::psub(ei::pmul(l.at(col), s), largest)));
            return l.at(col); // the padded lanes read back as 0
        });
        const Packet inverse = broadcast(1.0f / total);
        forEach(rows, [&](const Lanes &l) { put(col, l, ei::pmul(l.at(col), inverse)); });
    }
}

void scaledSoftmaxBackward(Index rows, Index cols, float scale, const float *p, const float *dp, float *dz) {
    const Packet s = broadcast(scale);
    for (Index j = 0; j < cols; ++j) {
        const float *pc = p + j * rows, *dpc = dp + j * rows;
        float *dzc = dz + j * rows;
        const Packet dot = broadcast(sum(rows, [&](const Lanes &l) { return ei::pmul(l.at(pc), l.at(dpc)); }));
        forEach(rows, [&](const Lanes &l) {
            put(dzc, l, ei::pmul(ei::pmul(l.at(pc), ei::psub(l.at(dpc), dot)), s));
        });
    }
}

} // namespace remat::exec::cpu::REMAT_ISA_NAMESPACE
