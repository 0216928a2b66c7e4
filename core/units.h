#pragma once
// Byte sizes as people write them ("512", "64KiB", "2GiB", "1.5 MB").
#include <cstdint>
#include <string>
#include <string_view>

namespace remat {

// Throws InvalidArgument naming `what` and the text when it is not a size >= 0
// or overflows int64.
std::int64_t parseBytes(std::string_view text, std::string_view what = "size");
// "1.50 MiB", "512 B".
std::string formatBytes(std::int64_t bytes);
// A size as the model counts it: "5 nodes" (Model::sizesInNodes) or formatBytes.
std::string formatSize(std::int64_t bytes, bool inNodes);
// A cost or a time on the cost clock, readable at any size, never in
// exponent form: "12.5", "1234", "20.05k", "2.005M"; with a unit "3.7 ms",
// "2.005M ms", and FLOP units take the prefix ("2.005e6 GFLOP" reads
// "2.005 PFLOP").
std::string formatCost(double cost, const std::string &unit = {});
// Up to 4 significant digits, no exponent, no trailing zeros: "2.005", "12.5", "1234".
std::string plainNumber(double value);
// The power of 1000 an SI prefix stands for ("" 0, "k" 1, "M" 2, "G" 3, ...
// up to "Y"), or -1 when `prefix` is not one.
int siPrefixPower(std::string_view prefix);

} // namespace remat
