#pragma once
// The model of docs/model.md: forward nodes a_0..a_n (a DAG in topological
// order, a chain in the common case) and one backward node b_i per forward
// node. Every node has bytes, a compute cost and the transient workspace its
// computation needs. Node ids are dense so that the simulator can index arrays.
// A layer F_i may also save internals s_i for its own backward (attention
// probabilities, an MLP's wide intermediate...): kept only when F_i runs
// *recording*, released once the backward ops that consume them are done.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace remat {

using NodeId = std::uint32_t;

// One forward node as given by whoever builds a model (a chain helper, a model
// file). `inputs` are indices of earlier forward nodes; node 0 is the input.
struct ForwardSpec {
    std::string label;                  // optional human name ("conv1_1"); a_i is always the id
    std::int64_t bytes = 1;             // size of the activation a_i
    std::int64_t savedBytes = 0;        // internals s_i a recording run keeps for F_i's backward
    double forwardCost = 1;             // cost of computing a_i
    std::int64_t forwardWorkspace = 0;  // transient bytes while computing a_i
    std::int64_t gradBytes = -1;        // size of b_i; -1: same as a_i
    double backwardCost = 2;            // cost of computing b_i
    std::int64_t backwardWorkspace = 0; // transient bytes while computing b_i
    std::vector<int> inputs;            // forward indices this node is computed from
    // What this node's backward keeps from its forward, as PyTorch's autograd
    // saves it per op (op-level traced files, docs/model-format.md "saves"):
    // when `savesGiven`, only the inputs listed in `savedInputs` (forward
    // indices, each one of `inputs`) and, with `savesOutput`, its own output.
    // Default: every input and not its output, docs/model.md's rule.
    bool savesGiven = false;
    std::vector<int> savedInputs;
    bool savesOutput = false;
};

// Parameters of a homogeneous chain (every layer alike).
struct ChainSpec {
    std::int64_t nodeBytes = 1;
    std::int64_t savedBytes = 0; // internals each layer saves for its backward when recording
    double forwardCost = 1;
    double backwardCost = 2;
    std::int64_t forwardWorkspace = 0;
    std::int64_t backwardWorkspace = 0;
};

class Model {
public:
    // Largest n accepted: keeps node ids, bitsets and per-node arrays small.
    static constexpr int kMaxLayers = 1'000'000;

    // A chain a_0 -> a_1 -> ... -> a_n. Throws InvalidArgument for n < 1 or n > kMaxLayers.
    static Model chain(int n, const ChainSpec &spec = {});
    // A general forward DAG. specs[0] is the input a_0 (no inputs); every other
    // node lists inputs with smaller indices; the last node is the output.
    // Throws InvalidArgument naming the node and what is wrong.
    static Model fromForward(std::vector<ForwardSpec> specs);

    // n: the number of layers (forward nodes besides a_0).
    int layers() const { return forwardCount_ - 1; }
    int forwardCount() const { return forwardCount_; }
    int nodeCount() const { return 2 * forwardCount_; }
    bool isChain() const { return isChain_; }

    NodeId forwardNode(int i) const { return static_cast<NodeId>(i); }
    NodeId backwardNode(int i) const { return static_cast<NodeId>(forwardCount_ + i); }
    NodeId inputNode() const { return 0; }
    NodeId outputNode() const { return static_cast<NodeId>(forwardCount_ - 1); }
    NodeId inputGradient() const { return backwardNode(0); }
    bool isBackward(NodeId id) const { return static_cast<int>(id) >= forwardCount_; }
    // Layer index i of a_i or b_i.
    int indexOf(NodeId id) const {
        return isBackward(id) ? static_cast<int>(id) - forwardCount_ : static_cast<int>(id);
    }
    bool contains(NodeId id) const { return id < static_cast<NodeId>(nodeCount()); }

    std::string name(NodeId id) const; // "a_3" or "b_3"
    // Human name of layer i from a model file, or "" (chains have none).
    const std::string &label(int forwardIndex) const;

    // What sizes and costs count, for what people read. A chain of unit nodes
    // (Model::chain with 1-byte nodes and no workspace) counts nodes: its
    // sizes read "5 nodes", not "5 B". A model file may name its cost unit
    // ("GFLOP"); empty means the abstract forward 1, backward 2.
    bool sizesInNodes() const { return sizesInNodes_; }
    const std::string &costUnit() const { return costUnit_; }
    void setCostUnit(std::string unit) { costUnit_ = std::move(unit); }

    // Op-level model files (docs/model-format.md, "op"): by forward index, the
    // PyTorch op that makes the node ("" where the file names none) and the
    // block it runs in (its first "module", "" outside blocks). Both empty for
    // other models. core/op_plan.h groups nodes into blocks from them.
    bool isOpLevel() const { return !ops_.empty(); }
    const std::vector<std::string> &ops() const { return ops_; }
    const std::vector<std::string> &blocks() const { return blocks_; }
    // Both resized to forwardCount(); `ops` with no non-empty entry clears them.
    void setOpLevel(std::vector<std::string> ops, std::vector<std::string> blocks);

    std::int64_t bytes(NodeId id) const { return bytes_[id]; }
    double cost(NodeId id) const { return cost_[id]; }
    std::int64_t workspace(NodeId id) const { return workspace_[id]; }
    // Bytes of the internals s_i that layer F_i keeps for its backward when it
    // runs recording (0 for a_0 and for layers that save nothing besides their
    // inputs and output).
    std::int64_t savedBytes(int forwardIndex) const {
        return savedBytes_.empty() ? 0 : savedBytes_[static_cast<std::size_t>(forwardIndex)];
    }
    // True when some layer saves internals: only then do recording and
    // discarding runs differ.
    bool hasSavedBytes() const { return !savedBytes_.empty(); }
    // Layers whose saved internals the backward op `id` consumes: for b_p, the
    // consumers c of a_p with savedBytes(c) > 0 (empty for forward nodes).
    std::vector<int> savedReads(NodeId id) const;

    // Whether some node states what its backward keeps (ForwardSpec::savesGiven).
    bool hasStatedSaves() const { return !savesInput_.empty(); }
    // Whether the backward of consumer `c` keeps its input a_p (always true
    // without stated saves).
    bool savesInput(int c, int p) const;
    // Whether the backward of `c` keeps its own output a_c.
    bool savesOutput(int c) const { return !savesOutput_.empty() && savesOutput_[static_cast<std::size_t>(c)] != 0; }

    // Nodes that must be resident while `id` is computed.
    std::span<const NodeId> reads(NodeId id) const {
        return {readList_.data() + readOffset_[id], readList_.data() + readOffset_[id + 1]};
    }
    // Forward indices that consume a_i (the DAG's out-edges).
    std::span<const int> consumers(int forwardIndex) const {
        return {consumerList_.data() + consumerOffset_[forwardIndex],
                consumerList_.data() + consumerOffset_[forwardIndex + 1]};
    }
    // Forward indices a_i is computed from (the DAG's in-edges).
    std::span<const int> inputs(int forwardIndex) const {
        return {inputList_.data() + inputOffset_[forwardIndex], inputList_.data() + inputOffset_[forwardIndex + 1]};
    }

private:
    void deriveReads();

    std::vector<std::string> labels_; // empty for chains
    int forwardCount_ = 0;
    bool isChain_ = false;
    bool sizesInNodes_ = false;
    std::string costUnit_;
    std::vector<std::string> ops_;    // empty unless op level
    std::vector<std::string> blocks_; // parallel to ops_
    std::vector<std::int64_t> bytes_;
    std::vector<double> cost_;
    std::vector<std::int64_t> workspace_;
    std::vector<std::int64_t> savedBytes_;  // by forward index; empty when no layer saves anything
    std::vector<std::uint8_t> savesInput_;  // parallel to inputList_; empty: every input is kept
    std::vector<std::uint8_t> savesOutput_; // by forward index; empty: no node keeps its output
    std::vector<std::uint32_t> readOffset_;
    std::vector<NodeId> readList_;
    std::vector<std::uint32_t> inputOffset_;
    std::vector<int> inputList_;
    std::vector<std::uint32_t> consumerOffset_;
    std::vector<int> consumerList_;
};

} // namespace remat
