#pragma once
// The dense math of the CPU backend behind one table of functions, built once
// per instruction set (cpu_kernels_isa.cpp, compiled by CMake's
// remat_add_isa_variants for x86-64 baseline, AVX2+FMA and AVX-512) and chosen
// at run time, so one installed binary runs everywhere and at full speed where
// the CPU allows. Matrices are fp32, column-major, BLAS conventions. Each
// variant is deterministic: the same call on the same variant gives the same
// bits; variants differ in rounding (FMA, blocking, vector width).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace remat::exec::cpu {

enum class Isa {
    Baseline, // x86-64 (SSE2), or the compiler's default elsewhere
    Avx2,     // x86-64-v3: AVX2, FMA, F16C, BMI1/2
    Avx512,   // x86-64-v4: AVX-512 F, CD, BW, DQ, VL on top of AVX2
};

enum class Transpose { No, Yes };

using Index = std::int64_t;

// One variant's functions (cpu_kernels_isa.cpp and transformer_kernels_isa.cpp
// define one table per variant, remat::exec::cpu::isa_<name>::kernelTable()).
// Each call runs on the calling thread and allocates nothing; CpuOps
// (cpu_ops.h) cuts the work of an op into tasks and runs them on threads.
//
// The elementwise and per-column kernels send every value through the same
// vector code whatever its address or its place in the range (a range's tail
// goes through a padded vector), so a value's bits never depend on where a
// buffer lies or how a range was cut into tasks.
struct Kernels {
    // C = alpha op(A) op(B) + beta C, op(A) m x k, op(B) k x n, C m x n; with
    // beta == 0 C is only written (it may hold anything, NaN included).
    // Eigen's blocked product (Goto's algorithm) with its packed panels in
    // `packing`, gemmPackingFloats(m, n, k) floats aligned to 64 bytes.
    void (*gemm)(Transpose transA, Transpose transB, Index m, Index n, Index k, float alpha, const float *A, Index lda,
                 const float *B, Index ldb, float beta, float *C, Index ldc, float *packing);
    Index (*gemmPackingFloats)(Index m, Index n, Index k);
    // y[i] = tanh(x[i]) for i < count (x == y allowed).
    void (*tanh)(Index count, const float *x, float *y);
    // g[i] *= 1 - t[i]^2: the chain rule through tanh, given t = tanh(a).
    void (*mulTanhDerivative)(Index count, const float *t, float *g);
    // out[i] = a[i] - b[i].
    void (*subtract)(Index count, const float *a, const float *b, float *out);
    // y[i] += x[i].
    void (*add)(Index count, const float *x, float *y);
    // Adds bias[r] to every column of the m x n matrix C.
    void (*addBias)(Index m, Index n, const float *bias, float *C, Index ldc);
    // out[r] = the sum over the n columns of row r of A (m x n), added column
    // after column: the same bits however the rows are cut.
    void (*rowSums)(Index m, Index n, const float *A, Index lda, float *out);

    // The transformer's ops (transformer_math.h has their references). An
    // activation is c features x `tokens` tokens, column-major, contiguous.
    // GELU with GPT-2's tanh approximation; g may alias u, du may alias dg.
    void (*gelu)(Index count, const float *u, float *g);
    void (*geluBackward)(Index count, const float *u, const float *dg, float *du);
    // LayerNorm per token: mean, rstd and y = (x - mean) rstd gamma + beta.
    void (*layerNormForward)(Index c, Index tokens, const float *x, const float *gamma, const float *beta, float *y,
                             float *mean, float *rstd);
    // y from the saved statistics: bitwise what layerNormForward wrote.
    void (*layerNormApply)(Index c, Index tokens, const float *x, const float *mean, const float *rstd,
                           const float *gamma, const float *beta, float *y);
    // dx += dL/dx per token.
    void (*layerNormBackwardInput)(Index c, Index tokens, const float *dy, const float *x, const float *mean,
                                   const float *rstd, const float *gamma, float *dx);
    // dgamma, dbeta (written) of `features` features, stored c apart, summed
    // over the tokens in order (dy and x point at the first feature).
    void (*layerNormBackwardParameters)(Index features, Index c, Index tokens, const float *dy, const float *x,
                                        const float *mean, const float *rstd, float *dgamma, float *dbeta);
    // Softmax down each column of `scale` times the rows x cols matrix p, in place.
    void (*scaledSoftmax)(Index rows, Index cols, float scale, float *p);
    // dz = scale p .* (dp - sum(p .* dp)) per column (dz may alias dp).
    void (*scaledSoftmaxBackward)(Index rows, Index cols, float scale, const float *p, const float *dp, float *dz);

    // "Eigen 3.4.0" as compiled into this variant.
    const char *library;
};

// "baseline", "avx2", "avx512": the names REMAT_CPU_ISA accepts.
std::string_view isaName(Isa isa);
// "x86-64", "AVX2+FMA", "AVX-512": for device names.
std::string_view isaLabel(Isa isa);
// Throws InvalidArgument naming the value and the names allowed.
Isa parseIsa(std::string_view name);

// Variants built into this binary that this CPU (and OS) can run, slowest first.
std::vector<Isa> supportedIsas();
bool isSupported(Isa isa);

// The kernels of one variant; throws DeviceUnavailable when this binary lacks
// it or the CPU cannot run it.
const Kernels &kernels(Isa isa);

// The variant to use: REMAT_CPU_ISA when set (InvalidArgument for an unknown
// name, DeviceUnavailable for one the CPU cannot run), else the fastest
// supported. Read on every call, so tests and benchmarks may change it.
Isa selectedIsa();

} // namespace remat::exec::cpu
