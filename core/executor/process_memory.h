#pragma once
// The process's memory as the operating system sees it (Linux /proc), for the
// CPU backend's device-level figure: peak resident set growth during a step.
// Every function returns nullopt where the platform cannot tell.
#include <cstdint>
#include <optional>

namespace remat::exec {

std::optional<std::int64_t> residentBytes();     // VmRSS
std::optional<std::int64_t> peakResidentBytes(); // VmHWM
// Resets VmHWM to the current RSS (writes 5 to /proc/self/clear_refs).
bool resetPeakResident();
// Returns free heap pages to the system (glibc malloc_trim), so that a
// baseline taken next is not inflated by memory an earlier run released.
void trimHeap();
// MemAvailable: what a new allocation can get without swapping.
std::optional<std::int64_t> availableHostBytes();

} // namespace remat::exec
