#pragma once
// The framework race's measured points: the JSON bench/framework_race.py
// writes (--json; docs/pytorch.md, "Head to head"). Each point is one
// configuration run in PyTorch: its peak observed by LiveTensors (bytes), the
// FLOPs it re-ran (the step's counted FLOPs minus store-all's: may be below 0
// when a configuration runs fewer) and its median step time. The studio's
// trade-off view draws them (Tools > Trade-off curve > Add measured points).
//
// Read all or nothing: every error is an InvalidArgument naming the file, the
// JSON pointer of the bad value, the value, and what is allowed. Keys the
// reader does not use ("wall_seconds", "budget_bytes", ...) are allowed.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace remat {

// Who ran the configuration: remat's plan, a framework's own checkpointing
// (eager PyTorch, transformers, SAC) or torch.compile's partitioner.
enum class RaceKind { Remat, Peer, Compile };

// "remat", "peer", "compile": as in the file.
const char *raceKindName(RaceKind kind);

struct RacePoint {
    std::string who; // "per-layer (HF gradient_checkpointing_enable)"
    RaceKind kind = RaceKind::Peer;
    std::int64_t observedPeakBytes = 0;
    double recomputeFlops = 0; // FLOP, not GFLOP
    double stepSeconds = 0;
};

struct RaceNotRun {
    std::string who;
    std::string reason;
};

struct RaceResult {
    std::string model;             // the race's --model ("bench/.../gpt2_race.py:model")
    std::string torch;             // PyTorch's version
    std::string date;              // "" when the file has none
    std::vector<RacePoint> points; // at least one, in the file's order
    std::vector<RaceNotRun> notRun;
};

// `origin` names the text in messages (the file's path).
RaceResult parseRaceJson(std::string_view text, const std::string &origin);
// Reads and parses `path` (at most 16 MiB).
RaceResult readRaceFile(const std::string &path);

} // namespace remat
