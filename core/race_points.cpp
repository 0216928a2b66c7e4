#include "core/race_points.h"

#include "core/errors.h"
#include "core/json_file.h"

#include <cmath>

namespace remat {

namespace {

using json_file::Reader;
using nlohmann::json;

constexpr std::int64_t kMaxRaceFileBytes = 16 << 20;
// The race's points carry objects of their own (none deeper than 3: the
// document, "points", a point); a little room for what the race adds later.
constexpr int kMaxRaceNesting = 8;

// A number as measured: finite; >= 0 and whole where asked.
double measured(const Reader &r, const json &object, const std::string &key, const std::string &pointer,
                const std::string &expected, bool nonNegative, bool whole) {
    if (!object.contains(key))
        r.fail(pointer, "missing \"" + key + "\" (" + expected + ")");
    const json &v = object[key];
    const std::string where = pointer + "/" + key;
    if (!v.is_number() || !std::isfinite(v.get<double>()))
        r.fail(where, "expected " + expected + ", got " + Reader::shown(v));
    const double value = v.get<double>();
    if ((nonNegative && value < 0) || (whole && value != std::floor(value)))
        r.fail(where, "expected " + expected + ", got " + Reader::shown(v));
    return value;
}

RaceKind kindOf(const Reader &r, const json &point, const std::string &pointer) {
    const std::string text = r.text(point, "kind", pointer, true);
    for (const RaceKind k : {RaceKind::Remat, RaceKind::Peer, RaceKind::Compile})
        if (text == raceKindName(k))
            return k;
    r.fail(pointer + "/kind", "expected \"remat\", \"peer\" or \"compile\", got " + Reader::shown(point["kind"]));
}

} // namespace

const char *raceKindName(RaceKind kind) {
    switch (kind) {
    case RaceKind::Remat:
        return "remat";
    case RaceKind::Peer:
        return "peer";
    case RaceKind::Compile:
        return "compile";
    }
    return "?";
}

RaceResult parseRaceJson(std::string_view text, const std::string &origin) {
    const json doc =
        json_file::parse(text, origin, kMaxRaceNesting, "a race file needs 3 (object, points array, point)");
    const Reader r(origin);
    if (!doc.is_object())
        r.fail("", "expected an object with \"model\", \"torch\" and \"points\" (bench/framework_race.py --json), "
                   "got " +
                       Reader::shown(doc));
    RaceResult result;
    result.model = r.text(doc, "model", "", true);
    result.torch = r.text(doc, "torch", "", true);
    result.date = r.text(doc, "date", "", false);
    if (!doc.contains("points"))
        r.fail("", "missing \"points\" (an array of measured configurations: who, kind, observed_peak_bytes, "
                   "recompute_flops, step_seconds)");
    const json &points = doc["points"];
    if (!points.is_array() || points.empty())
        r.fail("/points", "expected a non-empty array of measured configurations, got " + Reader::shown(points));
    for (std::size_t i = 0; i < points.size(); ++i) {
        const std::string pointer = "/points/" + std::to_string(i);
        const json &p = points[i];
        if (!p.is_object())
            r.fail(pointer, "expected an object with who, kind, observed_peak_bytes, recompute_flops and "
                            "step_seconds, got " +
                                Reader::shown(p));
        RacePoint point;
        point.who = r.text(p, "who", pointer, true);
        if (point.who.empty())
            r.fail(pointer + "/who", "expected the configuration's name, got \"\"");
        point.kind = kindOf(r, p, pointer);
        const double peak = measured(r, p, "observed_peak_bytes", pointer, "a whole number of bytes >= 0", true, true);
        if (peak > 9.2e18)
            r.fail(pointer + "/observed_peak_bytes",
                   "size " + Reader::shown(p["observed_peak_bytes"]) + " is too large");
        point.observedPeakBytes = static_cast<std::int64_t>(peak);
        point.recomputeFlops = measured(r, p, "recompute_flops", pointer,
                                        "a whole number of FLOPs (below 0 when fewer than store-all's)", false, true);
        point.stepSeconds = measured(r, p, "step_seconds", pointer, "seconds >= 0", true, false);
        result.points.push_back(std::move(point));
    }
    if (doc.contains("not_run")) {
        const json &notRun = doc["not_run"];
        if (!notRun.is_array())
            r.fail("/not_run", "expected an array of {\"who\", \"reason\"}, got " + Reader::shown(notRun));
        for (std::size_t i = 0; i < notRun.size(); ++i) {
            const std::string pointer = "/not_run/" + std::to_string(i);
            if (!notRun[i].is_object())
                r.fail(pointer, "expected an object with \"who\" and \"reason\", got " + Reader::shown(notRun[i]));
            result.notRun.push_back(
                {r.text(notRun[i], "who", pointer, true), r.text(notRun[i], "reason", pointer, true)});
        }
    }
    return result;
}

RaceResult readRaceFile(const std::string &path) {
    return parseRaceJson(json_file::readText(path, kMaxRaceFileBytes, "race file"), path);
}

} // namespace remat
