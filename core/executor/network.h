#pragma once
// The network the executor runs: n pre-activation layers
//     a_i = W_i * tanh(a_(i-1)) + c_i      (i = 1..n, W_i: w x w, c_i: w)
// on a batch of b columns (every a_i is a w x b fp32 matrix, column-major),
// with loss 1/2 ||a_n - target||^2. Backward node b_i = dL/da_i:
//     b_n = a_n - target
//     b_p = (W_(p+1)^T b_(p+1)) .* (1 - tanh(a_p)^2)     (p = n-1..0)
// and computing b_p also yields the weight gradients of layer p+1:
//     dW_(p+1) = b_(p+1) tanh(a_p)^T,  dc_(p+1) = b_(p+1) summed over the batch.
// So b_p reads exactly a_p and b_(p+1), as docs/model.md states.
#include "core/model.h"

#include <cstdint>
#include <vector>

namespace remat::exec {

struct NetworkShape {
    int layers = 64;  // n
    int width = 1024; // w
    int batch = 256;  // b

    // Largest width and batch accepted (cuBLAS takes int dimensions; beyond
    // this a single node would not fit any machine anyway).
    static constexpr int kMaxWidth = 1 << 16;
    static constexpr int kMaxBatch = 1 << 20;

    // Throws InvalidArgument naming the value for zero or out-of-range sizes.
    // Within these ranges no byte count below can overflow int64.
    void validate() const;

    std::int64_t elements() const { return std::int64_t{width} * batch; } // values per node
    std::int64_t nodeBytes() const { return elements() * static_cast<std::int64_t>(sizeof(float)); }
    // Weights and biases of all layers, and as much again for their gradients,
    // plus the input batch and the target: the constant part of a step.
    std::int64_t parameterBytes() const;
};

// Transient bytes the backends allocate while computing a node: one w x b
// buffer holding tanh(a_(i-1)) (forward) or tanh(a_p) (backward below b_n);
// b_n = a_n - target needs none. docs/model.md and docs/executor.md.
std::int64_t forwardWorkspaceBytes(const NetworkShape &shape, int i);
std::int64_t backwardWorkspaceBytes(const NetworkShape &shape, int i);

// The remat::Model of this network: node bytes b*w*4, forward cost 1 (one
// GEMM), backward cost 2 (two GEMMs), workspaces exactly as allocated.
Model networkModel(const NetworkShape &shape);

// Deterministic parameters and data on the host, the same on every backend:
// uniform values from a counter-based hash, so any slice can be regenerated.
struct NetworkParameters {
    NetworkShape shape;
    std::vector<float> weights; // layer i (1..n) at (i-1)*w*w, column-major w x w
    std::vector<float> biases;  // layer i at (i-1)*w
    std::vector<float> input;   // a_0, w x b
    std::vector<float> target;  // w x b

    static NetworkParameters generate(const NetworkShape &shape, std::uint64_t seed = 1);
    const float *weight(int layer) const {
        return weights.data() + std::int64_t{layer - 1} * shape.width * shape.width;
    }
    const float *bias(int layer) const { return biases.data() + std::int64_t{layer - 1} * shape.width; }
};

// Throws InvalidArgument "<what> must be an integer from 1 to <max>, got <value>".
void requireRange(const char *what, int value, int max);

// Fills out[0..count) with values uniform in [-scale, scale) from a
// counter-based hash of (seed, stream, index): any slice can be regenerated,
// in any language (bench/torch_transformer_reference.py does).
void fillUniform(float *out, std::int64_t count, std::uint64_t seed, std::uint64_t stream, float scale);

// What a step produces: every weight and bias gradient, and b_0.
struct Gradients {
    std::vector<float> weights; // same layout as NetworkParameters::weights
    std::vector<float> biases;
    std::vector<float> input; // b_0

    bool bitwiseEqual(const Gradients &other) const;
    // Largest |x - y| over all entries; infinity when shapes differ or a value is NaN.
    double maxAbsDiff(const Gradients &other) const;
};

} // namespace remat::exec
