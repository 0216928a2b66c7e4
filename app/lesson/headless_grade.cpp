#include "app/lesson/headless_grade.h"

#include "app/lesson/lesson.h"
#include "core/errors.h"

#include <charconv>
#include <map>
#include <optional>

namespace remat::lesson {

namespace {

// The options --grade takes, each with its value: --name VALUE or --name=VALUE.
std::map<std::string, std::string> gradeOptions(const std::vector<std::string> &args) {
    std::map<std::string, std::string> values;
    for (std::size_t i = 1; i < args.size(); ++i) {
        std::string arg = args[i];
        if (arg == "--grade")
            continue;
        std::optional<std::string> value;
        if (const auto eq = arg.find('='); eq != std::string::npos) {
            value = arg.substr(eq + 1);
            arg.erase(eq);
        }
        if (arg != "--lesson" && arg != "--chapter" && arg != "--answer")
            throw InvalidArgument("--grade takes --lesson FILE, --chapter N and --answer LIST; '" + args[i] +
                                  "' is not one of them");
        if (!value) {
            if (i + 1 >= args.size())
                throw InvalidArgument(arg + " needs a value");
            value = args[++i];
        }
        values[arg] = *value;
    }
    for (const char *needed : {"--lesson", "--chapter", "--answer"})
        if (!values.count(needed))
            throw InvalidArgument(std::string("--grade needs ") + needed +
                                  " (remat-studio --lesson FILE --chapter N --answer 4,10,13 --grade)");
    return values;
}

std::string trimmed(const std::string &text) {
    const auto first = text.find_first_not_of(" \t");
    return first == std::string::npos ? "" : text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

std::string chaptersWithExercises(const Lesson &lesson) {
    std::string out;
    for (std::size_t i = 0; i < lesson.chapters.size(); ++i)
        if (lesson.chapters[i].exercise)
            out += (out.empty() ? "" : ", ") + std::to_string(i + 1);
    return out.empty() ? "none" : out;
}

} // namespace

bool wantsGrade(const std::vector<std::string> &args) {
    for (std::size_t i = 1; i < args.size(); ++i)
        if (args[i] == "--grade")
            return true;
    return false;
}

std::vector<int> parseAnswer(const std::string &text) {
    std::vector<int> nodes;
    if (trimmed(text).empty())
        return nodes;
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = text.find(',', start);
        const std::string piece = trimmed(text.substr(start, comma == std::string::npos ? comma : comma - start));
        int node = 0;
        const auto [end, error] = std::from_chars(piece.data(), piece.data() + piece.size(), node);
        if (piece.empty() || error != std::errc() || end != piece.data() + piece.size())
            throw InvalidArgument("--answer: '" + piece +
                                  "' is not a node number; give the kept forward nodes as numbers separated by "
                                  "commas, e.g. 4,10,13 (\"\" keeps none)");
        nodes.push_back(node);
        if (comma == std::string::npos)
            return nodes;
        start = comma + 1;
    }
}

int runGrade(const std::vector<std::string> &args, std::ostream &out, std::ostream &err) {
    try {
        const auto options = gradeOptions(args);
        const std::string &chapterText = options.at("--chapter");
        int number = 0;
        const auto [end, error] = std::from_chars(chapterText.data(), chapterText.data() + chapterText.size(), number);
        if (error != std::errc() || end != chapterText.data() + chapterText.size() || number < 1)
            throw InvalidArgument("--chapter must be a chapter number from 1, got '" + chapterText + "'");
        const std::vector<int> answer = parseAnswer(options.at("--answer"));
        const Lesson lesson = loadLessonFile(options.at("--lesson"));
        const int chapters = static_cast<int>(lesson.chapters.size());
        if (number > chapters)
            throw InvalidArgument("--chapter " + chapterText + ": the lesson has chapters 1 to " +
                                  std::to_string(chapters) + "; those with an exercise: " +
                                  chaptersWithExercises(lesson));
        const Chapter &chapter = lesson.chapters[static_cast<std::size_t>(number - 1)];
        if (!chapter.exercise)
            throw InvalidArgument("--chapter " + chapterText + " has no exercise; chapters with one: " +
                                  chaptersWithExercises(lesson));
        std::vector<int> kept;
        try {
            kept = checkedAnswer(*chapter.model, answer);
        } catch (const InvalidArgument &e) {
            throw InvalidArgument(std::string("--answer: ") + e.what());
        }
        const ExerciseGrade grade = gradeExercise(*chapter.model, chapter.exercise->budget, kept);
        out << "chapter " << number << ": " << verdictText(*chapter.model, chapter.exercise->budget, grade) << "\n";
        return grade.verdict == Verdict::OverBudget ? 1 : 0;
    } catch (const Error &e) {
        err << "remat-studio: " << e.what() << "\n";
        return 2;
    }
}

} // namespace remat::lesson
