#pragma once
// Lessons: an ordered list of chapters a lecturer plays one after another
// (docs/lessons.md). Each chapter is a scenario — a model, 1 to 4 panes with a
// strategy and its parameters each — with a title, a caption of one or two
// sentences shown on screen, and stops: moments where playback pauses by
// itself (a pane's peak, its first recomputation, the end of its forward
// pass), found on the simulator's Timeline (app/lesson/lesson_stops.h), never
// typed in as op numbers. A chapter may show its model's trade-off curve
// instead of panes. No Qt: the studio and the headless export share it.
//
// Loading is all or nothing, like model files (core/model_io.h): any error
// throws InvalidArgument naming the lesson file and the line (syntax) or the
// JSON pointer (content) and what was expected. Model files a chapter names
// are loaded with it, relative to the lesson's folder; every pane's
// parameters are checked by its strategy.
#include "core/exercise.h"
#include "core/model.h"
#include "core/strategy.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace remat::lesson {

enum class StopKind {
    Peak,               // the op at which the pane holds the most memory
    FirstRecomputation, // the first op that computes a forward node again
    ForwardEnd,         // the op that first computes the output a_n: the forward pass is done
    FirstEviction,      // the compute the runtime (dtr) first evicts a node for: memory is full
    Time,               // a moment on the chapter's clock (Stop::time), where the lesson's author paused
};
// "peak", "first-recomputation", "forward-end", "first-eviction", "time" (as in the file).
const char *stopKindName(StopKind kind);

struct Stop {
    StopKind kind = StopKind::Peak;
    int pane = 0;     // 0-based here; the file counts panes from 1, as the studio shows them
    double time = 0;  // Time only: on the chapter's clock (cost, or ops with "sync": "ops"), from 0
};

struct Pane {
    std::string strategy;
    StrategyParams params;
};

enum class ChapterView {
    Timeline,      // panes side by side, the memory chart below
    TradeOffCurve, // the model's least compute for every peak (core/frontier.h)
};

// A graded exercise (docs/lessons.md, "Exercises"): the student keeps forward
// nodes in pane 1, a `checkpoints` pane, and asks whether they fit `budget`
// (core/exercise.h grades it). Refused when the lesson loads if no set of
// kept nodes fits the budget, or the model is not a chain the search takes.
struct Exercise {
    ExerciseBudget budget;
    std::string budgetWritten; // as the file gives it ("7 nodes", "1.2 GiB"), written back as is
    std::string prompt;
};

struct Chapter {
    std::string title;
    std::string caption;
    std::shared_ptr<const Model> model;
    std::string modelName; // the model file's own name, "" for a chain
    std::string modelFile; // the model file as found, "" for a chain
    ChapterView view = ChapterView::Timeline;
    std::vector<Pane> panes; // 1 to 4 for a timeline, none for the curve
    std::vector<Stop> stops; // in the file's order; the player sorts them by time
    bool syncByCost = true;  // the player's clock: op costs, or one tick per op
    double seconds = 20;     // the whole chapter plays in about this long
    bool stackByKind = false;
    std::optional<Exercise> exercise;
};

struct Lesson {
    std::string title;
    std::string file; // as given to loadLessonFile
    std::vector<Chapter> chapters;
};

constexpr std::int64_t kMaxLessonFileBytes = 4 * 1024 * 1024;
constexpr int kMaxChapters = 200;
constexpr int kMaxPanes = 4;
constexpr int kMaxStops = 32;
constexpr std::size_t kMaxTitleChars = 90;    // a title fits one line on screen
constexpr std::size_t kMaxCaptionChars = 240; // one or two sentences, shown large under the title
constexpr int kMaxLessonNesting = 16; // the format needs 5 (lesson, chapters, chapter, panes, checkpoints)

// Why `text` cannot be a title (kMaxTitleChars) or caption: "" when it can,
// else "expected a non-empty text" or "is 300 characters long; at most 240".
std::string screenTextProblem(const std::string &text, std::size_t maxChars);

Lesson loadLessonFile(const std::string &path);
// `origin` names the text in messages; model files are looked up relative to `folder`.
Lesson parseLessonJson(std::string_view text, const std::string &origin, const std::string &folder);

} // namespace remat::lesson
