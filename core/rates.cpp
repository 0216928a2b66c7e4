#include "core/rates.h"

#include "core/errors.h"
#include "core/units.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace remat {

namespace {

// The leading number of `text` (digits, one dot, an exponent), the rest after
// optional spaces in `rest`. False when there is no number.
bool splitNumber(std::string_view text, double &value, std::string &rest) {
    const std::string s(text);
    std::size_t i = 0;
    while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.'))
        ++i;
    // An exponent only when digits follow it: "1e14", not the "e" of a unit.
    if (i > 0 && i + 1 < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        std::size_t j = i + 1;
        if (s[j] == '+' || s[j] == '-')
            ++j;
        if (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) {
            while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j])))
                ++j;
            i = j;
        }
    }
    if (i == 0)
        return false;
    const std::string number = s.substr(0, i);
    char *end = nullptr;
    value = std::strtod(number.c_str(), &end);
    if (end != number.c_str() + number.size() || !std::isfinite(value))
        return false;
    std::size_t j = i;
    while (j < s.size() && s[j] == ' ')
        ++j;
    rest = s.substr(j);
    return true;
}

[[noreturn]] void refuse(std::string_view what, std::string_view text, const char *allowed) {
    throw InvalidArgument(std::string(what) + " must be " + allowed + ", got '" + std::string(text) + "'");
}

// "16 G" + unit: the largest decimal prefix that keeps the number >= 1.
std::string withDecimalPrefix(double v, const char *unit) {
    static const char *prefixes[] = {"", "k", "M", "G", "T", "P", "E", "Z", "Y"};
    int p = 0;
    while (p < 8 && std::fabs(v) >= 999.95) {
        v /= 1000;
        ++p;
    }
    return plainNumber(v) + " " + prefixes[p] + unit;
}

} // namespace

double parseSeconds(std::string_view text, std::string_view what) {
    constexpr const char *allowed = "a time such as 2ms, 150us, 1.5s or 0";
    double value = 0;
    std::string unit;
    if (!splitNumber(text, value, unit))
        refuse(what, text, allowed);
    if (unit.empty() && value == 0)
        return 0;
    struct Unit {
        const char *name;
        double seconds;
    };
    static const Unit units[] = {{"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"\xC2\xB5s", 1e-6}, {"ns", 1e-9}};
    for (const Unit &u : units)
        if (unit == u.name)
            return value * u.seconds;
    refuse(what, text, allowed);
}

double parseBandwidth(std::string_view text, std::string_view what) {
    constexpr const char *allowed = "a bandwidth such as 16GB/s, 12.5GiB/s or 0B/s (no link)";
    const std::string s(text);
    std::string size = s;
    if (s.size() >= 2 && s.compare(s.size() - 2, 2, "/s") == 0)
        size = s.substr(0, s.size() - 2);
    else if (s.empty() || s.find_first_not_of("0123456789.") != std::string::npos)
        refuse(what, text, allowed); // a unit without "/s" is a size, not a rate
    try {
        return static_cast<double>(parseBytes(size, what));
    } catch (const InvalidArgument &) {
        refuse(what, text, allowed);
    }
}

double parseFlopRate(std::string_view text, std::string_view what) {
    constexpr const char *allowed = "a compute rate above 0 such as 100TFLOP/s, 312TFLOPS or 1e14";
    double value = 0;
    std::string unit;
    if (!splitNumber(text, value, unit) || value <= 0)
        refuse(what, text, allowed);
    if (unit.empty())
        return value;
    std::string prefix;
    for (const char *suffix : {"FLOP/s", "FLOPS", "flop/s"})
        if (unit.size() >= std::string(suffix).size() &&
            unit.compare(unit.size() - std::string(suffix).size(), std::string::npos, suffix) == 0) {
            prefix = unit.substr(0, unit.size() - std::string(suffix).size());
            const int power = siPrefixPower(prefix == "K" ? "k" : prefix);
            if (power < 0)
                break;
            return value * std::pow(1000.0, power);
        }
    refuse(what, text, allowed);
}

std::string formatSeconds(double seconds) {
    if (!std::isfinite(seconds))
        return std::isnan(seconds) ? "n/a" : "inf";
    const double magnitude = std::fabs(seconds);
    if (magnitude == 0 || magnitude >= 1)
        return plainNumber(seconds) + " s";
    if (magnitude >= 1e-3)
        return plainNumber(seconds * 1e3) + " ms";
    if (magnitude >= 1e-6)
        return plainNumber(seconds * 1e6) + " us";
    return plainNumber(seconds * 1e9) + " ns";
}

std::string formatBandwidth(double bytesPerSecond) {
    if (std::isinf(bytesPerSecond))
        return "unlimited";
    return withDecimalPrefix(bytesPerSecond, "B/s");
}

std::string formatFlopRate(double flopsPerSecond) {
    return withDecimalPrefix(flopsPerSecond, "FLOP/s");
}

} // namespace remat
