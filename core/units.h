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

} // namespace remat
