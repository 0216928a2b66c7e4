// The CPU kernels of the tanh network and the GEMM, written once with Eigen
// and compiled once per instruction set by remat_add_isa_variants
// (cmake/RematIsaVariants.cmake), which defines REMAT_ISA_NAMESPACE (isa_avx2,
// ...) and renames the namespace Eigen for this object, so no inline function
// of one variant can stand in for another's at link time. Keep the standard
// library out of here for the same reason: its inline functions are not
// renamed (tests/executor checks the symbols).
#include "core/executor/cpu_kernels_isa.h"

namespace remat::exec::cpu::REMAT_ISA_NAMESPACE {

namespace {

namespace ei = Eigen::internal;
using namespace packets;

// Eigen's blocking for an m x n x k product, with the packed panels where we say.
class Blocking : public ei::level3_blocking<float, float> {
public:
    Blocking(Index m, Index n, Index k) {
        m_kc = k;
        m_mc = m;
        m_nc = n;
        ei::computeProductBlockingSizes<float, float, 1>(m_kc, m_mc, m_nc, Index(1));
    }
    // Panels start on 64 bytes.
    static Index rounded(Index floats) { return (floats + 15) / 16 * 16; }
    Index packingFloats() const { return rounded(m_kc * m_mc) + rounded(m_kc * m_nc); }
    void place(float *packing) {
        m_blockA = packing;
        m_blockB = packing + rounded(m_kc * m_mc);
    }
};

Index gemmPackingFloats(Index m, Index n, Index k) {
    return Blocking(m, n, k).packingFloats();
}

// C += alpha op(A) op(B), op(A) stored in OrderA (RowMajor: A transposed).
template <int OrderA, int OrderB>
void accumulate(Index m, Index n, Index k, float alpha, const float *A, Index lda, const float *B, Index ldb, float *C,
                Index ldc, Blocking &blocking) {
    ei::general_matrix_matrix_product<Index, float, OrderA, false, float, OrderB, false, Eigen::ColMajor, 1>::run(
        m, n, k, A, lda, B, ldb, C, 1, ldc, alpha, blocking);
}

void gemm(Transpose transA, Transpose transB, Index m, Index n, Index k, float alpha, const float *A, Index lda,
          const float *B, Index ldb, float beta, float *C, Index ldc, float *packing) {
    if (m <= 0 || n <= 0)
        return;
    for (Index j = 0; j < n; ++j) { // Eigen's product adds to C
        float *col = C + j * ldc;
        if (beta == 0.0f)
            map1(m, col, col, [](const Packet &) { return broadcast(0.0f); });
        else if (beta != 1.0f)
            map1(m, col, col, [b = broadcast(beta)](const Packet &c) { return ei::pmul(b, c); });
    }
    if (k <= 0)
        return;
    Blocking blocking(m, n, k);
    blocking.place(packing);
    constexpr int Col = Eigen::ColMajor, Row = Eigen::RowMajor;
    const bool ta = transA == Transpose::Yes, tb = transB == Transpose::Yes;
    if (ta && tb)
        accumulate<Row, Row>(m, n, k, alpha, A, lda, B, ldb, C, ldc, blocking);
    else if (ta)
        accumulate<Row, Col>(m, n, k, alpha, A, lda, B, ldb, C, ldc, blocking);
    else if (tb)
        accumulate<Col, Row>(m, n, k, alpha, A, lda, B, ldb, C, ldc, blocking);
    else
        accumulate<Col, Col>(m, n, k, alpha, A, lda, B, ldb, C, ldc, blocking);
}

void tanh(Index count, const float *x, float *y) {
    map1(count, x, y, [](const Packet &v) { return ei::ptanh(v); });
}

void mulTanhDerivative(Index count, const float *t, float *g) {
    map2(count, t, g, g, [one = broadcast(1.0f)](const Packet &tv, const Packet &gv) {
        return ei::pmul(gv, ei::psub(one, ei::pmul(tv, tv)));
    });
}

void subtract(Index count, const float *a, const float *b, float *out) {
    map2(count, a, b, out, [](const Packet &x, const Packet &y) { return ei::psub(x, y); });
}

void add(Index count, const float *x, float *y) {
    map2(count, x, y, y, [](const Packet &a, const Packet &b) { return ei::padd(b, a); });
}

void addBias(Index m, Index n, const float *bias, float *C, Index ldc) {
    for (Index j = 0; j < n; ++j)
        add(m, bias, C + j * ldc);
}

// Packets of rows, each the sum of its columns in order.
void rowSums(Index m, Index n, const float *A, Index lda, float *out) {
    Index r = 0;
    for (; r + kWidth <= m; r += kWidth) {
        Packet s = broadcast(0.0f);
        for (Index j = 0; j < n; ++j)
            s = ei::padd(s, load(A + r + j * lda));
        store(out + r, s);
    }
    if (r < m) {
        Packet s = broadcast(0.0f);
        for (Index j = 0; j < n; ++j)
            s = ei::padd(s, loadTail(A + r + j * lda, m - r, 0.0f));
        storeTail(out + r, m - r, s);
    }
}

#define REMAT_STRINGIFY2(x) #x
#define REMAT_STRINGIFY(x) REMAT_STRINGIFY2(x)

constexpr Kernels kTable{&gemm,
                         &gemmPackingFloats,
                         &tanh,
                         &mulTanhDerivative,
                         &subtract,
                         &add,
                         &addBias,
                         &rowSums,
                         &gelu,
                         &geluBackward,
                         &layerNormForward,
                         &layerNormApply,
                         &layerNormBackwardInput,
                         &layerNormBackwardParameters,
                         &scaledSoftmax,
                         &scaledSoftmaxBackward,
                         "Eigen " REMAT_STRINGIFY(EIGEN_WORLD_VERSION) "." REMAT_STRINGIFY(
                             EIGEN_MAJOR_VERSION) "." REMAT_STRINGIFY(EIGEN_MINOR_VERSION)};

} // namespace

const Kernels &kernelTable() {
    return kTable;
}

} // namespace remat::exec::cpu::REMAT_ISA_NAMESPACE
