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

} // namespace remat::test
