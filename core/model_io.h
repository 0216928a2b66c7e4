#pragma once
// Model files: the JSON format of docs/model-format.md (nodes with name,
// bytes, forward and backward cost; edges; optional units). Loading is all or
// nothing: any error throws InvalidArgument naming the file and the line
// (syntax) or the JSON pointer (content) and what was expected.
#include "core/machine.h"
#include "core/model.h"

#include <string>
#include <string_view>
#include <vector>

namespace remat {

struct ModelFile {
    Model model;
    std::string name;   // "VGG-16, batch 32"
    std::string source; // where the sizes come from
    // Traced files (python/remat_torch, docs/pytorch.md), by forward index:
    // the qualified names of the PyTorch modules a node runs, in call order
    // (empty for the input and for hand-written nodes), and whether the node's
    // first module is called with exactly the previous node's output (only then
    // may one torch.utils.checkpoint span both). Both empty when no node has a
    // "module". `trace`: the file's "trace" object as JSON text, or "".
    std::vector<std::vector<std::string>> modules;
    std::vector<bool> chained;
    // Op-level traced files (docs/model-format.md, "op"): by forward index,
    // the PyTorch op that makes the node ("aten::addmm"), "" where none is
    // given; empty when no node has an "op".
    std::vector<std::string> ops;
    std::string trace;
    // "link", "device" and "host" (offloading): what the file says of the
    // machine; resolveMachine(model, spec) turns it into a Machine.
    MachineSpec machine;
};

// Largest model file read (bytes), checked before reading.
constexpr std::int64_t kMaxModelFileBytes = 64 * 1024 * 1024;
// Deepest nesting of arrays and objects read; the format needs 3. Checked on
// the text before parsing, so hostile nesting cannot overflow the stack.
constexpr int kMaxModelNesting = 64;

ModelFile loadModelFile(const std::string &path);
// `origin` names the text in messages (a path, "<studio>").
ModelFile parseModelJson(std::string_view text, const std::string &origin);

} // namespace remat
