#pragma once
// The CPU backends' math on every core: each op of the tanh network and the
// transformer cut into tasks, run on a ThreadPool through the kernels of one
// instruction set (cpu_kernels.h).
//
// Same bits for 1 and N threads. An op's tasks, their number and extent, are
// a function of the op's sizes alone, and every output value is written by
// one task with the same single-threaded kernel call whichever thread runs
// it. No reduction is split across tasks: a GEMM is cut along the rows and
// columns of its result, never along its depth; a bias or LayerNorm
// parameter gradient (a sum over the tokens) is cut along the features, each
// summing all its tokens in order; attention runs a (sequence, head) per
// task, and its backward adds up dK and dV chunk after chunk in order inside
// that task. tests/executor checks 1, 2, 3 and 7 threads bitwise.
//
// Memory. Nothing here touches the tracking allocator: an op computes in the
// buffers its caller gives (the node, saved and workspace buffers the model
// counts). Attention's per-task scratch (one chunk of scores or of their
// gradient) comes out of a region of the layer's workspace the caller names;
// only as many tasks run at once as that region holds chunks, so the
// workspace, and with it the model, is the same for every thread count.
// Besides, each thread keeps the packed panels of its GEMMs (Eigen packs
// operands into cache-sized panels): allocated once, when an op first needs
// more, reused by every later op, and reported by scratchBytes(), a constant
// like the parameters.
#include "core/executor/cpu_kernels.h"
#include "core/executor/thread_pool.h"
#include "core/executor/transformer_math.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace remat::exec {

class CpuOps {
public:
    CpuOps(cpu::Isa isa, int threads);
    ~CpuOps();
    CpuOps(const CpuOps &) = delete;
    CpuOps &operator=(const CpuOps &) = delete;

    cpu::Isa isa() const { return isa_; }
    int threads() const { return pool_.threads(); }
    const cpu::Kernels &kernels() const { return k_; }
    // The threads' GEMM packing buffers, allocated so far (constant once every op has run).
    std::int64_t scratchBytes() const;

    using Transpose = cpu::Transpose;
    using Index = cpu::Index;
    // After a tile of C is computed: (first row, rows, first column, columns).
    using TileEpilogue = FunctionRef<void(Index, Index, Index, Index)>;

    // One GEMM as an op asked for it (before it is cut into tiles).
    struct GemmCall {
        Transpose transA, transB;
        Index m, n, k;
    };
    // Appends every GEMM the ops run from now on to `log` (null: stop), for
    // benchmarks that run a step's very GEMMs on another BLAS.
    void recordGemms(std::vector<GemmCall> *log) { gemmLog_ = log; }

    // C = alpha op(A) op(B) + beta C (cpu::Kernels::gemm), cut into tiles of
    // C; `epilogue` then runs on each tile while it is still in cache.
    void gemm(Transpose transA, Transpose transB, Index m, Index n, Index k, float alpha, const float *A, Index lda,
              const float *B, Index ldb, float beta, float *C, Index ldc, TileEpilogue epilogue = {});

    // Elementwise, cut into fixed chunks (cpu::Kernels has each one's meaning).
    void tanh(Index count, const float *x, float *y);
    void mulTanhDerivative(Index count, const float *t, float *g);
    void subtract(Index count, const float *a, const float *b, float *out);

    // The layer ops of transformer_math.h (the same names, arguments and
    // meaning as math::ReferenceOps, so that transformerLayerForward runs on
    // either): activations of c features x n tokens, weights out x in.
    void layerNormForward(const float *x, const float *gamma, const float *beta, float *y, float *mean, float *rstd,
                          int c, std::int64_t n);
    void layerNormApply(const float *x, const float *mean, const float *rstd, const float *gamma, const float *beta,
                        float *y, int c, std::int64_t n);
    void layerNormBackward(const float *dy, const float *x, const float *mean, const float *rstd, const float *gamma,
                           float *dx, float *dgamma, float *dbeta, int c, std::int64_t n);
    void linearForward(const float *x, const float *weight, const float *bias, float *y, int in, int out,
                       std::int64_t n);
    void linearAccumulate(const float *x, const float *weight, const float *bias, float *y, int in, int out,
                          std::int64_t n);
    // y = W x + bias + residual, the sums in that order.
    void linearForwardResidual(const float *x, const float *weight, const float *bias, const float *residual, float *y,
                               int in, int out, std::int64_t n);
    void linearBackwardParameters(const float *dy, const float *x, float *dweight, float *dbias, int in, int out,
                                  std::int64_t n);
    void linearBackwardInput(const float *dy, const float *weight, float *dx, int in, int out, std::int64_t n);
    // dx = (W^T dy) .* gelu'(u): the input gradient through a GELU whose input was u.
    void linearBackwardInputGelu(const float *dy, const float *weight, const float *u, float *dx, int in, int out,
                                 std::int64_t n);
    void copy(const float *from, float *to, std::int64_t count);
    void geluForward(const float *u, float *g, std::int64_t count);
    // Attention (math::attentionForward / attentionBackward): `scratch` holds
    // `scratchFloats` free floats of the layer's workspace, at least seq^2.
    void attentionForward(const float *qkv, float *savedProbs, float *ctx, float *scratch,
                          std::int64_t scratchFloats, const math::AttentionShape &shape);
    void attentionBackward(const float *dctx, const float *qkv, const float *probs, float *dqkv, float *scratch,
                           std::int64_t scratchFloats, const math::AttentionShape &shape);

private:
    struct AlignedFloats {
        void operator()(float *p) const;
    };
    // Every thread's packing buffer holds at least `floats`.
    void reservePacking(Index floats);
    float *packing(int lane) const { return packing_[static_cast<std::size_t>(lane)].get(); }
    // The kernel's GEMM on one thread (attention's), logged when asked.
    void gemmTask(Transpose transA, Transpose transB, Index m, Index n, Index k, float alpha, const float *A, Index lda,
                  const float *B, Index ldb, float beta, float *C, Index ldc, int lane);
    void logGemm(Transpose transA, Transpose transB, Index m, Index n, Index k);
    // body(first, count) over [0, total) in chunks of `chunk`.
    void chunks(Index total, Index chunk, FunctionRef<void(Index, Index)> body);

    cpu::Isa isa_;
    const cpu::Kernels &k_;
    ThreadPool pool_;
    std::vector<std::unique_ptr<float[], AlignedFloats>> packing_; // by lane
    Index packingFloats_ = 0;
    std::vector<GemmCall> *gemmLog_ = nullptr;
    std::mutex gemmLogMutex_; // attention's GEMMs are logged from the threads
};

} // namespace remat::exec
