#pragma once
// `remat-studio --lesson FILE --chapter N --answer 4,10,13 --grade`: the
// verdict of an exercise (core/exercise.h) without a window, one line on
// stdout. Exit status 0 when the answer fits ("best" in the line when it is
// the best set), 1 when it is over the budget, 2 with one line on stderr for
// a bad lesson, chapter or answer. No Qt: it runs before any application.
#include <ostream>
#include <string>
#include <vector>

namespace remat::lesson {

// True when `args` (argv, program name first) hold --grade.
bool wantsGrade(const std::vector<std::string> &args);

int runGrade(const std::vector<std::string> &args, std::ostream &out, std::ostream &err);

// "4,10,13" as forward node numbers ("" keeps none). Throws InvalidArgument
// naming the piece that is not a number.
std::vector<int> parseAnswer(const std::string &text);

} // namespace remat::lesson
