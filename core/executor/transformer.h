#pragma once
// The transformer network the executor runs: L pre-LN encoder layers as
// GPT-2's blocks, fp32, no dropout, no attention mask (every token sees its
// whole sequence), hidden size h, `heads` heads, sequence s, batch b. Layer i
// maps x = a_(i-1) to a_i (each h x (s b), column-major, docs/executor.md):
//     x2  = x + W_o · attention(W_qkv · LN1(x) + c_qkv) + c_o
//     a_i = x2 + W_2 · gelu(W_1 · LN2(x2) + c_1) + c_2        (W_1: 4h x h)
// with loss 1/2 ||a_L - target||^2. b_i = dL/da_i as for the tanh network:
// b_L = a_L - target, and b_(i-1) is layer i's backward, which reads a_(i-1),
// b_i and what layer i's forward saved (savedBuffers below: nothing else).
#include "core/executor/transformer_math.h"
#include "core/model.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace remat::exec {

class CpuOps; // cpu_ops.h

struct TransformerShape {
    int layers = 12;
    int hidden = 768; // h
    int heads = 12;
    int seq = 128; // s
    int batch = 8; // b

    static constexpr int kMaxHidden = 1 << 16;
    static constexpr int kMaxSeq = 1 << 20;
    static constexpr int kMaxBatch = 1 << 20;
    // The most bytes one layer may save or one buffer hold: keeps every sum
    // over a million layers inside int64.
    static constexpr std::int64_t kMaxLayerBytes = std::int64_t{1} << 42;

    // Throws InvalidArgument naming the value for out-of-range sizes or h not
    // divisible by the heads, LimitExceeded when a buffer would be too large.
    void validate() const;

    std::int64_t tokens() const { return std::int64_t{seq} * batch; } // s b
    std::int64_t nodeBytes() const { return std::int64_t{hidden} * tokens() * 4; }
    // Weights, biases and LayerNorm parameters of all layers, as much again
    // for their gradients, the input and the target: the constant part.
    std::int64_t parameterBytes() const;
    math::AttentionShape attention() const { return {hidden, heads, seq, batch}; }
    std::string describe() const; // "L = 2, h = 64, 4 heads, seq 32, batch 4"
};

// One buffer a layer's recording forward keeps for its backward. The layer's
// saved bytes are exactly the sum of these: the allocation and the model both
// come from this list.
struct SavedBuffer {
    const char *name;
    std::int64_t floats;
    const char *why;
};
// A fixed array: the layers ask for it on every op, without allocating.
using SavedBufferList = std::array<SavedBuffer, 9>;
SavedBufferList savedBuffers(const TransformerShape &shape);
std::int64_t savedFloats(const TransformerShape &shape);
inline std::int64_t savedBytes(const TransformerShape &shape) {
    return savedFloats(shape) * 4;
}

// Transient floats a layer's forward and backward use besides their output
// and the saved buffers (docs/executor.md lists what they hold).
std::int64_t forwardWorkspaceFloats(const TransformerShape &shape);
std::int64_t backwardWorkspaceFloats(const TransformerShape &shape);

// FLOPs of one layer's forward: 24 s b h^2 (QKV, projection, fc1, fc2) +
// 4 s^2 b h (scores and context), as Narayanan et al. 2021 count them.
double layerForwardFlops(const TransformerShape &shape);

// The remat::Model of this network: node bytes h*s*b*4 for every a_i and b_i,
// saved bytes savedBytes(shape) for every layer, workspaces exactly as the
// backend allocates them (4 times the floats above; b_L, a_L - target, needs
// none). Costs in GFLOP: a layer's forward, twice that for its backward
// (b_(i-1)), h*s*b FLOP for b_L.
Model transformerModel(const TransformerShape &shape);

// The shape whose transformerModel() is exactly `model` (every size, workspace
// and cost), or nothing: how the studio knows that an opened model file is a
// network the executor can run, and measures that very model.
std::optional<TransformerShape> recognizeTransformer(const Model &model);

// Tensor names in LayerTensors order ("qkv_weight", ..., "fc2_bias"), as the
// CLI's JSON and bench/torch_transformer_reference.py name them.
extern const char *const kLayerTensorNames[12];

// A layer's parameters (or their gradients) as pointers into the flat
// arrays: per layer, matrices W_qkv (3h x h), W_o (h x h), W_1 (4h x h),
// W_2 (h x 4h) one after the other, and vectors LN1 gamma, beta, c_qkv, c_o,
// LN2 gamma, beta, c_1, c_2.
template <typename P> struct LayerTensors {
    P qkvWeight, projWeight, fc1Weight, fc2Weight;
    P ln1Gamma, ln1Beta, qkvBias, projBias, ln2Gamma, ln2Beta, fc1Bias, fc2Bias;
};
std::int64_t layerMatrixFloats(int hidden);                                                           // 12 h^2
std::int64_t layerVectorFloats(int hidden);                                                           // 13 h
template <typename T> LayerTensors<T *> layerTensors(T *matrices, T *vectors, int hidden, int layer); // layer 1..L

// A layer's forward: y from x. Recording (`saved` given): the internals go
// to `saved` (savedFloats). Discarding (`saved` null): they live in the
// workspace only while the layer runs. `workspace` holds
// forwardWorkspaceFloats either way; y's bits do not depend on the mode.
// y may not alias x. On the reference ops (transformer_math.h: one thread,
// float or double) or on CpuOps (the ISA kernels on every core, float).
template <typename T>
void transformerLayerForward(const TransformerShape &shape, const LayerTensors<const T *> &weights, const T *x, T *y,
                             T *saved, T *workspace);
void transformerLayerForward(const TransformerShape &shape, CpuOps &ops, const LayerTensors<const float *> &weights,
                             const float *x, float *y, float *saved, float *workspace);
// Its backward: dx = dL/dx from dy = dL/dy, x and the saved buffers; writes
// the layer's parameter gradients. dx may not alias dy.
template <typename T>
void transformerLayerBackward(const TransformerShape &shape, const LayerTensors<const T *> &weights, const T *x,
                              const T *dy, const T *saved, T *dx, const LayerTensors<T *> &gradients, T *workspace);
void transformerLayerBackward(const TransformerShape &shape, CpuOps &ops, const LayerTensors<const float *> &weights,
                              const float *x, const float *dy, const float *saved, float *dx,
                              const LayerTensors<float *> &gradients, float *workspace);

// Deterministic parameters and data, the same counter-based hash as the tanh
// network (bench/torch_transformer_reference.py regenerates them bit for bit):
// matrix W ~ U(-1/sqrt(fan_in), 1/sqrt(fan_in)), biases and betas U(-0.1, 0.1),
// gammas 1 + U(-0.1, 0.1), input and target U(-1, 1).
struct TransformerParameters {
    TransformerShape shape;
    std::vector<float> matrices; // layerMatrixFloats per layer
    std::vector<float> vectors;  // layerVectorFloats per layer
    std::vector<float> input;    // a_0: h x (s b)
    std::vector<float> target;

    static TransformerParameters generate(const TransformerShape &shape, std::uint64_t seed = 1);
    LayerTensors<const float *> layer(int index) const;
};

// The hash streams of layer `layer`'s tensors, in LayerTensors order (0..11).
std::uint64_t transformerParameterStream(int layer, int tensor);

} // namespace remat::exec
