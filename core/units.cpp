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

std::string formatSize(std::int64_t bytes, bool inNodes) {
    if (!inNodes)
        return formatBytes(bytes);
    return std::to_string(bytes) + (bytes == 1 ? " node" : " nodes");
}

// Up to 4 significant digits, no exponent, no trailing zeros: "2.005", "12.5", "1234".
std::string plainNumber(double v) {
    const double magnitude = std::fabs(v);
    const int decimals = magnitude >= 1000 ? 0 : magnitude >= 100 ? 1 : magnitude >= 10 ? 2 : 3;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    std::string s = buf;
    if (s.find('.') != std::string::npos) {
        s.erase(s.find_last_not_of('0') + 1);
        if (s.back() == '.')
            s.pop_back();
    }
    return s == "-0" ? "0" : s;
}

namespace {
constexpr char kPrefixes[] = {'k', 'M', 'G', 'T', 'P', 'E', 'Z', 'Y'};
constexpr int kPrefixCount = sizeof kPrefixes;

} // namespace

int siPrefixPower(std::string_view prefix) {
    if (prefix.empty())
        return 0;
    for (int p = 0; p < kPrefixCount && prefix.size() == 1; ++p)
        if (prefix[0] == kPrefixes[p])
            return p + 1;
    return -1;
}

std::string formatCost(double cost, const std::string &unit) {
    if (!std::isfinite(cost))
        return std::to_string(cost) + (unit.empty() ? "" : " " + unit);
    // A FLOP unit with a prefix ("GFLOP") lends its prefix to the number.
    const std::size_t flop = unit.size() >= 4 ? unit.size() - 4 : std::string::npos;
    const bool flopUnit =
        flop != std::string::npos && unit.compare(flop, 4, "FLOP") == 0 && siPrefixPower(unit.substr(0, flop)) >= 0;
    int power = flopUnit ? siPrefixPower(unit.substr(0, flop)) : 0;
    double v = cost;
    // Four digits stay as they are ("1234"); beyond, a prefix ("12.35k").
    const int unitPower = power;
    while (power < kPrefixCount && std::fabs(v) >= (power == unitPower ? 9999.5 : 999.5)) {
        v /= 1000;
        ++power;
    }
    const std::string number = plainNumber(v);
    const std::string prefix = power > 0 ? std::string(1, kPrefixes[power - 1]) : std::string();
    if (flopUnit)
        return number + " " + prefix + "FLOP";
    return number + prefix + (unit.empty() ? "" : " " + unit);
}

} // namespace remat
