#include "app/lesson/lesson.h"

#include "core/errors.h"
#include "core/json_file.h"
#include "core/model_io.h"
#include "core/strategy_registry.h"
#include "core/units.h"

#include <cctype>
#include <filesystem>

namespace remat::lesson {

namespace {

using json_file::Reader;
using nlohmann::json;


std::string pointerOf(const std::string &parent, std::size_t index) {
    return parent + "/" + std::to_string(index);
}

// A short text shown on screen: present, not empty, not too long for its place.
std::string screenText(const Reader &r, const json &object, const std::string &key, const std::string &pointer,
                       std::size_t maxChars, const std::string &why) {
    std::string text = r.text(object, key, pointer, true);
    if (const std::string problem = screenTextProblem(text, maxChars); !problem.empty())
        r.fail(pointer + "/" + key, problem + (problem.find("at most") == std::string::npos ? "" : " (" + why + ")"));
    return text;
}

// "12 nodes" (or a plain number) is a budget in nodes, "2 GiB" one in bytes.
void readBudget(const Reader &r, const json &pane, const std::string &pointer, StrategyParams &params) {
    const json &v = pane["budget"];
    const std::string where = pointer + "/budget";
    if (v.is_number_integer()) {
        params.budgetNodes = r.integer(pane, "budget", pointer, 1, Model::kMaxLayers * 4LL, std::nullopt);
        return;
    }
    const std::string hint = "expected a budget such as \"12 nodes\", 12 or \"2 GiB\", got " + Reader::shown(v);
    if (!v.is_string())
        r.fail(where, hint);
    std::string text = v.get<std::string>();
    const auto digits = std::find_if(text.begin(), text.end(), [](char c) { return !std::isdigit(c); });
    std::string rest(digits, text.end());
    rest.erase(0, rest.find_first_not_of(' '));
    if (digits != text.begin() && (rest == "nodes" || rest == "node")) {
        try {
            params.budgetNodes = std::stoll(std::string(text.begin(), digits));
        } catch (const std::exception &) {
            r.fail(where, hint);
        }
        if (*params.budgetNodes < 1)
            r.fail(where, "a budget of at least 1 node, got " + Reader::shown(v));
        return;
    }
    try {
        params.budgetBytes = parseBytes(text, "budget");
    } catch (const InvalidArgument &) {
        r.fail(where, hint);
    }
    if (*params.budgetBytes < 1)
        r.fail(where, "a budget of at least 1 byte, got " + Reader::shown(v));
}

// {"budget": "7 nodes" | "1.2 GiB", "prompt": "..."} on a chapter whose
// pane 1 is the student's checkpoints pane.
Exercise readExercise(const Reader &r, const json &exercise, const std::string &pointer, const Chapter &chapter) {
    if (!exercise.is_object())
        r.fail(pointer, "expected an object such as {\"budget\": \"7 nodes\", \"prompt\": \"...\"}, got " +
                            Reader::shown(exercise));
    r.onlyKeys(exercise, pointer, {"budget", "prompt", "comment"});
    if (!exercise.contains("budget"))
        r.fail(pointer, "missing \"budget\" (such as \"7 nodes\" or \"1.2 GiB\")");
    Exercise out;
    out.prompt = screenText(r, exercise, "prompt", pointer, kMaxCaptionChars, "shown under the caption");
    StrategyParams budget;
    readBudget(r, exercise, pointer, budget);
    out.budget = budget.budgetNodes ? ExerciseBudget{planners::KeptSetUnit::Nodes, *budget.budgetNodes}
                                    : ExerciseBudget{planners::KeptSetUnit::Bytes, *budget.budgetBytes};
    const json &written = exercise["budget"];
    out.budgetWritten = written.is_string() ? written.get<std::string>() : budgetText(out.budget);
    if (chapter.view != ChapterView::Timeline || chapter.panes.empty() || chapter.panes[0].strategy != "checkpoints")
        r.fail(pointer, "an exercise chapter's pane 1 is the student's: give it first in \"panes\" as "
                        "{\"strategy\": \"checkpoints\", \"checkpoints\": []}");
    try {
        requireGradableExercise(*chapter.model, out.budget);
    } catch (const Error &e) {
        r.fail(pointer + "/budget", e.what());
    }
    return out;
}

Pane readPane(const Reader &r, const json &pane, const std::string &pointer, const Model &model) {
    if (!pane.is_object())
        r.fail(pointer,
               "expected an object such as {\"strategy\": \"periodic\", \"every\": 4}, got " + Reader::shown(pane));
    r.onlyKeys(pane, pointer, {"strategy", "every", "slots", "budget", "heuristic", "checkpoints", "comment"});
    Pane out;
    out.strategy = r.text(pane, "strategy", pointer, true);
    const Strategy *strategy = StrategyRegistry::builtin().find(out.strategy);
    if (!strategy)
        r.fail(pointer + "/strategy",
               "unknown strategy \"" + out.strategy + "\"; known: " + StrategyRegistry::builtin().namesJoined());
    if (pane.contains("every"))
        out.params.every = static_cast<int>(r.integer(pane, "every", pointer, 1, Model::kMaxLayers, std::nullopt));
    if (pane.contains("slots"))
        out.params.checkpointSlots =
            static_cast<int>(r.integer(pane, "slots", pointer, 1, Model::kMaxLayers + 1, std::nullopt));
    if (pane.contains("budget"))
        readBudget(r, pane, pointer, out.params);
    if (pane.contains("heuristic"))
        out.params.heuristic = r.text(pane, "heuristic", pointer, true);
    if (pane.contains("checkpoints")) {
        const json &list = pane["checkpoints"];
        if (!list.is_array())
            r.fail(pointer + "/checkpoints",
                   "expected an array of forward node indices such as [4, 8, 12], got " + Reader::shown(list));
        std::vector<int> checkpoints;
        for (std::size_t i = 0; i < list.size(); ++i) {
            const json holder = {{"i", list[i]}};
            checkpoints.push_back(
                static_cast<int>(r.integer(holder, "i", pointer + "/checkpoints", 0, Model::kMaxLayers, std::nullopt)));
        }
        out.params.checkpoints = std::move(checkpoints);
    }
    // The strategy checks its own parameters against the model, as the CLI's do.
    try {
        strategy->estimate(model, out.params);
    } catch (const Error &e) {
        r.fail(pointer, e.what());
    }
    return out;
}

Stop readStop(const Reader &r, const json &stop, const std::string &pointer, int panes) {
    if (!stop.is_object())
        r.fail(pointer, "expected an object such as {\"at\": \"peak\", \"pane\": 2}, got " + Reader::shown(stop));
    r.onlyKeys(stop, pointer, {"at", "pane", "time", "comment"});
    Stop out;
    const std::string at = r.text(stop, "at", pointer, true);
    bool known = false;
    for (const StopKind kind : {StopKind::Peak, StopKind::FirstRecomputation, StopKind::ForwardEnd,
                                StopKind::FirstEviction, StopKind::Time})
        if (at == stopKindName(kind)) {
            out.kind = kind;
            known = true;
        }
    if (!known)
        r.fail(pointer + "/at",
               "unknown stop \"" + at + "\"; known: peak, first-recomputation, forward-end, first-eviction, time");
    out.pane = static_cast<int>(r.integer(stop, "pane", pointer, 1, panes, 1)) - 1;
    if (out.kind == StopKind::Time) {
        if (!stop.contains("time"))
            r.fail(pointer, "a \"time\" stop needs \"time\": the moment on the chapter's clock, such as 12.5");
        out.time = r.number(stop, "time", pointer, 0, 1e300, 0);
    } else if (stop.contains("time")) {
        r.fail(pointer + "/time", "only a \"time\" stop has a time; a \"" + at + "\" stop is found on the timeline");
    }
    return out;
}

Chapter readChapter(const Reader &r, const json &chapter, const std::string &pointer, const std::string &folder) {
    if (!chapter.is_object())
        r.fail(pointer, "expected an object with \"title\", \"caption\" and \"panes\", got " + Reader::shown(chapter));
    r.onlyKeys(chapter, pointer,
               {"title", "caption", "layers", "model", "show", "panes", "stops", "sync", "seconds", "stack_by_kind",
                "exercise", "comment"});
    Chapter out;
    out.title = screenText(r, chapter, "title", pointer, kMaxTitleChars, "a title fits one line on screen");
    out.caption = screenText(r, chapter, "caption", pointer, kMaxCaptionChars,
                             "one or two sentences, shown large under the title");

    if (chapter.contains("layers") && chapter.contains("model"))
        r.fail(pointer + "/model", "give \"layers\" (a chain) or \"model\" (a model file), not both");
    if (chapter.contains("model")) {
        const std::string name = r.text(chapter, "model", pointer, true);
        std::filesystem::path path(name);
        if (path.is_relative())
            path = std::filesystem::path(folder) / path;
        try {
            ModelFile file = loadModelFile(path.lexically_normal().string());
            out.modelName = file.name.empty() ? path.filename().string() : file.name;
            out.model = std::make_shared<const Model>(std::move(file.model));
        } catch (const Error &e) {
            r.fail(pointer + "/model", e.what());
        }
        out.modelFile = path.lexically_normal().string();
    } else {
        const int layers = static_cast<int>(r.integer(chapter, "layers", pointer, 1, Model::kMaxLayers, 16));
        out.model = std::make_shared<const Model>(Model::chain(layers));
    }

    const std::string show = chapter.contains("show") ? r.text(chapter, "show", pointer, true) : "timeline";
    if (show == "trade-off-curve")
        out.view = ChapterView::TradeOffCurve;
    else if (show != "timeline")
        r.fail(pointer + "/show",
               "expected \"timeline\" or \"trade-off-curve\", got " + Reader::shown(chapter["show"]));

    const std::string sync = chapter.contains("sync") ? r.text(chapter, "sync", pointer, true) : "cost";
    if (sync != "cost" && sync != "ops")
        r.fail(pointer + "/sync", "expected \"cost\" or \"ops\", got " + Reader::shown(chapter["sync"]));
    out.syncByCost = sync == "cost";
    out.seconds = r.number(chapter, "seconds", pointer, 0, 3600, out.seconds);
    out.stackByKind = r.boolean(chapter, "stack_by_kind", pointer, false);

    if (out.view == ChapterView::TradeOffCurve) {
        for (const char *key : {"panes", "stops", "stack_by_kind", "exercise"})
            if (chapter.contains(key))
                r.fail(pointer + "/" + key,
                       "a \"trade-off-curve\" chapter shows its model's curve; it has no \"" + std::string(key) + "\"");
        return out;
    }
    if (!chapter.contains("panes"))
        r.fail(pointer, "missing \"panes\" (an array of 1 to 4 panes, each {\"strategy\": ...})");
    const json &panes = chapter["panes"];
    if (!panes.is_array() || panes.empty() || panes.size() > static_cast<std::size_t>(kMaxPanes))
        r.fail(pointer + "/panes",
               "expected an array of 1 to " + std::to_string(kMaxPanes) + " panes, got " + Reader::shown(panes));
    for (std::size_t i = 0; i < panes.size(); ++i)
        out.panes.push_back(readPane(r, panes[i], pointerOf(pointer + "/panes", i), *out.model));
    if (chapter.contains("stops")) {
        const json &stops = chapter["stops"];
        if (!stops.is_array() || stops.size() > static_cast<std::size_t>(kMaxStops))
            r.fail(pointer + "/stops", "expected an array of at most " + std::to_string(kMaxStops) +
                                           " stops such as {\"at\": \"peak\", \"pane\": 1}, got " +
                                           Reader::shown(stops));
        for (std::size_t i = 0; i < stops.size(); ++i)
            out.stops.push_back(
                readStop(r, stops[i], pointerOf(pointer + "/stops", i), static_cast<int>(out.panes.size())));
    }
    if (chapter.contains("exercise"))
        out.exercise = readExercise(r, chapter["exercise"], pointer + "/exercise", out);
    return out;
}

} // namespace

const char *stopKindName(StopKind kind) {
    switch (kind) {
    case StopKind::Peak:
        return "peak";
    case StopKind::FirstRecomputation:
        return "first-recomputation";
    case StopKind::ForwardEnd:
        return "forward-end";
    case StopKind::FirstEviction:
        return "first-eviction";
    case StopKind::Time:
        return "time";
    }
    return "?";
}

std::string screenTextProblem(const std::string &text, std::size_t maxChars) {
    if (text.find_first_not_of(" \t\n") == std::string::npos)
        return "expected a non-empty text";
    std::size_t count = 0; // characters, not UTF-8 bytes
    for (const char c : text)
        count += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    if (count > maxChars)
        return "is " + std::to_string(count) + " characters long; at most " + std::to_string(maxChars);
    return {};
}

Lesson parseLessonJson(std::string_view text, const std::string &origin, const std::string &folder) {
    const json doc = json_file::parse(text, origin, kMaxLessonNesting,
                                      "a lesson needs 5 (lesson, chapters, chapter, panes, checkpoints)");
    const Reader r(origin);
    if (!doc.is_object())
        r.fail("", "expected an object with \"title\" and \"chapters\", got " + Reader::shown(doc));
    r.onlyKeys(doc, "", {"format", "version", "title", "comment", "chapters"});
    if (!doc.contains("format") || doc["format"] != "remat-lesson")
        r.fail(doc.contains("format") ? "/format" : "",
               doc.contains("format") ? "expected \"remat-lesson\", got " + Reader::shown(doc["format"])
                                      : "missing \"format\": \"remat-lesson\" (is this a lesson?)");
    if (doc.contains("version") && doc["version"] != 1)
        r.fail("/version", "this remat reads version 1, got " + Reader::shown(doc["version"]));
    Lesson out;
    out.title = screenText(r, doc, "title", "", kMaxTitleChars, "a title fits one line on screen");
    if (!doc.contains("chapters"))
        r.fail("", "missing \"chapters\" (an array of at least one chapter)");
    const json &chapters = doc["chapters"];
    if (!chapters.is_array() || chapters.empty() || chapters.size() > static_cast<std::size_t>(kMaxChapters))
        r.fail("/chapters", "expected an array of 1 to " + std::to_string(kMaxChapters) + " chapters, got " +
                                Reader::shown(chapters));
    for (std::size_t i = 0; i < chapters.size(); ++i)
        out.chapters.push_back(readChapter(r, chapters[i], pointerOf("/chapters", i), folder));
    return out;
}

Lesson loadLessonFile(const std::string &path) {
    Lesson lesson = parseLessonJson(json_file::readText(path, kMaxLessonFileBytes, "lesson"), path,
                                    std::filesystem::path(path).parent_path().string());
    lesson.file = path;
    return lesson;
}

} // namespace remat::lesson
