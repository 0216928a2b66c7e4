#pragma once
// dtr's decisions in words, from what it recorded when it made them
// (Schedule::events): why a node was evicted ("memory full at 12 nodes:
// evicting a_5 (cost 1, size 1, idle 7 ops: lowest h_DTR)"), why one is
// rematerialized and how deep the chain of recomputations goes. No Qt: the
// studio's narration, the GIF frames' status line and tests read the same
// words.
#include "core/timeline.h"

#include <optional>
#include <string>
#include <vector>

namespace remat::render {

// The evictions that made room for op `step`: the runtime's frees right
// before it (when it is a compute), or the op itself (when it is one).
// Animations synced on cost pass over frees, which take no time; these keep
// them in sight.
std::vector<const RuntimeEvent *> evictionsFor(const Timeline &timeline, std::int64_t step);

// The narration of op state.step when the runtime decided something there
// or just before it (an eviction to make room, a rematerialization), else
// nothing; `opNarration` is what the op itself says, appended.
std::optional<std::string> narrateRuntimeEvent(const Timeline &timeline, const StepState &state,
                                               const std::string &opNarration);

// The same in one short line for a GIF frame's status, the victim first
// ("" when nothing was decided): "evicted a_5 (cost 1, size 1, idle 7 ops:
// lowest h_DTR), memory full at 6 nodes", "rematerializing a_3 for a_4 (depth 2)".
std::string runtimeStatus(const Timeline &timeline, std::int64_t step);

} // namespace remat::render
