#pragma once
// Reading the JSON files remat takes (model files, lessons) all or nothing.
// Every error is an InvalidArgument that names the file and either the line
// and column (the text is not JSON) or the JSON pointer of the offending
// value, and says what was expected.
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <exception>
#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace remat::json_file {

// The text of `path`; refused before reading when larger than `maxBytes`.
// `what` names the kind of file in messages ("model file", "lesson").
std::string readText(const std::string &path, std::int64_t maxBytes, const std::string &what);

// Parses `text`. Refuses, naming line and column, text nested deeper than
// `maxNesting` (nlohmann's values recurse: hostile nesting would overflow the
// stack; `nestingHint` says how deep the format goes) and numbers beyond a
// double, both found before parsing; then any syntax error.
nlohmann::json parse(std::string_view text, const std::string &origin, int maxNesting, const std::string &nestingHint);

// Reads values out of a parsed document; `pointer` is the JSON pointer of the
// object read from ("" for the top).
class Reader {
public:
    explicit Reader(std::string origin) : origin_(std::move(origin)) {}
    const std::string &origin() const { return origin_; }

    [[noreturn]] void fail(const std::string &pointer, const std::string &message) const;
    // A value as it stands in the file, cut to 40 bytes.
    static std::string shown(const nlohmann::json &v);

    void onlyKeys(const nlohmann::json &object, const std::string &pointer, const std::set<std::string> &known) const;
    std::string text(const nlohmann::json &object, const std::string &key, const std::string &pointer,
                     bool required) const;
    // A size: a whole number in `unit` bytes, or a string such as "2 MiB".
    std::int64_t size(const nlohmann::json &object, const std::string &key, const std::string &pointer, double unit,
                      std::optional<std::int64_t> fallback) const;
    double cost(const nlohmann::json &object, const std::string &key, const std::string &pointer,
                double fallback) const;
    // A whole number from `min` to `max`; `fallback` when absent (required when it has none).
    std::int64_t integer(const nlohmann::json &object, const std::string &key, const std::string &pointer,
                         std::int64_t min, std::int64_t max, std::optional<std::int64_t> fallback) const;
    // A number above `minExclusive` and at most `max`.
    double number(const nlohmann::json &object, const std::string &key, const std::string &pointer, double minExclusive,
                  double max, double fallback) const;
    bool boolean(const nlohmann::json &object, const std::string &key, const std::string &pointer, bool fallback) const;
    // A rate or a time: a number >= 0 in the base unit, or a string `parse`
    // reads ("16 GB/s", "10 us", "100 TFLOP/s"); `expected` says what, for messages.
    template <class Parse>
    std::optional<double> quantity(const nlohmann::json &object, const std::string &key, const std::string &pointer,
                                   const std::string &expected, Parse parse) const;
    // doc[key] as an object with only the `known` keys; `example` shows one in messages.
    const nlohmann::json &object(const nlohmann::json &doc, const std::string &key, const std::set<std::string> &known,
                                 const std::string &example) const;

private:
    std::string origin_;
};

template <class Parse>
std::optional<double> Reader::quantity(const nlohmann::json &object, const std::string &key,
                                       const std::string &pointer, const std::string &expected, Parse parse) const {
    if (!object.contains(key))
        return std::nullopt;
    const std::string where = pointer + "/" + key;
    const nlohmann::json &v = object[key];
    if (v.is_string()) {
        // The parser's own message is replaced by one that names the key.
        std::optional<double> parsed;
        try {
            parsed = parse(v.get<std::string>());
        } catch (const std::exception &) {
        }
        if (!parsed)
            fail(where, "expected " + expected + ", got " + shown(v));
        return parsed;
    }
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0)
        fail(where, "expected " + expected + ", got " + shown(v));
    return v.get<double>();
}

} // namespace remat::json_file
