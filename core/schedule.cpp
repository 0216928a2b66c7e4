#include "core/schedule.h"

namespace remat {

const char *kindName(OpKind kind) {
    switch (kind) {
    case OpKind::Compute:
        return "compute";
    case OpKind::Free:
        return "free";
    case OpKind::FreeSaved:
        return "free-saved";
    case OpKind::Offload:
        return "offload";
    case OpKind::Prefetch:
        return "prefetch";
    }
    return "?";
}

std::string describe(const Model &model, Op op) {
    if (!model.contains(op.node))
        return std::string(kindName(op.kind)) + " node #" + std::to_string(op.node);
    if (op.kind == OpKind::FreeSaved)
        return "free s_" + std::to_string(model.indexOf(op.node));
    return std::string(op.records ? "record" : kindName(op.kind)) + " " + model.name(op.node);
}

bool hasTransfers(const Schedule &schedule) {
    for (const Op &op : schedule.ops)
        if (op.isTransfer())
            return true;
    return false;
}

} // namespace remat
