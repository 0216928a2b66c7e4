#include "core/model.h"

#include "core/errors.h"

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
            throw InvalidArgument(who + ": the input is given, not computed, so it saves nothing (saved bytes must be 0)");
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
            for (std::size_t j = 0; j < k; ++j)
                if (s.inputs[j] == in)
                    throw InvalidArgument(who + ": input " + std::to_string(in) + " is listed twice");
            m.inputList_.push_back(in);
        }
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
// incoming gradient).
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
    readList_.reserve(inputList_.size() * 2 + f);
    for (int i = 0; i < f; ++i) {
        readOffset_[i] = static_cast<std::uint32_t>(readList_.size());
        for (int p : inputs(i))
            readList_.push_back(forwardNode(p));
    }
    for (int i = 0; i < f; ++i) {
        readOffset_[f + i] = static_cast<std::uint32_t>(readList_.size());
        readList_.push_back(forwardNode(i));
        for (int c : consumers(i))
            readList_.push_back(backwardNode(c));
    }
    readOffset_[nodeCount()] = static_cast<std::uint32_t>(readList_.size());
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

const std::string &Model::label(int forwardIndex) const {
    static const std::string none;
    return labels_.empty() ? none : labels_[forwardIndex];
}

} // namespace remat
