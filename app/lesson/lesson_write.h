#pragma once
// A lesson written back as the file format loadLessonFile reads
// (docs/lessons.md): what the studio's lesson editor saves. Loading the text
// gives back the same lesson (tests/lesson/test_lesson_write.cpp); keys at
// their defaults are left out, and model files are named relative to the
// folder the lesson is saved in. Comments are not part of a Lesson, so a
// file opened and saved again loses its "comment" keys.
#include "app/lesson/lesson.h"

#include <string>

namespace remat::lesson {

// `folder`: where the lesson file goes; chapters' model files are named from it.
std::string lessonJson(const Lesson &lesson, const std::string &folder);

// "12 nodes", or bytes as "1288490188 B": a budget the loader reads back exactly.
std::string budgetJsonText(const StrategyParams &params);

} // namespace remat::lesson
