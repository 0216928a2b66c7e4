#pragma once
// Times and rates as people write them: "2ms", "150 us", "16GB/s",
// "100 TFLOP/s". The link and the device clock of docs/model.md (offloading).
#include <string>
#include <string_view>

namespace remat {

// A time >= 0 with a unit: s, ms, us (or µs), ns; a bare "0" is zero.
// Throws InvalidArgument naming `what`, the text and what is allowed.
double parseSeconds(std::string_view text, std::string_view what);
// A bandwidth >= 0 in bytes per second: a byte size per second ("16GB/s",
// "12.5 GiB/s", "0B/s") or a plain number of bytes per second.
double parseBandwidth(std::string_view text, std::string_view what);
// A compute rate > 0 in FLOP per second: "100TFLOP/s", "312 TFLOPS", or a
// plain number of FLOP per second ("1e14").
double parseFlopRate(std::string_view text, std::string_view what);

// "4.194 ms", "2 s", "150 us", "0 s": four significant digits, the unit that
// keeps the number at 1 or more.
std::string formatSeconds(double seconds);
// "16 GB/s", "25.6 GB/s", "0 B/s" (decimal prefixes, as links are sold).
std::string formatBandwidth(double bytesPerSecond);
// "100 TFLOP/s".
std::string formatFlopRate(double flopsPerSecond);

} // namespace remat
