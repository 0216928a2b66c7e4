#pragma once
// The two streams of a timed timeline in words (docs/model.md, "Offloading
// to host"): what the link copies while the compute stream runs, and why the
// compute stream stands still when it waits for a copy. No Qt: the studio's
// narration, the host lane's caption and the GIF frames share these words.
#include "core/timeline.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace remat::render {

// The stall under way at `time` (from <= time < to), if any.
std::optional<Stall> stallAt(const Timeline &timeline, double time);

// narrate() (app/render/narration.h) at `time` on the timeline's own clock:
// on a timed timeline a stall is said as such ("Stalled 1.2 ms (12 ms to
// 13.2 ms): a_4 is still arriving from host, and compute b_4 reads it."), and
// a copy on the link beside the op is added ("Meanwhile the link is
// offloading a_3 to host while computing a_5 (62% of 4.194 ms)."). Untimed:
// narrate() itself.
std::string narrateAt(const Timeline &timeline, const std::vector<std::uint8_t> &checkpoints, const StepState &state,
                      double time);

// One short line for the host lane: "a_3 → host 62% while computing a_5",
// "stalled 0.68 ms: copy of a_3 to host not done", "a_4 ← host while
// computing b_5", "computing a_5 · link idle", "done in 133.4 ms, 33.44 ms
// stalled". Timed timelines only ("" otherwise).
std::string laneCaption(const Timeline &timeline, double time);

} // namespace remat::render
