#pragma once
// Random op-level models for the op-level planners' tests: blocks of op nodes
// with skips, stated saves, sizes, costs and internals drawn from a seeded
// generator, so every failure can be replayed.
#include "core/model.h"
#include "core/op_plan.h"

#include <random>
#include <string>
#include <vector>

namespace remat::test {

struct OpModel {
    Model model = Model::chain(1);
    OpGraph graph;
};

// An input, `blocks` blocks of `ops` op nodes each, and a head node outside
// any block. Inside a block every op reads its predecessor and sometimes an
// earlier op of the block or the block's input; what each op's backward keeps
// is drawn at random (PyTorch's adds keep nothing, softmax keeps its output,
// matrix products their inputs), and so are sizes, costs and saved internals.
// The first op of a block keeps the block's input (a LayerNorm, a matrix
// product) in even seeds, and may not in odd ones (a copy, an add). With
// `sharedInput`, a node outside the blocks right after the input is read by
// one op of every block (an attention mask made once before the layers).
// With `skipping`, some tensors skip a block: that node (when made) is read
// by every other block only (Gemma2's sliding-window mask); an op of every
// block from the third on reads a node of the block two before it (a long
// skip); and halfway, an encoder's output made between the blocks, beside the
// next block's input, is read by every later block.
inline OpModel randomOpModel(int blocks, int ops, unsigned seed, bool sharedInput = false, bool skipping = false) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> size(1, 6), cost(0, 5), saved(0, 4), workspace(0, 1);
    std::bernoulli_distribution coin(0.5), skip(0.3);
    static const char *const kinds[] = {"aten::mm", "aten::add", "aten::_softmax", "aten::bmm", "aten::gelu"};
    std::vector<ForwardSpec> specs(1);
    specs[0].bytes = size(rng);
    std::vector<std::string> modules{""}, opNames{""};
    const auto outsideBlocks = [&](const char *op) { // a node reading the input, before the blocks
        ForwardSpec s;
        s.bytes = size(rng);
        s.gradBytes = size(rng);
        s.inputs = {0};
        s.savesGiven = true;
        specs.push_back(s);
        modules.push_back("");
        opNames.push_back(op);
    };
    if (sharedInput)
        outsideBlocks("aten::mul");
    const int shared = sharedInput ? 1 : -1;
    if (sharedInput && skipping) // the embedding, made after the mask: the first block reads it, not the mask
        outsideBlocks("aten::embedding");
    std::vector<int> blockStart;
    int encoderOutput = -1; // with `skipping`: made between the blocks, read by every later block
    for (int b = 0; b < blocks; ++b) {
        if (skipping && b >= 1 && b == blocks / 2) {
            // An encoder's output and the decoder's embedding, both outside
            // the blocks: the decoder's blocks read the first, the next block
            // only the second.
            encoderOutput = static_cast<int>(specs.size());
            outsideBlocks("aten::native_layer_norm");
            specs.back().inputs = {encoderOutput - 1};
            specs.back().savedInputs = specs.back().inputs;
            outsideBlocks("aten::embedding");
        }
        const int input = static_cast<int>(specs.size()) - 1;
        blockStart.push_back(input + 1);
        const bool sharedHere = !skipping || b % 2 == 1;
        const int readsShared = std::uniform_int_distribution<int>(1, std::max(1, ops - 1))(rng);
        const int readsBack = std::uniform_int_distribution<int>(0, ops - 1)(rng);
        for (int k = 0; k < ops; ++k) {
            const int i = static_cast<int>(specs.size());
            ForwardSpec s;
            s.bytes = size(rng);
            s.gradBytes = size(rng);
            s.forwardCost = cost(rng);
            s.backwardCost = cost(rng);
            s.savedBytes = coin(rng) ? saved(rng) : 0;
            s.forwardWorkspace = workspace(rng);
            s.inputs = {i - 1};
            if (k >= 1 && skip(rng))
                s.inputs.push_back(std::uniform_int_distribution<int>(input, i - 2)(rng));
            if (shared >= 0 && sharedHere && k == readsShared && shared != input)
                s.inputs.push_back(shared);
            if (encoderOutput >= 0 && k == (readsBack + 1) % ops)
                s.inputs.push_back(encoderOutput);
            if (skipping && b >= 2 && k == readsBack)
                s.inputs.push_back(std::uniform_int_distribution<int>(blockStart[static_cast<std::size_t>(b - 2)],
                                                                      blockStart[static_cast<std::size_t>(b - 1)] - 1)(rng));
            s.savesGiven = true;
            for (int p : s.inputs)
                if ((k == 0 && seed % 2 == 0) || coin(rng))
                    s.savedInputs.push_back(p);
            s.savesOutput = coin(rng) && coin(rng);
            specs.push_back(s);
            modules.push_back("block" + std::to_string(b));
            opNames.push_back(kinds[std::uniform_int_distribution<int>(0, 4)(rng)]);
        }
    }
    ForwardSpec head;
    head.bytes = size(rng);
    head.inputs = {static_cast<int>(specs.size()) - 1};
    head.savesGiven = true;
    head.savedInputs = head.inputs;
    specs.push_back(head);
    modules.push_back("");
    opNames.push_back("aten::addmm");
    OpModel m;
    m.model = Model::fromForward(specs);
    m.graph = opGraph(m.model, modules, opNames);
    return m;
}

} // namespace remat::test
