#include "core/units.h"

#include "core/errors.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace remat {

namespace {
struct Unit {
    const char *suffix;
    double factor;
};
constexpr Unit kUnits[] = {
    {"", 1},
    {"B", 1},
    {"KiB", 1024.0},
    {"MiB", 1048576.0},
    {"GiB", 1073741824.0},
    {"TiB", 1099511627776.0},
    {"KB", 1e3},
    {"MB", 1e6},
    {"GB", 1e9},
    {"TB", 1e12},
    {"K", 1024.0},
    {"M", 1048576.0},
    {"G", 1073741824.0},
};
} // namespace

std::int64_t parseBytes(std::string_view text, std::string_view what) {
    const std::string s(text);
    auto fail = [&]() -> std::int64_t {
        throw InvalidArgument(std::string(what) + " must be a byte size such as 4096, 64KiB, 1.5MiB or 2GiB, got '" +
                              s + "'");
    };
    std::size_t i = 0;
    while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.'))
        ++i;
    if (i == 0)
        return fail();
    char *end = nullptr;
    const std::string number = s.substr(0, i);
    const double value = std::strtod(number.c_str(), &end);
    if (end != number.c_str() + number.size())
        return fail();
    std::size_t j = i;
    while (j < s.size() && s[j] == ' ')
        ++j;
    const std::string suffix = s.substr(j);
    for (const Unit &u : kUnits) {
        if (suffix == u.suffix) {
            const double bytes = std::round(value * u.factor);
            if (!std::isfinite(bytes) || bytes > 9.2e18)
                throw InvalidArgument(std::string(what) + " '" + s + "' is too large");
            return static_cast<std::int64_t>(bytes);
        }
    }
    return fail();
}

std::string formatBytes(std::int64_t bytes) {
    static const char *names[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    double v = static_cast<double>(bytes);
    int u = 0;
    while (std::fabs(v) >= 1024 && u < 5) {
        v /= 1024;
        ++u;
    }
    char buf[48];
    if (u == 0)
        std::snprintf(buf, sizeof buf, "%lld B", static_cast<long long>(bytes));
    else
        std::snprintf(buf, sizeof buf, "%.2f %s", v, names[u]);
    return buf;
}

} // namespace remat
