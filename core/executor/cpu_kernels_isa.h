#pragma once
// For the sources compiled once per instruction set only (cpu_kernels_isa.cpp,
// transformer_kernels_isa.cpp): Eigen's packet of floats for this variant and
// loops that send every value of a range through it, the range's tail
// through a padded packet. A value's bits then never depend on its address
// or on where a range was cut, which is what lets the CPU backend cut an op
// into tasks freely. No standard library here (cmake/RematIsaVariants.cmake).
#include "core/executor/cpu_kernels.h"

#if !defined(REMAT_ISA_NAMESPACE) || !defined(Eigen)
#error "compile this file through remat_add_isa_variants (cmake/RematIsaVariants.cmake)"
#endif

#include <Eigen/Core>

namespace remat::exec::cpu::REMAT_ISA_NAMESPACE {

namespace packets {

namespace ei = Eigen::internal;
using Packet = ei::packet_traits<float>::type;
inline constexpr Index kWidth = ei::unpacket_traits<Packet>::size;

inline Packet load(const float *p) { return ei::ploadu<Packet>(p); }
inline void store(float *p, const Packet &v) { ei::pstoreu(p, v); }
inline Packet broadcast(float v) { return ei::pset1<Packet>(v); }

// The first `count` (< kWidth) values at p, the other lanes `fill`.
inline Packet loadTail(const float *p, Index count, float fill) {
    EIGEN_ALIGN_MAX float lanes[kWidth];
    for (Index i = 0; i < kWidth; ++i)
        lanes[i] = i < count ? p[i] : fill;
    return ei::pload<Packet>(lanes);
}
inline void storeTail(float *p, Index count, const Packet &v) {
    EIGEN_ALIGN_MAX float lanes[kWidth];
    ei::pstore(lanes, v);
    for (Index i = 0; i < count; ++i)
        p[i] = lanes[i];
}

// out[i] = f(a[i]) over [0, count); out may alias a.
template <class F> void map1(Index count, const float *a, float *out, F f) {
    Index i = 0;
    for (; i + kWidth <= count; i += kWidth)
        store(out + i, f(load(a + i)));
    if (i < count)
        storeTail(out + i, count - i, f(loadTail(a + i, count - i, 0.0f)));
}

// out[i] = f(a[i], b[i]); out may alias a or b.
template <class F> void map2(Index count, const float *a, const float *b, float *out, F f) {
    Index i = 0;
    for (; i + kWidth <= count; i += kWidth)
        store(out + i, f(load(a + i), load(b + i)));
    if (i < count)
        storeTail(out + i, count - i, f(loadTail(a + i, count - i, 0.0f), loadTail(b + i, count - i, 0.0f)));
}

// out[i] = f(a[i], b[i], c[i]); out may alias any input.
template <class F> void map3(Index count, const float *a, const float *b, const float *c, float *out, F f) {
    Index i = 0;
    for (; i + kWidth <= count; i += kWidth)
        store(out + i, f(load(a + i), load(b + i), load(c + i)));
    if (i < count) {
        const Index n = count - i;
        storeTail(out + i, n, f(loadTail(a + i, n, 0.0f), loadTail(b + i, n, 0.0f), loadTail(c + i, n, 0.0f)));
    }
}

// Lanes [i, i + valid) of a range: a packet of them, the lanes beyond
// `valid` (at a range's tail) filled.
struct Lanes {
    Index i;
    Index valid;
    Packet at(const float *p, float fill = 0.0f) const {
        return valid == kWidth ? load(p + i) : loadTail(p + i, valid, fill);
    }
};

// The sum over [0, count) of f(lanes), f's padded lanes 0, in four running
// packets: a fixed order for a given count, whatever the address.
template <class F> float sum(Index count, F f) {
    Packet s0 = broadcast(0.0f), s1 = s0, s2 = s0, s3 = s0;
    Index i = 0;
    for (; i + 4 * kWidth <= count; i += 4 * kWidth) {
        s0 = ei::padd(s0, f(Lanes{i, kWidth}));
        s1 = ei::padd(s1, f(Lanes{i + kWidth, kWidth}));
        s2 = ei::padd(s2, f(Lanes{i + 2 * kWidth, kWidth}));
        s3 = ei::padd(s3, f(Lanes{i + 3 * kWidth, kWidth}));
    }
    for (; i + kWidth <= count; i += kWidth)
        s0 = ei::padd(s0, f(Lanes{i, kWidth}));
    if (i < count)
        s1 = ei::padd(s1, f(Lanes{i, count - i}));
    return ei::predux(ei::padd(ei::padd(s0, s1), ei::padd(s2, s3)));
}

// f(lanes) for every packet of [0, count), the tail's lanes padded.
template <class F> void forEach(Index count, F f) {
    Index i = 0;
    for (; i + kWidth <= count; i += kWidth)
        f(Lanes{i, kWidth});
    if (i < count)
        f(Lanes{i, count - i});
}

// Stores the valid lanes of v at p + lanes.i.
inline void put(float *p, const Lanes &lanes, const Packet &v) {
    if (lanes.valid == kWidth)
        store(p + lanes.i, v);
    else
        storeTail(p + lanes.i, lanes.valid, v);
}

} // namespace packets

// Defined in transformer_kernels_isa.cpp, gathered into the table by cpu_kernels_isa.cpp.
void gelu(Index count, const float *u, float *g);
void geluBackward(Index count, const float *u, const float *dg, float *du);
void layerNormForward(Index c, Index tokens, const float *x, const float *gamma, const float *beta, float *y,
                      float *mean, float *rstd);
void layerNormApply(Index c, Index tokens, const float *x, const float *mean, const float *rstd, const float *gamma,
                    const float *beta, float *y);
void layerNormBackwardInput(Index c, Index tokens, const float *dy, const float *x, const float *mean,
                            const float *rstd, const float *gamma, float *dx);
void layerNormBackwardParameters(Index features, Index c, Index tokens, const float *dy, const float *x,
                                 const float *mean, const float *rstd, float *dgamma, float *dbeta);
void scaledSoftmax(Index rows, Index cols, float scale, float *p);
void scaledSoftmaxBackward(Index rows, Index cols, float scale, const float *p, const float *dp, float *dz);

} // namespace remat::exec::cpu::REMAT_ISA_NAMESPACE
