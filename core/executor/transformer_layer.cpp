// One transformer layer's forward and backward (transformer.h), written once
// over the ops they run on: math::ReferenceOps (plain loops, float or double)
// or CpuOps (the ISA kernels on every core).
#include "core/executor/cpu_ops.h"
#include "core/executor/transformer.h"


namespace remat::exec {

namespace {

// Offsets (in floats) of the saved buffers within a layer's one allocation, in savedBuffers order.
struct SavedLayout {
    std::int64_t mean1, rstd1, qkv, probs, ctx, residual, mean2, rstd2, preGelu;
};

SavedLayout savedLayout(const TransformerShape &shape) {
    const SavedBufferList buffers = savedBuffers(shape);
    std::int64_t at[9] = {};
    std::int64_t offset = 0;
    for (std::size_t k = 0; k < buffers.size(); ++k) {
        at[k] = offset;
        offset += buffers[k].floats;
    }
    return {at[0], at[1], at[2], at[3], at[4], at[5], at[6], at[7], at[8]};
}

// Both modes run the same operations on the same values in the same order;
// only where the internals live differs. Recording: in `saved`. Discarding:
// qkv and the context in the wide part of the workspace, the attention
// scores in the narrow part and the s^2 after it (free until LN2's output
// goes there), LayerNorm statistics in the workspace's tail, x2 in y. The
// fc1 output then takes the wide part and GELU runs in place.
template <class Ops, typename T>
void layerForward(const TransformerShape &s, Ops &ops, const LayerTensors<const T *> &w, const T *x, T *y, T *saved,
                  T *workspace) {
    const int h = s.hidden;
    const std::int64_t n = s.tokens(), hn = h * n, scratchFloats = hn + std::int64_t{s.seq} * s.seq;
    T *wide = workspace, *narrow = workspace + 4 * hn, *stats = narrow + scratchFloats;
    const bool recording = saved != nullptr;
    const SavedLayout at = savedLayout(s);
    T *mean1 = recording ? saved + at.mean1 : stats, *rstd1 = recording ? saved + at.rstd1 : stats + n;
    T *mean2 = recording ? saved + at.mean2 : stats, *rstd2 = recording ? saved + at.rstd2 : stats + n;
    T *qkv = recording ? saved + at.qkv : wide, *ctx = recording ? saved + at.ctx : wide + 3 * hn;
    T *residual = recording ? saved + at.residual : y;
    T *preGelu = recording ? saved + at.preGelu : wide;
    // y holds LN1(x) until the QKV GEMM has read it.
    ops.layerNormForward(x, w.ln1Gamma, w.ln1Beta, y, mean1, rstd1, h, n);
    ops.linearForward(y, w.qkvWeight, w.qkvBias, qkv, h, 3 * h, n);
    ops.attentionForward(qkv, recording ? saved + at.probs : nullptr, ctx, narrow, scratchFloats, s.attention());
    ops.linearForwardResidual(ctx, w.projWeight, w.projBias, x, residual, h, h, n);
    if (recording)
        ops.copy(residual, y, hn);
    ops.layerNormForward(y, w.ln2Gamma, w.ln2Beta, narrow, mean2, rstd2, h, n);
    ops.linearForward(narrow, w.fc1Weight, w.fc1Bias, preGelu, h, 4 * h, n);
    ops.geluForward(preGelu, wide, 4 * hn); // in place when discarding
    ops.linearAccumulate(wide, w.fc2Weight, w.fc2Bias, y, 4 * h, h, n);
}

// The workspace: wide (4hN) gelu(fc1), then its gradient, then dqkv with
// dL/dctx in its last hN; narrow (hN) LayerNorm outputs and h-wide
// gradients, with the s^2 after it the attention's scratch.
template <class Ops, typename T>
void layerBackward(const TransformerShape &s, Ops &ops, const LayerTensors<const T *> &w, const T *x, const T *dy,
                   const T *saved, T *dx, const LayerTensors<T *> &g, T *workspace) {
    const SavedLayout at = savedLayout(s);
    const int h = s.hidden;
    const std::int64_t n = s.tokens(), hn = h * n, scratchFloats = hn + std::int64_t{s.seq} * s.seq;
    const T *residual = saved + at.residual, *preGelu = saved + at.preGelu;
    T *wide = workspace, *narrow = workspace + 4 * hn, *dctx = wide + 3 * hn;
    // MLP: a_i = x2 + W_2 gelu(u) + c_2.
    ops.geluForward(preGelu, wide, 4 * hn);
    ops.linearBackwardParameters(dy, wide, g.fc2Weight, g.fc2Bias, 4 * h, h, n);
    ops.linearBackwardInputGelu(dy, w.fc2Weight, preGelu, wide, 4 * h, h, n);
    ops.layerNormApply(residual, saved + at.mean2, saved + at.rstd2, w.ln2Gamma, w.ln2Beta, narrow, h, n);
    ops.linearBackwardParameters(wide, narrow, g.fc1Weight, g.fc1Bias, h, 4 * h, n);
    ops.linearBackwardInput(wide, w.fc1Weight, narrow, h, 4 * h, n);
    // dL/dx2: the residual path plus LayerNorm 2's.
    ops.copy(dy, dx, hn);
    ops.layerNormBackward(narrow, residual, saved + at.mean2, saved + at.rstd2, w.ln2Gamma, dx, g.ln2Gamma,
                          g.ln2Beta, h, n);
    // Attention: x2 = x + W_o ctx + c_o.
    ops.linearBackwardParameters(dx, saved + at.ctx, g.projWeight, g.projBias, h, h, n);
    ops.linearBackwardInput(dx, w.projWeight, dctx, h, h, n);
    ops.attentionBackward(dctx, saved + at.qkv, saved + at.probs, wide, narrow, scratchFloats, s.attention());
    ops.layerNormApply(x, saved + at.mean1, saved + at.rstd1, w.ln1Gamma, w.ln1Beta, narrow, h, n);
    ops.linearBackwardParameters(wide, narrow, g.qkvWeight, g.qkvBias, h, 3 * h, n);
    ops.linearBackwardInput(wide, w.qkvWeight, narrow, h, 3 * h, n);
    // dL/dx: dL/dx2 (the residual path) plus LayerNorm 1's.
    ops.layerNormBackward(narrow, x, saved + at.mean1, saved + at.rstd1, w.ln1Gamma, dx, g.ln1Gamma, g.ln1Beta, h,
                          n);
}

} // namespace

template <typename T>
void transformerLayerForward(const TransformerShape &s, const LayerTensors<const T *> &w, const T *x, T *y, T *saved,
                             T *workspace) {
    math::ReferenceOps<T> ops;
    layerForward(s, ops, w, x, y, saved, workspace);
}

template <typename T>
void transformerLayerBackward(const TransformerShape &s, const LayerTensors<const T *> &w, const T *x, const T *dy,
                              const T *saved, T *dx, const LayerTensors<T *> &g, T *workspace) {
    math::ReferenceOps<T> ops;
    layerBackward(s, ops, w, x, dy, saved, dx, g, workspace);
}

void transformerLayerForward(const TransformerShape &s, CpuOps &ops, const LayerTensors<const float *> &w,
                             const float *x, float *y, float *saved, float *workspace) {
    layerForward(s, ops, w, x, y, saved, workspace);
}

void transformerLayerBackward(const TransformerShape &s, CpuOps &ops, const LayerTensors<const float *> &w,
                              const float *x, const float *dy, const float *saved, float *dx,
                              const LayerTensors<float *> &g, float *workspace) {
    layerBackward(s, ops, w, x, dy, saved, dx, g, workspace);
}

template void transformerLayerForward<float>(const TransformerShape &, const LayerTensors<const float *> &,
                                             const float *, float *, float *, float *);
template void transformerLayerForward<double>(const TransformerShape &, const LayerTensors<const double *> &,
                                              const double *, double *, double *, double *);
template void transformerLayerBackward<float>(const TransformerShape &, const LayerTensors<const float *> &,
                                              const float *, const float *, const float *, float *,
                                              const LayerTensors<float *> &, float *);
template void transformerLayerBackward<double>(const TransformerShape &, const LayerTensors<const double *> &,
                                               const double *, const double *, const double *, double *,
                                               const LayerTensors<double *> &, double *);

} // namespace remat::exec
