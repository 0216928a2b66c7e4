#include "core/executor/network.h"

#include "core/errors.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

namespace remat::exec {

namespace {

// splitmix64: a counter-based hash, so every value depends only on (seed, stream, index).
std::uint64_t mix(std::uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

void fillVector(std::vector<float> &out, std::int64_t count, std::uint64_t seed, std::uint64_t stream, float scale) {
    out.resize(static_cast<std::size_t>(count));
    fillUniform(out.data(), count, seed, stream, scale);
}

} // namespace

void requireRange(const char *what, int value, int max) {
    if (value < 1 || value > max)
        throw InvalidArgument(std::string(what) + " must be an integer from 1 to " + std::to_string(max) + ", got " +
                              std::to_string(value));
}

// Uniform in [-scale, scale), exactly representable steps of 2^-23.
void fillUniform(float *out, std::int64_t count, std::uint64_t seed, std::uint64_t stream, float scale) {
    const std::uint64_t base = mix(seed ^ mix(stream));
    for (std::int64_t k = 0; k < count; ++k) {
        const auto bits = static_cast<std::uint32_t>(mix(base + static_cast<std::uint64_t>(k)) >> 41); // 23 bits
        const float unit = static_cast<float>(bits) * (1.0f / 8388608.0f);                             // [0, 1)
        out[k] = (2.0f * unit - 1.0f) * scale;
    }
}

void NetworkShape::validate() const {
    requireRange("n (layers)", layers, Model::kMaxLayers);
    requireRange("width", width, kMaxWidth);
    requireRange("batch", batch, kMaxBatch);
}

std::int64_t NetworkShape::parameterBytes() const {
    const std::int64_t w = width;
    const std::int64_t perLayer = w * w + w;
    return static_cast<std::int64_t>(sizeof(float)) * (2 * layers * perLayer + 2 * elements());
}

std::int64_t forwardWorkspaceBytes(const NetworkShape &shape, int i) {
    return i == 0 ? 0 : shape.nodeBytes();
}

std::int64_t backwardWorkspaceBytes(const NetworkShape &shape, int i) {
    return i == shape.layers ? 0 : shape.nodeBytes();
}

Model networkModel(const NetworkShape &shape) {
    shape.validate();
    std::vector<ForwardSpec> specs(static_cast<std::size_t>(shape.layers) + 1);
    for (int i = 0; i <= shape.layers; ++i) {
        ForwardSpec &s = specs[static_cast<std::size_t>(i)];
        s.bytes = shape.nodeBytes();
        s.forwardCost = 1;  // one w x w x b GEMM
        s.backwardCost = 2; // two: the weight gradient and the input gradient
        s.forwardWorkspace = forwardWorkspaceBytes(shape, i);
        s.backwardWorkspace = backwardWorkspaceBytes(shape, i);
        if (i > 0)
            s.inputs = {i - 1};
    }
    return Model::fromForward(std::move(specs));
}

NetworkParameters NetworkParameters::generate(const NetworkShape &shape, std::uint64_t seed) {
    shape.validate();
    NetworkParameters p;
    p.shape = shape;
    const std::int64_t w = shape.width;
    // Weights ~ U(-1/sqrt(w), 1/sqrt(w)) keep W*tanh(a) of order one at any width.
    fillVector(p.weights, shape.layers * w * w, seed, 1, 1.0f / std::sqrt(static_cast<float>(w)));
    fillVector(p.biases, shape.layers * w, seed, 2, 0.1f);
    fillVector(p.input, shape.elements(), seed, 3, 1.0f);
    fillVector(p.target, shape.elements(), seed, 4, 1.0f);
    return p;
}

bool Gradients::bitwiseEqual(const Gradients &other) const {
    const auto same = [](const std::vector<float> &x, const std::vector<float> &y) {
        return x.size() == y.size() && (x.empty() || std::memcmp(x.data(), y.data(), x.size() * sizeof(float)) == 0);
    };
    return same(weights, other.weights) && same(biases, other.biases) && same(input, other.input);
}

double Gradients::maxAbsDiff(const Gradients &other) const {
    constexpr double inf = std::numeric_limits<double>::infinity();
    double worst = 0;
    const auto scan = [&](const std::vector<float> &x, const std::vector<float> &y) {
        if (x.size() != y.size()) {
            worst = inf;
            return;
        }
        for (std::size_t k = 0; k < x.size(); ++k) {
            const double d = std::fabs(static_cast<double>(x[k]) - static_cast<double>(y[k]));
            if (!(d <= worst)) // NaN counts as the worst
                worst = std::isnan(d) ? inf : d;
        }
    };
    scan(weights, other.weights);
    scan(biases, other.biases);
    scan(input, other.input);
    return worst;
}

} // namespace remat::exec
