#pragma once
// Graded checkpoint exercises (docs/lessons.md, "Exercises"): a student keeps
// a set of forward nodes (the `checkpoints` plan of that set) and asks
// whether it fits a memory budget. The verdict compares the answer, as the
// simulator counts it, with the best set of kept nodes (exact,
// core/planners/kept_sets.h) and with the general optimum of the `budget`
// strategy, which may free a checkpoint and take it again in the backward
// pass. The studio and `remat-studio --grade` only print what this decides.
#include "core/planners/kept_sets.h"
#include "core/simulator.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace remat {

struct ExerciseBudget {
    planners::KeptSetUnit unit = planners::KeptSetUnit::Nodes;
    std::int64_t amount = 0;
};

// "7 nodes" or "1.20 GiB".
std::string budgetText(const ExerciseBudget &budget);
// The peak of `summary` in the budget's unit.
std::int64_t peakIn(const Summary &summary, planners::KeptSetUnit unit);

// Throws InvalidArgument unless an exercise can be graded on `model` with
// `budget`: a model the search takes, and a budget some set of kept nodes
// fits (else the message names the smallest budget one fits).
void requireGradableExercise(const Model &model, const ExerciseBudget &budget);

// The nodes an answer keeps, checked: forward nodes 1..n-1, each once, in
// any order; returned sorted. Throws InvalidArgument naming the value and
// what is allowed.
std::vector<int> checkedAnswer(const Model &model, const std::vector<int> &answer);

enum class Verdict { OverBudget, Fits, Best };

struct ExercisePlan {
    std::vector<int> kept;
    Schedule schedule;
    Summary summary;
};

struct ExerciseGrade {
    Verdict verdict = Verdict::OverBudget;
    ExercisePlan answer;
    ExercisePlan best;                  // the best set of kept nodes
    std::optional<ExercisePlan> general; // the budget strategy's plan, when it costs less than the best set
    double extraPercent = 0;             // the answer's compute over the best set's
    double generalSavingPercent = 0;     // how much less the general plan computes than the best set
};

// The `checkpoints` plan of `kept`, simulated.
ExercisePlan keptSetPlan(const Model &model, const std::vector<int> &kept);

// Grades `answer` (checked by checkedAnswer) against the budget. Throws
// InvalidArgument for a bad answer or an exercise requireGradableExercise refuses.
ExerciseGrade gradeExercise(const Model &model, const ExerciseBudget &budget, const std::vector<int> &answer);

// One sentence, two where the general optimum costs less (ops counted from
// 1, as the studio shows them): "Over the budget:
// ...", "Fits (...), but computes +12 % more ...", "Best: ...". Only the
// best verdict says "best".
std::string verdictText(const Model &model, const ExerciseBudget &budget, const ExerciseGrade &grade);

} // namespace remat
