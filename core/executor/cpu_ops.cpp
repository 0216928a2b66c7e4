#include "core/executor/cpu_ops.h"

#include "core/errors.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

namespace remat::exec {

namespace {

using Index = cpu::Index;
using cpu::Transpose;

// Tasks of about `target` along an extent, a multiple of `quantum` (the last
// may be shorter): a function of the extent alone.
Index taskExtent(Index extent, Index target, Index quantum) {
    const Index count = std::max<Index>(1, (extent + target / 2) / target);
    const Index size = ((extent + count - 1) / count + quantum - 1) / quantum * quantum;
    return std::min(size, extent);
}

// GEMM tiles: rows in multiples of 48 (whole register panels: Eigen's
// kernels take 3 packets of rows, 48 floats with AVX-512, 24 with AVX2, 12
// with SSE), columns in multiples of 16. Wide enough that re-packing an
// operand for each tile costs a few percent: halving the tiles of GEMMs with
// fewer than six tiles (to share them better among threads) cost 6 % more
// CPU time a step on one thread (L 4 h 256 and L 2 h 768, 2026-11-24).
constexpr Index kTileRows = 192, kTileRowQuantum = 48;
constexpr Index kTileColumns = 256, kTileColumnQuantum = 16;
// Elementwise chunks, and the features of a parameter-gradient task.
constexpr Index kChunk = 16384;
constexpr Index kFeatureChunk = 64;
// Tokens of a LayerNorm task: about kChunk / 2 values.
Index tokenChunk(int c) {
    return std::max<Index>(1, kChunk / 2 / c);
}

Index ceilDiv(Index a, Index b) {
    return (a + b - 1) / b;
}

// The tiles of one GEMM, each a task.
struct GemmTiles {
    Transpose transA, transB;
    Index m, n, k;
    float alpha;
    const float *A;
    Index lda;
    const float *B;
    Index ldb;
    float beta;
    float *C;
    Index ldc;
    Index tileRows, tileColumns, rowTiles, count;

    GemmTiles(Transpose ta, Transpose tb, Index m_, Index n_, Index k_, float alpha_, const float *A_, Index lda_,
              const float *B_, Index ldb_, float beta_, float *C_, Index ldc_)
        : transA(ta), transB(tb), m(m_), n(n_), k(k_), alpha(alpha_), A(A_), lda(lda_), B(B_), ldb(ldb_),
          beta(beta_), C(C_), ldc(ldc_) {
        tileRows = taskExtent(m, kTileRows, kTileRowQuantum);
        tileColumns = taskExtent(n, kTileColumns, kTileColumnQuantum);
        rowTiles = m > 0 ? ceilDiv(m, tileRows) : 0;
        count = n > 0 ? rowTiles * ceilDiv(n, tileColumns) : 0;
    }
    // Packing for the largest tile (the others are no larger in any dimension).
    Index packingFloats(const cpu::Kernels &k_) const {
        return count ? k_.gemmPackingFloats(tileRows, tileColumns, k) : 0;
    }
    struct Tile {
        Index row, rows, column, columns;
    };
    Tile tile(Index task) const {
        const Index row = task % rowTiles * tileRows, column = task / rowTiles * tileColumns;
        return {row, std::min(tileRows, m - row), column, std::min(tileColumns, n - column)};
    }
    void run(const cpu::Kernels &kernels, const Tile &t, float *packing) const {
        const float *a = transA == Transpose::No ? A + t.row : A + t.row * lda;
        const float *b = transB == Transpose::No ? B + t.column * ldb : B + t.column;
        kernels.gemm(transA, transB, t.rows, t.columns, k, alpha, a, lda, b, ldb, beta, C + t.row + t.column * ldc,
                     ldc, packing);
    }
};

} // namespace

void CpuOps::AlignedFloats::operator()(float *p) const {
    std::free(p);
}

CpuOps::CpuOps(cpu::Isa isa, int threads)
    : isa_(isa), k_(cpu::kernels(isa)), pool_(threads), packing_(static_cast<std::size_t>(threads)) {}

CpuOps::~CpuOps() = default;

std::int64_t CpuOps::scratchBytes() const {
    return static_cast<std::int64_t>(packing_.size()) * packingFloats_ * static_cast<std::int64_t>(sizeof(float));
}

void CpuOps::reservePacking(Index floats) {
    if (floats <= packingFloats_)
        return;
    const auto bytes = (static_cast<std::size_t>(floats) * sizeof(float) + 63) / 64 * 64;
    for (auto &buffer : packing_) {
        buffer.reset(); // the old one first: at most one lane's worth more at a time
        buffer.reset(static_cast<float *>(std::aligned_alloc(64, bytes)));
        if (!buffer) {
            packingFloats_ = 0;
            for (auto &b : packing_)
                b.reset();
            throw OutOfMemory("host out of memory: the CPU kernels' packing buffers need " + std::to_string(bytes) +
                              " bytes per thread");
        }
    }
    packingFloats_ = floats;
}

void CpuOps::chunks(Index total, Index chunk, FunctionRef<void(Index, Index)> body) {
    pool_.run(ceilDiv(total, chunk), [&](std::int64_t task, int) {
        const Index first = task * chunk;
        body(first, std::min(chunk, total - first));
    });
}

void CpuOps::logGemm(Transpose transA, Transpose transB, Index m, Index n, Index k) {
    if (!gemmLog_)
        return;
    const std::lock_guard<std::mutex> lock(gemmLogMutex_);
    gemmLog_->push_back({transA, transB, m, n, k});
}

void CpuOps::gemmTask(Transpose transA, Transpose transB, Index m, Index n, Index k, float alpha, const float *A,
                      Index lda, const float *B, Index ldb, float beta, float *C, Index ldc, int lane) {
    logGemm(transA, transB, m, n, k);
    k_.gemm(transA, transB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, packing(lane));
}

void CpuOps::gemm(Transpose transA, Transpose transB, Index m, Index n, Index k, float alpha, const float *A, Index lda,
                  const float *B, Index ldb, float beta, float *C, Index ldc, TileEpilogue epilogue) {
    logGemm(transA, transB, m, n, k);
    const GemmTiles tiles(transA, transB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
    reservePacking(tiles.packingFloats(k_));
    pool_.run(tiles.count, [&](std::int64_t task, int lane) {
        const GemmTiles::Tile t = tiles.tile(task);
        tiles.run(k_, t, packing(lane));
        if (epilogue)
            epilogue(t.row, t.rows, t.column, t.columns);
    });
}

void CpuOps::tanh(Index count, const float *x, float *y) {
    chunks(count, kChunk, [&](Index at, Index n) { k_.tanh(n, x + at, y + at); });
}

void CpuOps::mulTanhDerivative(Index count, const float *t, float *g) {
    chunks(count, kChunk, [&](Index at, Index n) { k_.mulTanhDerivative(n, t + at, g + at); });
}

void CpuOps::subtract(Index count, const float *a, const float *b, float *out) {
    chunks(count, kChunk, [&](Index at, Index n) { k_.subtract(n, a + at, b + at, out + at); });
}

void CpuOps::copy(const float *from, float *to, std::int64_t count) {
    chunks(count, kChunk,
           [&](Index at, Index n) { std::memcpy(to + at, from + at, static_cast<std::size_t>(n) * sizeof(float)); });
}

void CpuOps::geluForward(const float *u, float *g, std::int64_t count) {
    chunks(count, kChunk, [&](Index at, Index n) { k_.gelu(n, u + at, g + at); });
}

void CpuOps::layerNormForward(const float *x, const float *gamma, const float *beta, float *y, float *mean,
                              float *rstd, int c, std::int64_t n) {
    chunks(n, tokenChunk(c), [&](Index t, Index tokens) {
        k_.layerNormForward(c, tokens, x + t * c, gamma, beta, y + t * c, mean + t, rstd + t);
    });
}

void CpuOps::layerNormApply(const float *x, const float *mean, const float *rstd, const float *gamma,
                            const float *beta, float *y, int c, std::int64_t n) {
    chunks(n, tokenChunk(c), [&](Index t, Index tokens) {
        k_.layerNormApply(c, tokens, x + t * c, mean + t, rstd + t, gamma, beta, y + t * c);
    });
}

// dx by tokens and the parameter gradients by features, in one region.
void CpuOps::layerNormBackward(const float *dy, const float *x, const float *mean, const float *rstd,
                               const float *gamma, float *dx, float *dgamma, float *dbeta, int c, std::int64_t n) {
    const Index perTask = tokenChunk(c), tokenTasks = ceilDiv(n, perTask);
    pool_.run(tokenTasks + ceilDiv(c, kFeatureChunk), [&](std::int64_t task, int) {
        if (task < tokenTasks) {
            const Index t = task * perTask, tokens = std::min(perTask, n - t);
            k_.layerNormBackwardInput(c, tokens, dy + t * c, x + t * c, mean + t, rstd + t, gamma, dx + t * c);
            return;
        }
        const Index f = (task - tokenTasks) * kFeatureChunk;
        k_.layerNormBackwardParameters(std::min<Index>(kFeatureChunk, c - f), c, n, dy + f, x + f, mean, rstd,
                                       dgamma + f, dbeta + f);
    });
}

void CpuOps::linearForward(const float *x, const float *weight, const float *bias, float *y, int in, int out,
                           std::int64_t n) {
    gemm(Transpose::No, Transpose::No, out, n, in, 1.0f, weight, out, x, in, 0.0f, y, out,
         [&](Index r, Index rows, Index col, Index cols) { k_.addBias(rows, cols, bias + r, y + r + col * out, out); });
}

void CpuOps::linearAccumulate(const float *x, const float *weight, const float *bias, float *y, int in, int out,
                              std::int64_t n) {
    gemm(Transpose::No, Transpose::No, out, n, in, 1.0f, weight, out, x, in, 1.0f, y, out,
         [&](Index r, Index rows, Index col, Index cols) { k_.addBias(rows, cols, bias + r, y + r + col * out, out); });
}

void CpuOps::linearForwardResidual(const float *x, const float *weight, const float *bias, const float *residual,
                                   float *y, int in, int out, std::int64_t n) {
    gemm(Transpose::No, Transpose::No, out, n, in, 1.0f, weight, out, x, in, 0.0f, y, out,
         [&](Index r, Index rows, Index col, Index cols) {
             k_.addBias(rows, cols, bias + r, y + r + col * out, out);
             for (Index j = col; j < col + cols; ++j)
                 k_.add(rows, residual + r + j * out, y + r + j * out);
         });
}

// dW = dy x^T by tiles of dW and dbias by rows, in one region.
void CpuOps::linearBackwardParameters(const float *dy, const float *x, float *dweight, float *dbias, int in, int out,
                                      std::int64_t n) {
    logGemm(Transpose::No, Transpose::Yes, out, in, n);
    const GemmTiles tiles(Transpose::No, Transpose::Yes, out, in, n, 1.0f, dy, out, x, in, 0.0f, dweight, out);
    reservePacking(tiles.packingFloats(k_));
    pool_.run(tiles.count + ceilDiv(out, kFeatureChunk), [&](std::int64_t task, int lane) {
        if (task < tiles.count) {
            tiles.run(k_, tiles.tile(task), packing(lane));
            return;
        }
        const Index r = (task - tiles.count) * kFeatureChunk;
        k_.rowSums(std::min<Index>(kFeatureChunk, out - r), n, dy + r, out, dbias + r);
    });
}

void CpuOps::linearBackwardInput(const float *dy, const float *weight, float *dx, int in, int out, std::int64_t n) {
    gemm(Transpose::Yes, Transpose::No, in, n, out, 1.0f, weight, out, dy, out, 0.0f, dx, in);
}

void CpuOps::linearBackwardInputGelu(const float *dy, const float *weight, const float *u, float *dx, int in, int out,
                                     std::int64_t n) {
    gemm(Transpose::Yes, Transpose::No, in, n, out, 1.0f, weight, out, dy, out, 0.0f, dx, in,
         [&](Index r, Index rows, Index col, Index cols) {
             for (Index j = col; j < col + cols; ++j)
                 k_.geluBackward(rows, u + r + j * in, dx + r + j * in, dx + r + j * in);
         });
}

} // namespace remat::exec
