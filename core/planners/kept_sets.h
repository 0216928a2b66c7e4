#pragma once
// The best set of kept nodes: of all the `checkpoints` plans (forward nodes
// a_1..a_{n-1} kept from the forward pass into the backward pass, every other
// segment recomputed once), the one with the least compute whose peak fits a
// budget. This is what a student can reach by clicking nodes in the studio,
// so the lesson exercises (core/exercise.h) grade answers against it.
//
// Exact on chains whose layers save no internals, by dynamic programming:
// the peak of a checkpoints plan is the largest, over its segments (s, e],
// of the bytes kept up to s plus a term of the segment alone (its forward
// steps, its recomputation under the gradient b_e, its backward steps), so a
// Pareto front of (kept bytes, kept cost) per last checkpoint is enough to
// find the least compute exactly. tests/core/test_kept_sets.cpp holds it to
// exhaustive search over all sets with the simulator's own counts.
#include "core/model.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace remat::planners {

enum class KeptSetUnit {
    Bytes, // Summary::peakBytes: resident nodes and the op's workspace
    Nodes, // Summary::peakNodes: resident nodes
};

// Largest chain the search takes: its work grows as n^3 times the front.
constexpr int kMaxKeptSetLayers = 400;

// Throws InvalidArgument, saying why, unless `model` is a chain of at most
// kMaxKeptSetLayers layers whose layers save no internals.
void requireKeptSetModel(const Model &model);

// The peak (in `unit`) of the checkpoints plan keeping `kept` (sorted forward
// indices in 1..n-1), by the segment formula the search uses.
std::int64_t keptSetPeak(const Model &model, KeptSetUnit unit, const std::vector<int> &kept);

// The kept set with the least recomputation whose peak is at most `budget`,
// nullopt when no set fits. Among equally cheap sets, the one with the lower
// peak, then the fewer kept nodes.
std::optional<std::vector<int>> bestKeptSet(const Model &model, KeptSetUnit unit, std::int64_t budget);

// The smallest budget some kept set fits (the least peak over all sets).
std::int64_t smallestKeptSetBudget(const Model &model, KeptSetUnit unit);

} // namespace remat::planners
