#pragma once
// A lesson chapter's exercise on screen (docs/lessons.md, "Exercises"): the
// prompt and the budget under the caption, Check (Enter) and the verdict,
// and Show the best plan. The student's answer is what pane 1 (a
// `checkpoints` pane) keeps: they click its forward nodes, as anywhere in
// the studio (Session::toggleCheckpoint). The verdict is core/exercise.h's;
// this panel only shows it, and over the budget it takes the player to the
// answer's peak, where the chart marks it.
#include "app/lesson/lesson.h"

#include <QWidget>

#include <memory>
#include <optional>

class QLabel;
class QPushButton;

namespace remat::studio {

class Session;

class ExercisePanel : public QWidget {
    Q_OBJECT
public:
    ExercisePanel(Session &session, QWidget *parent);
    // The chapter's exercise on `model`; hidden without one.
    void setExercise(const std::optional<lesson::Exercise> &exercise, std::shared_ptr<const Model> model);
    bool hasExercise() const { return exercise_.has_value(); }
    QString verdict() const;
    // The last grade, empty before Check or after the answer changed.
    const std::optional<ExerciseGrade> &grade() const { return grade_; }

public slots:
    // Grades pane 1's kept nodes; says why not when pane 1 is no longer the
    // student's checkpoints pane on the chapter's model.
    void check();
    // Adds panes with the best set of kept nodes and, where it computes less,
    // the budget planner's plan.
    void showBestPlan();

private:
    void answerChanged(int pane);
    std::optional<std::vector<int>> studentAnswer();

    Session &session_;
    std::optional<lesson::Exercise> exercise_;
    std::shared_ptr<const Model> model_;
    std::optional<ExerciseGrade> grade_;
    QLabel *prompt_;
    QLabel *verdict_;
    QPushButton *check_;
    QPushButton *best_;
};

} // namespace remat::studio
