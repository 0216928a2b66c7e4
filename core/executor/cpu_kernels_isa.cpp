// The CPU kernels, written once with Eigen and compiled once per instruction
// set by remat_add_isa_variants (cmake/RematIsaVariants.cmake), which defines
// REMAT_ISA_NAMESPACE (isa_avx2, ...) and renames the namespace Eigen for this
// object, so no inline function of one variant can stand in for another's at
// link time. Keep the standard library out of here for the same reason: its
// inline functions are not renamed (tests/executor checks the symbols).
#include "core/executor/cpu_kernels.h"

#if !defined(REMAT_ISA_NAMESPACE) || !defined(Eigen)
#error "compile this file through remat_add_isa_variants (cmake/RematIsaVariants.cmake)"
#endif

#include <Eigen/Core>

namespace remat::exec::cpu::REMAT_ISA_NAMESPACE {

namespace {

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor>;
using Vector = Eigen::Matrix<float, Eigen::Dynamic, 1>;
using MatrixMap = Eigen::Map<Matrix, Eigen::Unaligned, Eigen::OuterStride<>>;
using ConstMatrixMap = Eigen::Map<const Matrix, Eigen::Unaligned, Eigen::OuterStride<>>;
using VectorMap = Eigen::Map<Vector>;
using ConstVectorMap = Eigen::Map<const Vector>;

// Stored rows x cols with leading dimension ld.
ConstMatrixMap stored(const float *data, Index rows, Index cols, Index ld) {
    return ConstMatrixMap(data, rows, cols, Eigen::OuterStride<>(ld));
}

template <class OpA, class OpB> void multiply(const OpA &a, const OpB &b, float alpha, float beta, MatrixMap &c) {
    if (beta == 0.0f) {
        c.noalias() = alpha * a * b;
        return;
    }
    if (beta != 1.0f)
        c *= beta;
    c.noalias() += alpha * a * b;
}

void gemm(Transpose transA, Transpose transB, Index m, Index n, Index k, float alpha, const float *A, Index lda,
          const float *B, Index ldb, float beta, float *C, Index ldc) {
    MatrixMap c(C, m, n, Eigen::OuterStride<>(ldc));
    const bool ta = transA == Transpose::Yes, tb = transB == Transpose::Yes;
    const ConstMatrixMap a = ta ? stored(A, k, m, lda) : stored(A, m, k, lda);
    const ConstMatrixMap b = tb ? stored(B, n, k, ldb) : stored(B, k, n, ldb);
    if (ta && tb)
        multiply(a.transpose(), b.transpose(), alpha, beta, c);
    else if (ta)
        multiply(a.transpose(), b, alpha, beta, c);
    else if (tb)
        multiply(a, b.transpose(), alpha, beta, c);
    else
        multiply(a, b, alpha, beta, c);
}

void tanh(Index count, const float *x, float *y) {
    VectorMap(y, count).array() = ConstVectorMap(x, count).array().tanh();
}

void mulTanhDerivative(Index count, const float *t, float *g) {
    VectorMap(g, count).array() *= 1.0f - ConstVectorMap(t, count).array().square();
}

void addBias(Index m, Index n, const float *bias, float *C, Index ldc) {
    MatrixMap(C, m, n, Eigen::OuterStride<>(ldc)).colwise() += ConstVectorMap(bias, m);
}

void rowSums(Index m, Index n, const float *A, Index lda, float *out) {
    VectorMap(out, m) = stored(A, m, n, lda).rowwise().sum();
}

void subtract(Index count, const float *a, const float *b, float *out) {
    VectorMap(out, count) = ConstVectorMap(a, count) - ConstVectorMap(b, count);
}

#define REMAT_STRINGIFY2(x) #x
#define REMAT_STRINGIFY(x) REMAT_STRINGIFY2(x)

constexpr Kernels kTable{&gemm,
                         &tanh,
                         &mulTanhDerivative,
                         &addBias,
                         &rowSums,
                         &subtract,
                         "Eigen " REMAT_STRINGIFY(EIGEN_WORLD_VERSION) "." REMAT_STRINGIFY(
                             EIGEN_MAJOR_VERSION) "." REMAT_STRINGIFY(EIGEN_MINOR_VERSION)};

} // namespace

const Kernels &kernelTable() {
    return kTable;
}

} // namespace remat::exec::cpu::REMAT_ISA_NAMESPACE
