#include "core/json_file.h"

#include "core/errors.h"
#include "core/units.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace remat::json_file {

using nlohmann::json;

namespace {

// At most 40 bytes of `s`, cut on a UTF-8 character boundary.
std::string shortened(std::string s) {
    if (s.size() <= 40)
        return s;
    std::size_t cut = 37;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80)
        --cut;
    return s.substr(0, cut) + "...";
}

std::string lineAndColumn(std::string_view text, std::size_t byte) {
    std::size_t line = 1, column = 1;
    for (std::size_t i = 0; i < byte && i < text.size(); ++i) {
        if (text[i] == '\n') {
            ++line;
            column = 1;
        } else {
            ++column;
        }
    }
    return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

// A problem found in the raw text, before nlohmann sees it: nesting deeper
// than the format needs (nlohmann's values recurse, so 100 000 levels would
// overflow the stack) and numbers too large for a double (which nlohmann
// reports without a position).
struct TextProblem {
    std::size_t byte;
    std::string message;
};

std::optional<TextProblem> firstTextProblem(std::string_view text, int maxNesting, const std::string &nestingHint) {
    int depth = 0;
    bool inString = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '[' || c == '{') {
            if (++depth > maxNesting)
                return TextProblem{i,
                                   "nested more than " + std::to_string(maxNesting) + " levels deep; " + nestingHint};
        } else if (c == ']' || c == '}') {
            depth = std::max(0, depth - 1);
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            std::size_t end = i;
            while (end < text.size() && std::string_view("+-.0123456789eE").find(text[end]) != std::string_view::npos)
                ++end;
            const std::string number(text.substr(i, end - i));
            if (!std::isfinite(std::strtod(number.c_str(), nullptr)))
                return TextProblem{i, "number " + shortened(number) + " is out of range (at most about 1.8e308)"};
            i = end - 1;
        }
    }
    return std::nullopt;
}

} // namespace

std::string readText(const std::string &path, std::int64_t maxBytes, const std::string &what) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    if (ec)
        throw InvalidArgument(path + ": cannot read the " + what + " (" + ec.message() + ")");
    if (size > static_cast<std::uintmax_t>(maxBytes))
        throw InvalidArgument(path + ": " + what + " is " + formatBytes(static_cast<std::int64_t>(size)) +
                              "; the limit is " + formatBytes(maxBytes));
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw InvalidArgument(path + ": cannot open the " + what);
    std::ostringstream text;
    text << in.rdbuf();
    if (!in.good() && !in.eof())
        throw InvalidArgument(path + ": error while reading the " + what);
    return text.str();
}

json parse(std::string_view text, const std::string &origin, int maxNesting, const std::string &nestingHint) {
    if (const auto problem = firstTextProblem(text, maxNesting, nestingHint))
        throw InvalidArgument(origin + ": " + lineAndColumn(text, problem->byte) + ": " + problem->message);
    json doc;
    try {
        doc = json::parse(text.begin(), text.end());
    } catch (const json::parse_error &e) {
        // e.what() repeats the position in its own words; keep the reason.
        std::string reason = e.what();
        if (const auto p = reason.find("syntax error"); p != std::string::npos)
            reason = reason.substr(p);
        throw InvalidArgument(origin + ": " + lineAndColumn(text, e.byte > 0 ? e.byte - 1 : 0) + ": not valid JSON (" +
                              reason + ")");
    } catch (const json::exception &e) {
        // Whatever else nlohmann refuses (firstTextProblem catches the known cases with a place).
        throw InvalidArgument(origin + ": not valid JSON (" + e.what() + ")");
    }
    return doc;
}

void Reader::fail(const std::string &pointer, const std::string &message) const {
    throw InvalidArgument(origin_ + ": " + (pointer.empty() ? "/" : pointer) + ": " + message);
}

std::string Reader::shown(const json &v) {
    return shortened(v.dump());
}

void Reader::onlyKeys(const json &object, const std::string &pointer, const std::set<std::string> &known) const {
    for (const auto &[key, value] : object.items())
        if (!known.count(key)) {
            std::string list;
            for (const auto &k : known)
                list += (list.empty() ? "" : ", ") + k;
            fail(pointer + "/" + key, "unknown key \"" + key + "\"; known keys: " + list);
        }
}

std::string Reader::text(const json &object, const std::string &key, const std::string &pointer, bool required) const {
    if (!object.contains(key)) {
        if (required)
            fail(pointer, "missing \"" + key + "\" (a string)");
        return {};
    }
    const json &v = object[key];
    if (!v.is_string())
        fail(pointer + "/" + key, "expected a string, got " + shown(v));
    return v.get<std::string>();
}

std::int64_t Reader::size(const json &object, const std::string &key, const std::string &pointer, double unit,
                          std::optional<std::int64_t> fallback) const {
    const std::string where = pointer + "/" + key;
    if (!object.contains(key)) {
        if (!fallback)
            fail(pointer, "missing \"" + key + "\" (bytes: a number or a string such as \"2 MiB\")");
        return *fallback;
    }
    const json &v = object[key];
    if (v.is_string()) {
        try {
            return parseBytes(v.get<std::string>(), "size");
        } catch (const InvalidArgument &) {
            fail(where, "expected a size such as 4096 or \"2 MiB\", got " + shown(v));
        }
    }
    if (!v.is_number() || v.get<double>() < 0 || !std::isfinite(v.get<double>()))
        fail(where, "expected a size >= 0 (a number or a string such as \"2 MiB\"), got " + shown(v));
    const double bytes = std::round(v.get<double>() * unit);
    if (bytes > 9.2e18)
        fail(where, "size " + shown(v) + " is too large");
    return static_cast<std::int64_t>(bytes);
}

double Reader::cost(const json &object, const std::string &key, const std::string &pointer, double fallback) const {
    if (!object.contains(key))
        return fallback;
    const json &v = object[key];
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0)
        fail(pointer + "/" + key, "expected a cost >= 0 (a number), got " + shown(v));
    return v.get<double>();
}

std::int64_t Reader::integer(const json &object, const std::string &key, const std::string &pointer, std::int64_t min,
                             std::int64_t max, std::optional<std::int64_t> fallback) const {
    const std::string range = "a whole number from " + std::to_string(min) + " to " + std::to_string(max);
    if (!object.contains(key)) {
        if (!fallback)
            fail(pointer, "missing \"" + key + "\" (" + range + ")");
        return *fallback;
    }
    const json &v = object[key];
    if (!v.is_number_integer() ||
        (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(max)) ||
        v.get<std::int64_t>() < min || v.get<std::int64_t>() > max)
        fail(pointer + "/" + key, "expected " + range + ", got " + shown(v));
    return v.get<std::int64_t>();
}

double Reader::number(const json &object, const std::string &key, const std::string &pointer, double minExclusive,
                      double max, double fallback) const {
    if (!object.contains(key))
        return fallback;
    const json &v = object[key];
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() <= minExclusive || v.get<double>() > max)
        fail(pointer + "/" + key, "expected a number above " + (std::ostringstream() << minExclusive).str() +
                                      " and at most " + (std::ostringstream() << max).str() + ", got " + shown(v));
    return v.get<double>();
}

bool Reader::boolean(const json &object, const std::string &key, const std::string &pointer, bool fallback) const {
    if (!object.contains(key))
        return fallback;
    const json &v = object[key];
    if (!v.is_boolean())
        fail(pointer + "/" + key, "expected true or false, got " + shown(v));
    return v.get<bool>();
}

const json &Reader::object(const json &doc, const std::string &key, const std::set<std::string> &known,
                          const std::string &example) const {
    const json &v = doc[key];
    if (!v.is_object())
        fail("/" + key, "expected an object such as " + example + ", got " + shown(v));
    onlyKeys(v, "/" + key, known);
    return v;
}

} // namespace remat::json_file
