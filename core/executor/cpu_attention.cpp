// Attention on every core (CpuOps::attentionForward / attentionBackward):
// the same math as math::attentionForward and math::attentionBackward, a
// (sequence, head) at a time, its queries in chunks whose scores fit in a
// core's cache.
#include "core/executor/cpu_ops.h"

#include <algorithm>
#include <cmath>

namespace remat::exec {

namespace {

using Index = cpu::Index;
using cpu::Transpose;

// Queries per chunk: all of them while a head's scores (seq^2 floats) stay
// within 128 KiB, else as many as fit, a multiple of 16. A function of seq alone.
Index queryChunk(int seq) {
    constexpr Index kScoreFloats = 32768;
    const Index s = seq;
    if (s * s <= kScoreFloats)
        return s;
    return std::min(s, std::max<Index>(16, kScoreFloats / s / 16 * 16));
}

// One (sequence, head): where its queries, keys, values and context are.
struct Head {
    const float *q, *k, *v; // d x seq each, leading dimension 3h
    Index context;          // offset of its d x seq block of an h x tokens matrix (leading dimension h)
    Index probs;            // offset of its seq x seq block of the saved probabilities

    Head(const math::AttentionShape &s, Index b, Index head, const float *qkv) {
        const Index h = s.hidden, d = s.headDim();
        q = qkv + b * s.seq * 3 * h + head * d;
        k = q + h;
        v = q + 2 * h;
        context = b * s.seq * h + head * d;
        probs = (b * s.heads + head) * Index{s.seq} * s.seq;
    }
};

} // namespace

void CpuOps::attentionForward(const float *qkv, float *savedProbs, float *ctx, float *scratch,
                              std::int64_t scratchFloats, const math::AttentionShape &shape) {
    const Index s = shape.seq, d = shape.headDim(), h3 = 3 * Index{shape.hidden}, h = shape.hidden;
    const Index chunk = queryChunk(shape.seq), perHead = (s + chunk - 1) / chunk;
    const float scale = 1.0f / std::sqrt(static_cast<float>(d));
    reservePacking(std::max(k_.gemmPackingFloats(s, chunk, d), k_.gemmPackingFloats(d, chunk, s)));
    // Recording writes the scores straight into the saved probabilities;
    // discarding needs a chunk of scratch per task running.
    const auto lanes = savedProbs ? threads() : static_cast<int>(std::min<std::int64_t>(scratchFloats / (s * chunk), threads()));
    pool_.run(
        Index{shape.batch} * shape.heads * perHead,
        [&](std::int64_t task, int lane) {
            const Index q0 = task % perHead * chunk, queries = std::min(chunk, s - q0);
            const Head head(shape, task / perHead / shape.heads, task / perHead % shape.heads, qkv);
            float *scores = savedProbs ? savedProbs + head.probs + q0 * s : scratch + lane * s * chunk;
            gemmTask(Transpose::Yes, Transpose::No, s, queries, d, 1.0f, head.k, h3, head.q + q0 * h3, h3, 0.0f,
                     scores, s, lane);
            k_.scaledSoftmax(s, queries, scale, scores);
            gemmTask(Transpose::No, Transpose::No, d, queries, s, 1.0f, head.v, h3, scores, s, 0.0f,
                     ctx + head.context + q0 * h, h, lane);
        },
        std::max(1, lanes));
}

// Per (sequence, head), chunk after chunk of queries: dV and dK add up over
// the chunks in order, dQ and the scores' gradient are the chunk's own.
void CpuOps::attentionBackward(const float *dctx, const float *qkv, const float *probs, float *dqkv, float *scratch,
                               std::int64_t scratchFloats, const math::AttentionShape &shape) {
    const Index s = shape.seq, d = shape.headDim(), h3 = 3 * Index{shape.hidden}, h = shape.hidden;
    const Index chunk = queryChunk(shape.seq);
    const float scale = 1.0f / std::sqrt(static_cast<float>(d));
    reservePacking(std::max({k_.gemmPackingFloats(d, s, chunk), k_.gemmPackingFloats(s, chunk, d),
                             k_.gemmPackingFloats(d, chunk, s)}));
    const auto lanes = static_cast<int>(std::min<std::int64_t>(scratchFloats / (s * chunk), threads()));
    pool_.run(
        Index{shape.batch} * shape.heads,
        [&](std::int64_t task, int lane) {
            const Head head(shape, task / shape.heads, task % shape.heads, qkv);
            float *dq = dqkv + (head.q - qkv), *dk = dq + h, *dv = dq + 2 * h;
            float *dscores = scratch + lane * s * chunk;
            for (Index q0 = 0; q0 < s; q0 += chunk) {
                const Index queries = std::min(chunk, s - q0);
                const float *dc = dctx + head.context + q0 * h, *p = probs + head.probs + q0 * s;
                const float accumulate = q0 == 0 ? 0.0f : 1.0f;
                gemmTask(Transpose::No, Transpose::Yes, d, s, queries, 1.0f, dc, h, p, s, accumulate, dv, h3, lane);
                gemmTask(Transpose::Yes, Transpose::No, s, queries, d, 1.0f, head.v, h3, dc, h, 0.0f, dscores, s, lane);
                k_.scaledSoftmaxBackward(s, queries, scale, p, dscores, dscores);
                gemmTask(Transpose::No, Transpose::No, d, queries, s, 1.0f, head.k, h3, dscores, s, 0.0f, dq + q0 * h3,
                         h3, lane);
                gemmTask(Transpose::No, Transpose::Yes, d, s, queries, 1.0f, head.q + q0 * h3, h3, dscores, s,
                         accumulate, dk, h3, lane);
            }
        },
        std::max(1, lanes));
}

} // namespace remat::exec
