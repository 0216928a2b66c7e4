#include "core/schedule.h"

namespace remat {

const char *kindName(OpKind kind) {
    return kind == OpKind::Compute ? "compute" : "free";
}

std::string describe(const Model &model, Op op) {
    const std::string node = model.contains(op.node) ? model.name(op.node) : "node #" + std::to_string(op.node);
    return std::string(kindName(op.kind)) + " " + node;
}

} // namespace remat
