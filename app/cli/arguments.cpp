#include "arguments.h"

#include "core/errors.h"
#include "core/planners/graph_exact.h"
#include "core/planners/op_exact.h"

#include <charconv>

namespace remat::cli {

namespace {
std::string allowed(std::int64_t min, std::int64_t max) {
    return "an integer from " + std::to_string(min) + " to " + std::to_string(max);
}
} // namespace

std::int64_t parseInteger(const std::string &option, const std::string &text, std::int64_t min, std::int64_t max) {
    std::int64_t value = 0;
    const char *begin = text.data(), *end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(begin, end, value);
    if (text.empty() || ec != std::errc() || ptr != end || value < min || value > max)
        throw InvalidArgument(option + " must be " + allowed(min, max) + ", got '" + text + "'");
    return value;
}

std::vector<int> parseIntegerList(const std::string &option, const std::string &text) {
    std::vector<int> out;
    if (text.empty())
        return out;
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = text.find(',', start);
        const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (item.empty())
            throw InvalidArgument(option + " must be a comma-separated list of integers such as 3,7,11, got '" + text +
                                  "'");
        std::int64_t value = 0;
        const auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), value);
        if (ec != std::errc() || ptr != item.data() + item.size() || value < INT32_MIN || value > INT32_MAX)
            throw InvalidArgument(option + " must be a comma-separated list of integers such as 3,7,11; '" + item +
                                  "' is not an integer");
        out.push_back(static_cast<int>(value));
        if (comma == std::string::npos)
            break;
        start = comma + 1;
    }
    return out;
}

Range parseRange(const std::string &option, const std::string &text, std::int64_t min, std::int64_t max) {
    const std::size_t dots = text.find("..");
    if (dots == std::string::npos) {
        const std::int64_t v = parseInteger(option, text, min, max);
        return {v, v};
    }
    const std::string a = text.substr(0, dots), b = text.substr(dots + 2);
    Range r{parseInteger(option + " (start of " + text + ")", a, min, max),
            parseInteger(option + " (end of " + text + ")", b, min, max)};
    if (r.first > r.last)
        throw InvalidArgument(option + " range must go upwards, got '" + text + "'");
    return r;
}

std::int64_t parseEffort(const std::string &flag, const std::string &text, std::int64_t min, std::int64_t max,
                         const std::string &unit, const std::string &example) {
    const auto e = text.find_first_of("eE");
    const auto whole = [](const std::string &digits, std::int64_t &value) {
        const char *end = digits.data() + digits.size();
        const auto [ptr, ec] = std::from_chars(digits.data(), end, value);
        return !digits.empty() && digits[0] != '-' && ec == std::errc() && ptr == end;
    };
    std::int64_t value = 0, exponent = 0;
    bool ok = whole(text.substr(0, e), value) && (e == std::string::npos || whole(text.substr(e + 1), exponent));
    for (std::int64_t k = 0; ok && k < exponent && value <= max; ++k)
        value *= 10;
    if (!ok || value < min || value > max)
        throw InvalidArgument(flag + " must be a whole number of " + unit + " from " + effortText(min) + " to " +
                              effortText(max) + ", such as " + example + ", got '" + text + "'");
    return value;
}

std::int64_t parseGraphEffort(const std::string &text, bool chain) {
    if (chain)
        throw InvalidArgument("--effort bounds the op-level search (--granularity op) and the graph planner; "
                              "this model is a chain, planned exactly by dynamic programming");
    return parseEffort("--effort", text, 0, planners::kMaxGraphEffort, "branch-and-bound nodes", "200");
}

std::int64_t parseSearchWork(const std::string &text, bool chain) {
    if (chain)
        throw InvalidArgument("--search-work bounds the graph planner's exact stage search; this model is a chain, "
                              "planned exactly by dynamic programming");
    return parseEffort("--search-work", text, 0, planners::kMaxStageSearchWork, "stage layouts", "1e8");
}

} // namespace remat::cli
