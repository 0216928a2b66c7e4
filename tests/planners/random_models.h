#pragma once
// Random small models for the optimality tests: heterogeneous sizes and costs
// drawn from a seeded generator, so every failure can be replayed.
#include "core/model.h"

#include <random>
#include <vector>

namespace remat::test {

inline ForwardSpec randomSpec(std::mt19937 &rng, std::vector<int> inputs) {
    std::uniform_int_distribution<int> size(1, 4), cost(1, 5), workspace(0, 2);
    ForwardSpec s;
    s.forwardWorkspace = workspace(rng);
    s.backwardWorkspace = workspace(rng);
    s.bytes = size(rng);
    s.gradBytes = size(rng);
    s.forwardCost = cost(rng);
    s.backwardCost = cost(rng);
    s.inputs = std::move(inputs);
    return s;
}

// A chain a_0..a_n with random bytes, gradient bytes and costs.
inline Model randomChain(int n, unsigned seed) {
    std::mt19937 rng(seed);
    std::vector<ForwardSpec> specs;
    specs.push_back(randomSpec(rng, {}));
    for (int i = 1; i <= n; ++i)
        specs.push_back(randomSpec(rng, {i - 1}));
    return Model::fromForward(std::move(specs));
}

// A chain whose layers also save internals for their backward (0 to 6 bytes
// each, some none), as transformer layers do.
inline Model randomChainWithSaved(int n, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> saved(0, 6);
    std::vector<ForwardSpec> specs;
    specs.push_back(randomSpec(rng, {}));
    for (int i = 1; i <= n; ++i) {
        specs.push_back(randomSpec(rng, {i - 1}));
        specs.back().savedBytes = saved(rng);
    }
    return Model::fromForward(std::move(specs));
}

// A DAG: every node reads its predecessor, and sometimes one earlier node too
// (a skip connection).
inline Model randomGraph(int n, unsigned seed) {
    std::mt19937 rng(seed);
    std::vector<ForwardSpec> specs;
    specs.push_back(randomSpec(rng, {}));
    std::bernoulli_distribution skip(0.4);
    for (int i = 1; i <= n; ++i) {
        std::vector<int> inputs{i - 1};
        if (i >= 2 && skip(rng))
            inputs.push_back(std::uniform_int_distribution<int>(0, i - 2)(rng));
        specs.push_back(randomSpec(rng, std::move(inputs)));
    }
    return Model::fromForward(std::move(specs));
}

// What a model was built from, to build a variant of it.
inline std::vector<ForwardSpec> specsOf(const Model &m) {
    std::vector<ForwardSpec> specs;
    for (int i = 0; i < m.forwardCount(); ++i) {
        ForwardSpec s;
        s.bytes = m.bytes(m.forwardNode(i));
        s.gradBytes = m.bytes(m.backwardNode(i));
        s.forwardCost = m.cost(m.forwardNode(i));
        s.backwardCost = m.cost(m.backwardNode(i));
        s.forwardWorkspace = m.workspace(m.forwardNode(i));
        s.backwardWorkspace = m.workspace(m.backwardNode(i));
        s.savedBytes = m.savedBytes(i);
        for (int p : m.inputs(i))
            s.inputs.push_back(p);
        specs.push_back(std::move(s));
    }
    return specs;
}

// A random DAG of n layers whose layers save internals (0 to 4 bytes each,
// some none).
inline Model randomGraphWithSaved(int n, unsigned seed) {
    std::vector<ForwardSpec> specs = specsOf(randomGraph(n, seed));
    std::mt19937 rng(seed * 7919u);
    std::uniform_int_distribution<int> saved(0, 4);
    for (std::size_t i = 0; i < specs.size(); ++i)
        specs[i].savedBytes = i == 0 ? 0 : saved(rng);
    return Model::fromForward(std::move(specs));
}

// A random DAG of 2 to 5 layers (a_0 besides), with or without saved internals.
inline Model randomSmallGraph(unsigned seed, bool withSaved) {
    const int n = 2 + int(seed % 4);
    return withSaved ? randomGraphWithSaved(n, seed) : randomGraph(n, seed);
}

} // namespace remat::test
