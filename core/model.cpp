#include "core/model.h"

#include "core/errors.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace remat {

namespace {

void requireNonNegative(std::int64_t value, const std::string &what) {
    if (value < 0)
        throw InvalidArgument(what + " must be >= 0, got " + std::to_string(value));
}

void requireCost(double value, const std::string &what) {
    if (!std::isfinite(value) || value < 0)
        throw InvalidArgument(what + " must be a finite number >= 0, got " + std::to_string(value));
}

} // namespace

Model Model::chain(int n, const ChainSpec &spec) {
    if (n < 1 || n > kMaxLayers)
        throw InvalidArgument("n must be an integer from 1 to " + std::to_string(kMaxLayers) + ", got " +
                              std::to_string(n));
    if (spec.nodeBytes < 1)
        throw InvalidArgument("node bytes must be >= 1, got " + std::to_string(spec.nodeBytes));
    requireNonNegative(spec.forwardWorkspace, "forward workspace");
    requireNonNegative(spec.backwardWorkspace, "backward workspace");
    requireCost(spec.forwardCost, "forward cost");
    requireCost(spec.backwardCost, "backward cost");
    requireNonNegative(spec.savedBytes, "saved bytes");

    Model m;
    m.forwardCount_ = n + 1;
    m.isChain_ = true;
    m.sizesInNodes_ = spec.nodeBytes == 1 && spec.forwardWorkspace == 0 && spec.backwardWorkspace == 0;
    const int nodes = m.nodeCount();
    m.bytes_.assign(nodes, spec.nodeBytes);
    if (spec.savedBytes > 0) {
        m.savedBytes_.assign(m.forwardCount_, spec.savedBytes);
        m.savedBytes_[0] = 0; // a_0 is given, no layer computes it
    }
    m.cost_.resize(nodes);
    m.workspace_.resize(nodes);
    for (int i = 0; i < m.forwardCount_; ++i) {
        m.cost_[i] = i == 0 ? 0.0 : spec.forwardCost; // a_0 is given, never computed
        m.workspace_[i] = i == 0 ? 0 : spec.forwardWorkspace;
        m.cost_[m.forwardCount_ + i] = spec.backwardCost;
        m.workspace_[m.forwardCount_ + i] = spec.backwardWorkspace;
    }
    m.inputOffset_.resize(m.forwardCount_ + 1);
    m.inputOffset_[0] = 0;
    m.inputList_.reserve(n);
    for (int i = 1; i < m.forwardCount_; ++i) {
        m.inputOffset_[i] = static_cast<std::uint32_t>(m.inputList_.size());
        m.inputList_.push_back(i - 1);
    }
    m.inputOffset_[m.forwardCount_] = static_cast<std::uint32_t>(m.inputList_.size());
    m.deriveReads();
    return m;
}

Model Model::fromForward(std::vector<ForwardSpec> specs) {
    if (specs.size() < 2)
        throw InvalidArgument("a model needs an input and at least one layer, got " + std::to_string(specs.size()) +
                              " node(s)");
    if (specs.size() > static_cast<std::size_t>(kMaxLayers) + 1)
        throw InvalidArgument("a model may have at most " + std::to_string(kMaxLayers) + " layers, got " +
                              std::to_string(specs.size() - 1));
    Model m;
    m.forwardCount_ = static_cast<int>(specs.size());
    const int nodes = m.nodeCount();
    m.bytes_.resize(nodes);
    m.cost_.resize(nodes);
    m.workspace_.resize(nodes);
    m.labels_.resize(specs.size());
    m.inputOffset_.resize(m.forwardCount_ + 1);
    bool chain = true;
    const bool stated = std::any_of(specs.begin(), specs.end(), [](const ForwardSpec &s) { return s.savesGiven; });
    if (stated)
        m.savesOutput_.assign(specs.size(), 0);
    std::vector<int> inputOf(specs.size(), -1);
    for (int i = 0; i < m.forwardCount_; ++i) {
        ForwardSpec &s = specs[i];
        const std::string who = "node " + std::to_string(i) + (s.label.empty() ? "" : " (" + s.label + ")");
        if (s.bytes < 1)
            throw InvalidArgument(who + ": bytes must be >= 1, got " + std::to_string(s.bytes));
        const std::int64_t gradBytes = s.gradBytes < 0 ? s.bytes : s.gradBytes;
        if (gradBytes < 1)
            throw InvalidArgument(who + ": gradient bytes must be >= 1, got " + std::to_string(gradBytes));
        requireNonNegative(s.forwardWorkspace, who + ": forward workspace");
        requireNonNegative(s.backwardWorkspace, who + ": backward workspace");
        requireNonNegative(s.savedBytes, who + ": saved bytes");
        if (i == 0 && s.savedBytes != 0)
            throw InvalidArgument(who +
                                  ": the input is given, not computed, so it saves nothing (saved bytes must be 0)");
        requireCost(s.forwardCost, who + ": forward cost");
        requireCost(s.backwardCost, who + ": backward cost");
        if (i == 0 && !s.inputs.empty())
            throw InvalidArgument(who + ": the input node cannot have inputs");
        if (i > 0 && s.inputs.empty())
            throw InvalidArgument(who + ": every node after the input needs at least one input");
        m.inputOffset_[i] = static_cast<std::uint32_t>(m.inputList_.size());
        for (std::size_t k = 0; k < s.inputs.size(); ++k) {
            const int in = s.inputs[k];
            if (in < 0 || in >= i)
                throw InvalidArgument(who + ": input " + std::to_string(in) + " must be an earlier node (0 to " +
                                      std::to_string(i - 1) + ")");
            // inputOf[in] == i: seen before among node i's inputs (linear, for nodes with many inputs).
            if (inputOf[in] == i)
                throw InvalidArgument(who + ": input " + std::to_string(in) + " is listed twice");
            inputOf[in] = i;
            m.inputList_.push_back(in);
            if (stated)
                m.savesInput_.push_back(!s.savesGiven || std::find(s.savedInputs.begin(), s.savedInputs.end(), in) !=
                                                             s.savedInputs.end());
        }
        for (int kept : s.savedInputs)
            if (kept < 0 || kept >= i || inputOf[kept] != i)
                throw InvalidArgument(who + ": it keeps node " + std::to_string(kept) +
                                      " for its backward, which is not one of its inputs");
        if (stated)
            m.savesOutput_[i] = s.savesGiven && s.savesOutput && i > 0;
        if (i > 0 && !(s.inputs.size() == 1 && s.inputs[0] == i - 1))
            chain = false;
        m.bytes_[i] = s.bytes;
        m.bytes_[m.forwardCount_ + i] = gradBytes;
        m.cost_[i] = i == 0 ? 0.0 : s.forwardCost;
        m.cost_[m.forwardCount_ + i] = s.backwardCost;
        m.workspace_[i] = i == 0 ? 0 : s.forwardWorkspace;
        m.workspace_[m.forwardCount_ + i] = s.backwardWorkspace;
        m.labels_[i] = std::move(s.label);
        if (s.savedBytes > 0) {
            if (m.savedBytes_.empty())
                m.savedBytes_.assign(m.forwardCount_, 0);
            m.savedBytes_[i] = s.savedBytes;
        }
    }
    m.inputOffset_[m.forwardCount_] = static_cast<std::uint32_t>(m.inputList_.size());
    m.isChain_ = chain;
    m.deriveReads();
    // Every node must reach the output, or its gradient would be undefined.
    for (int i = 0; i + 1 < m.forwardCount_; ++i)
        if (m.consumers(i).empty())
            throw InvalidArgument("node " + std::to_string(i) +
                                  (m.labels_[i].empty() ? "" : " (" + m.labels_[i] + ")") +
                                  " feeds no later node; only the last node may be the output");
    return m;
}

// Reads follow docs/model.md: a_i reads its inputs; the output gradient b_n
// reads a_n (the loss); every other b_p reads a_p and the gradients b_c of all
// consumers c of p (the pre-activation layer needs only its input and the
// incoming gradient). With stated saves (op-level traced files) b_p reads a_p
// only when some consumer keeps it, and reads a_c of every consumer c that
// keeps its own output (softmax, tanh): what autograd really unpacks there.
void Model::deriveReads() {
    const int f = forwardCount_;
    consumerOffset_.assign(f + 1, 0);
    for (int c = 1; c < f; ++c)
        for (int p : inputs(c))
            ++consumerOffset_[p + 1];
    for (int i = 0; i < f; ++i)
        consumerOffset_[i + 1] += consumerOffset_[i];
    consumerList_.assign(inputList_.size(), 0);
    std::vector<std::uint32_t> fill(consumerOffset_.begin(), consumerOffset_.end() - 1);
    for (int c = 1; c < f; ++c)
        for (int p : inputs(c))
            consumerList_[fill[p]++] = c;

    readOffset_.assign(nodeCount() + 1, 0);
    readList_.clear();
    readList_.reserve(inputList_.size() * 3 + f);
    for (int i = 0; i < f; ++i) {
        readOffset_[i] = static_cast<std::uint32_t>(readList_.size());
        for (int p : inputs(i))
            readList_.push_back(forwardNode(p));
    }
    for (int i = 0; i < f; ++i) {
        readOffset_[f + i] = static_cast<std::uint32_t>(readList_.size());
        bool keptByConsumer = i == f - 1;
        for (int c : consumers(i))
            keptByConsumer = keptByConsumer || savesInput(c, i);
        if (keptByConsumer)
            readList_.push_back(forwardNode(i));
        for (int c : consumers(i))
            if (savesOutput(c))
                readList_.push_back(forwardNode(c));
        for (int c : consumers(i))
            readList_.push_back(backwardNode(c));
    }
    readOffset_[nodeCount()] = static_cast<std::uint32_t>(readList_.size());
}

bool Model::savesInput(int c, int p) const {
    if (savesInput_.empty())
        return true;
    for (std::uint32_t k = inputOffset_[c]; k < inputOffset_[c + 1]; ++k)
        if (inputList_[k] == p)
            return savesInput_[k] != 0;
    return false;
}

std::vector<int> Model::savedReads(NodeId id) const {
    std::vector<int> out;
    if (savedBytes_.empty() || !isBackward(id))
        return out;
    for (int c : consumers(indexOf(id)))
        if (savedBytes_[static_cast<std::size_t>(c)] > 0)
            out.push_back(c);
    return out;
}

std::string Model::name(NodeId id) const {
    return (isBackward(id) ? "b_" : "a_") + std::to_string(indexOf(id));
}

void Model::setOpLevel(std::vector<std::string> ops, std::vector<std::string> blocks) {
    const auto named = [](const std::string &op) { return !op.empty(); };
    if (std::none_of(ops.begin(), ops.end(), named)) {
        ops_.clear();
        blocks_.clear();
        return;
    }
    ops.resize(static_cast<std::size_t>(forwardCount_));
    blocks.resize(static_cast<std::size_t>(forwardCount_));
    ops_ = std::move(ops);
    blocks_ = std::move(blocks);
}

const std::string &Model::label(int forwardIndex) const {
    static const std::string none;
    return labels_.empty() ? none : labels_[forwardIndex];
}

} // namespace remat
