#include "core/schedule.h"

#include <algorithm>

namespace remat {

const RuntimeEvent *eventAt(const Schedule &schedule, std::int64_t op) {
    const auto it = std::lower_bound(schedule.events.begin(), schedule.events.end(), op,
                                     [](const RuntimeEvent &e, std::int64_t at) { return e.op < at; });
    return it != schedule.events.end() && it->op == op ? &*it : nullptr;
}

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
