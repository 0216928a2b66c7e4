#include "core/executor/transformer.h"

#include "core/errors.h"
#include "core/executor/network.h"
#include "core/units.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>

namespace remat::exec {

void TransformerShape::validate() const {
    requireRange("layers", layers, Model::kMaxLayers);
    requireRange("hidden size h", hidden, kMaxHidden);
    requireRange("heads", heads, hidden);
    requireRange("sequence length", seq, kMaxSeq);
    requireRange("batch", batch, kMaxBatch);
    if (hidden % heads != 0)
        throw InvalidArgument("hidden size h = " + std::to_string(hidden) + " is not divisible by heads = " +
                              std::to_string(heads) + ": every head takes h / heads of the features");
    if (tokens() > INT_MAX)
        throw LimitExceeded("sequence length x batch = " + std::to_string(tokens()) + " tokens, more than the " +
                            std::to_string(INT_MAX) + " a GEMM dimension can hold");
    // Estimated in double first, so that nothing below overflows int64.
    const double n = static_cast<double>(tokens()), h = hidden;
    const double probs = static_cast<double>(heads) * seq * static_cast<double>(seq) * batch;
    const double largest = 4 * std::max(n * (9 * h + 4) + probs, 5 * h * n + static_cast<double>(seq) * seq);
    if (largest > static_cast<double>(kMaxLayerBytes))
        throw LimitExceeded("a layer of " + describe() + " would need about " +
                            formatBytes(static_cast<std::int64_t>(std::min(largest, 9e18))) +
                            " of saved buffers or workspace, more than the " + formatBytes(kMaxLayerBytes) +
                            " remat accepts for one layer");
}

std::int64_t TransformerShape::parameterBytes() const {
    const std::int64_t perLayer = layerMatrixFloats(hidden) + layerVectorFloats(hidden);
    return 4 * (2 * layers * perLayer + 2 * std::int64_t{hidden} * tokens());
}

std::string TransformerShape::describe() const {
    return "L = " + std::to_string(layers) + ", h = " + std::to_string(hidden) + ", " + std::to_string(heads) +
           " heads, seq " + std::to_string(seq) + ", batch " + std::to_string(batch);
}

SavedBufferList savedBuffers(const TransformerShape &shape) {
    const std::int64_t n = shape.tokens(), h = shape.hidden;
    return {{
        {"ln1_mean", n, "LayerNorm 1 mean per token: with rstd and the layer input, the backward recomputes LN1(x)"},
        {"ln1_rstd", n, "LayerNorm 1 1/sqrt(var + eps) per token"},
        {"qkv", 3 * h * n, "queries, keys, values: the attention backward and nothing else needs them"},
        {"attention_probs", std::int64_t{shape.heads} * shape.seq * shape.seq * shape.batch,
         "softmax output per head, seq x seq per sequence"},
        {"attention_context", h * n, "P V per head, the input of the output projection (its weight gradient)"},
        {"residual", h * n, "x + attention: LayerNorm 2's input, kept because recomputing it costs a GEMM"},
        {"ln2_mean", n, "LayerNorm 2 mean per token"},
        {"ln2_rstd", n, "LayerNorm 2 1/sqrt(var + eps) per token"},
        {"fc1_output", 4 * h * n, "the MLP's pre-GELU activation; GELU's output is recomputed in the backward"},
    }};
}

std::int64_t savedFloats(const TransformerShape &shape) {
    std::int64_t total = 0;
    for (const SavedBuffer &b : savedBuffers(shape))
        total += b.floats;
    return total;
}

std::int64_t forwardWorkspaceFloats(const TransformerShape &shape) {
    // Wide (4hN): gelu(fc1), fc2's input; when discarding, first qkv and the
    // context. Narrow (hN): LN2(x2). One head's probabilities (s^2) and the
    // LayerNorm statistics (2N), used when discarding. The same size either
    // way: the model has one workspace per layer.
    const std::int64_t n = shape.tokens();
    return 5 * std::int64_t{shape.hidden} * n + std::int64_t{shape.seq} * shape.seq + 2 * n;
}

std::int64_t backwardWorkspaceFloats(const TransformerShape &shape) {
    // gelu(fc1) then its gradient then dqkv (4hN); LN outputs and the
    // gradients of h-wide activations (hN); one head's dL/dP (s^2).
    return 5 * std::int64_t{shape.hidden} * shape.tokens() + std::int64_t{shape.seq} * shape.seq;
}

double layerForwardFlops(const TransformerShape &shape) {
    const double n = static_cast<double>(shape.tokens()), h = shape.hidden, s = shape.seq;
    return 24 * n * h * h + 4 * n * s * h; // the four GEMMs, then K^T Q and V P
}

Model transformerModel(const TransformerShape &shape) {
    shape.validate();
    const double forwardGflop = layerForwardFlops(shape) / 1e9;
    std::vector<ForwardSpec> specs(static_cast<std::size_t>(shape.layers) + 1);
    for (int i = 0; i <= shape.layers; ++i) {
        ForwardSpec &s = specs[static_cast<std::size_t>(i)];
        s.label = i == 0 ? "input" : "layer" + std::to_string(i);
        s.bytes = shape.nodeBytes();
        s.forwardCost = i == 0 ? 0 : forwardGflop;
        if (i > 0) {
            s.inputs = {i - 1};
            s.savedBytes = savedBytes(shape);
            s.forwardWorkspace = 4 * forwardWorkspaceFloats(shape);
        }
        if (i < shape.layers) { // b_i is layer i+1's backward
            s.backwardCost = 2 * forwardGflop;
            s.backwardWorkspace = 4 * backwardWorkspaceFloats(shape);
        } else { // b_L = a_L - target
            s.backwardCost = static_cast<double>(shape.hidden) * static_cast<double>(shape.tokens()) / 1e9;
        }
    }
    return Model::fromForward(std::move(specs));
}

const char *const kLayerTensorNames[12] = {"qkv_weight", "proj_weight", "fc1_weight", "fc2_weight",
                                           "ln1_gamma",  "ln1_beta",    "qkv_bias",   "proj_bias",
                                           "ln2_gamma",  "ln2_beta",    "fc1_bias",   "fc2_bias"};

std::int64_t layerMatrixFloats(int hidden) {
    return 12 * std::int64_t{hidden} * hidden;
}

std::int64_t layerVectorFloats(int hidden) {
    return 13 * std::int64_t{hidden};
}

template <typename T> LayerTensors<T *> layerTensors(T *matrices, T *vectors, int hidden, int layer) {
    const std::int64_t h = hidden;
    T *m = matrices + (layer - 1) * layerMatrixFloats(hidden);
    T *v = vectors + (layer - 1) * layerVectorFloats(hidden);
    return {m,         m + 3 * h * h, m + 4 * h * h, m + 8 * h * h, v,         v + h,
            v + 2 * h, v + 5 * h,     v + 6 * h,     v + 7 * h,     v + 8 * h, v + 12 * h};
}

std::uint64_t transformerParameterStream(int layer, int tensor) {
    return 1000 + 16 * static_cast<std::uint64_t>(layer) + static_cast<std::uint64_t>(tensor);
}

TransformerParameters TransformerParameters::generate(const TransformerShape &shape, std::uint64_t seed) {
    shape.validate();
    TransformerParameters p;
    p.shape = shape;
    const int h = shape.hidden;
    p.matrices.resize(static_cast<std::size_t>(shape.layers * layerMatrixFloats(h)));
    p.vectors.resize(static_cast<std::size_t>(shape.layers * layerVectorFloats(h)));
    const float fanH = 1.0f / std::sqrt(static_cast<float>(h)), fan4H = 1.0f / std::sqrt(static_cast<float>(4 * h));
    for (int layer = 1; layer <= shape.layers; ++layer) {
        const LayerTensors<float *> t = layerTensors(p.matrices.data(), p.vectors.data(), h, layer);
        const std::int64_t hh = h;
        struct Fill {
            float *at;
            std::int64_t count;
            float scale;
            bool gamma;
        };
        const Fill fills[12] = {{t.qkvWeight, 3 * hh * hh, fanH, false},
                                {t.projWeight, hh * hh, fanH, false},
                                {t.fc1Weight, 4 * hh * hh, fanH, false},
                                {t.fc2Weight, 4 * hh * hh, fan4H, false},
                                {t.ln1Gamma, hh, 0.1f, true},
                                {t.ln1Beta, hh, 0.1f, false},
                                {t.qkvBias, 3 * hh, 0.1f, false},
                                {t.projBias, hh, 0.1f, false},
                                {t.ln2Gamma, hh, 0.1f, true},
                                {t.ln2Beta, hh, 0.1f, false},
                                {t.fc1Bias, 4 * hh, 0.1f, false},
                                {t.fc2Bias, hh, 0.1f, false}};
        for (int k = 0; k < 12; ++k) {
            fillUniform(fills[k].at, fills[k].count, seed, transformerParameterStream(layer, k), fills[k].scale);
            if (fills[k].gamma)
                for (std::int64_t j = 0; j < fills[k].count; ++j)
                    fills[k].at[j] += 1.0f;
        }
    }
    const std::int64_t elements = std::int64_t{h} * shape.tokens();
    p.input.resize(static_cast<std::size_t>(elements));
    p.target.resize(static_cast<std::size_t>(elements));
    fillUniform(p.input.data(), elements, seed, 3, 1.0f);
    fillUniform(p.target.data(), elements, seed, 4, 1.0f);
    return p;
}

LayerTensors<const float *> TransformerParameters::layer(int index) const {
    const LayerTensors<const float *> t = layerTensors(matrices.data(), vectors.data(), shape.hidden, index);
    return t;
}

template LayerTensors<float *> layerTensors<float>(float *, float *, int, int);
template LayerTensors<double *> layerTensors<double>(double *, double *, int, int);
template LayerTensors<const float *> layerTensors<const float>(const float *, const float *, int, int);
template LayerTensors<const double *> layerTensors<const double>(const double *, const double *, int, int);

namespace {

bool sameModel(const Model &a, const Model &b) {
    if (a.forwardCount() != b.forwardCount() || a.isChain() != b.isChain())
        return false;
    for (NodeId id = 0; id < static_cast<NodeId>(a.nodeCount()); ++id) {
        if (a.bytes(id) != b.bytes(id) || a.workspace(id) != b.workspace(id) ||
            std::abs(a.cost(id) - b.cost(id)) > 1e-9 * std::max(1.0, std::abs(b.cost(id))))
            return false;
        if (!a.isBackward(id) && a.savedBytes(static_cast<int>(id)) != b.savedBytes(static_cast<int>(id)))
            return false;
    }
    return true;
}

} // namespace

std::optional<TransformerShape> recognizeTransformer(const Model &model) {
    if (!model.isChain() || model.layers() < 1 || !model.hasSavedBytes())
        return std::nullopt;
    // Solve the sizes of transformerModel() for h, s, b and the heads (the
    // workspaces differ by 8 s b bytes), then demand the whole model match.
    const std::int64_t forwardWs = model.workspace(model.forwardNode(1));
    const std::int64_t backwardWs = model.workspace(model.backwardNode(0));
    const std::int64_t tokens = (forwardWs - backwardWs) / 8;
    if (tokens <= 0 || model.bytes(0) % (4 * tokens) != 0)
        return std::nullopt;
    const std::int64_t hidden = model.bytes(0) / (4 * tokens);
    const std::int64_t seqSquared = backwardWs / 4 - 5 * hidden * tokens;
    if (seqSquared <= 0)
        return std::nullopt;
    const auto seq = static_cast<std::int64_t>(std::llround(std::sqrt(static_cast<double>(seqSquared))));
    if (seq * seq != seqSquared || tokens % seq != 0)
        return std::nullopt;
    const std::int64_t batch = tokens / seq;
    const std::int64_t attention = model.savedBytes(1) / 4 - tokens * (9 * hidden + 4);
    if (attention <= 0 || attention % (seqSquared * batch) != 0)
        return std::nullopt;
    const std::int64_t heads = attention / (seqSquared * batch);
    if (hidden > TransformerShape::kMaxHidden || seq > TransformerShape::kMaxSeq ||
        batch > TransformerShape::kMaxBatch || heads > hidden)
        return std::nullopt;
    TransformerShape shape;
    shape.layers = model.layers();
    shape.hidden = static_cast<int>(hidden);
    shape.heads = static_cast<int>(heads);
    shape.seq = static_cast<int>(seq);
    shape.batch = static_cast<int>(batch);
    try {
        if (sameModel(model, transformerModel(shape)))
            return shape;
    } catch (const Error &) {
    }
    return std::nullopt;
}

} // namespace remat::exec
