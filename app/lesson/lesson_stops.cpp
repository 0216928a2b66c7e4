#include "app/lesson/lesson_stops.h"

#include <vector>

namespace remat::lesson {

std::optional<std::int64_t> stopStep(const Timeline &timeline, StopKind kind) {
    const Model &model = timeline.model();
    switch (kind) {
    case StopKind::Peak: {
        std::optional<std::int64_t> peak;
        for (std::int64_t s = 0; s < timeline.steps(); ++s)
            if (!peak || timeline.bytesAt(s) > timeline.bytesAt(*peak))
                peak = s;
        return peak;
    }
    case StopKind::FirstRecomputation: {
        std::vector<std::uint8_t> computed(static_cast<std::size_t>(model.forwardCount()), 0);
        computed[model.inputNode()] = 1; // a_0 is given; computing it would be a recomputation
        for (std::int64_t s = 0; s < timeline.steps(); ++s) {
            const Op op = timeline.op(s);
            if (op.kind != OpKind::Compute || model.isBackward(op.node))
                continue;
            if (computed[op.node])
                return s;
            computed[op.node] = 1;
        }
        return std::nullopt;
    }
    case StopKind::FirstEviction: {
        // Shown with the compute it made room for: a cost-synced playback passes over frees.
        const auto &events = timeline.schedule().events;
        for (const RuntimeEvent &e : events)
            if (e.kind == RuntimeEvent::Kind::Evict) {
                std::int64_t s = e.op;
                while (s + 1 < timeline.steps() && timeline.op(s).kind != OpKind::Compute)
                    ++s;
                return s;
            }
        return std::nullopt;
    }
    case StopKind::Time: // on the clock, not the timeline: exporting::chapterStopTimes places it
        return std::nullopt;
    case StopKind::ForwardEnd:
        for (std::int64_t s = 0; s < timeline.steps(); ++s)
            if (const Op op = timeline.op(s); op.kind == OpKind::Compute && op.node == model.outputNode())
                return s;
        return std::nullopt;
    }
    return std::nullopt;
}

} // namespace remat::lesson
