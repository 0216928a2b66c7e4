#pragma once
// Where a lesson's stops fall: read off the simulator's Timeline of a pane,
// so a stop follows the schedule (a new n, another strategy) instead of an op
// number typed into the lesson.
#include "app/lesson/lesson.h"
#include "core/timeline.h"

#include <cstdint>
#include <optional>

namespace remat::lesson {

// The op at which `kind` happens on `timeline`, or nullopt when it never does
// (store-all recomputes nothing):
// - Peak: the first op at which the most bytes are held (Summary::peakStep);
// - FirstRecomputation: the first op that computes a forward node a second
//   time (a recomputation, or a re-run to record a layer's internals);
// - ForwardEnd: the op that first computes the output a_n.
std::optional<std::int64_t> stopStep(const Timeline &timeline, StopKind kind);

} // namespace remat::lesson
