#include "core/executor/process_memory.h"

#include <fstream>
#include <sstream>
#include <string>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace remat::exec {

namespace {

// "VmRSS:   123456 kB" -> bytes.
std::optional<std::int64_t> kibField(const char *file, const std::string &key) {
    std::ifstream in(file);
    std::string line;
    while (std::getline(in, line)) {
        if (line.compare(0, key.size(), key) != 0 || line.size() <= key.size() || line[key.size()] != ':')
            continue;
        std::istringstream fields(line.substr(key.size() + 1));
        std::int64_t kib = 0;
        std::string unit;
        if (fields >> kib >> unit && unit == "kB")
            return kib * 1024;
        return std::nullopt;
    }
    return std::nullopt;
}

} // namespace

std::optional<std::int64_t> residentBytes() {
    return kibField("/proc/self/status", "VmRSS");
}
std::optional<std::int64_t> peakResidentBytes() {
    return kibField("/proc/self/status", "VmHWM");
}

bool resetPeakResident() {
    std::ofstream out("/proc/self/clear_refs");
    out << "5";
    out.flush();
    return static_cast<bool>(out);
}

void trimHeap() {
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
}

std::optional<std::int64_t> availableHostBytes() {
    return kibField("/proc/meminfo", "MemAvailable");
}

} // namespace remat::exec
