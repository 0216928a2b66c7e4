#include "app/studio/exercise_panel.h"

#include "app/studio/player.h"
#include "app/studio/session.h"

#include <QAction>
#include <QGridLayout>
#include <QLabel>
#include <QPushButton>

namespace remat::studio {

namespace {

QString qs(const std::string &s) {
    return QString::fromStdString(s);
}

} // namespace

ExercisePanel::ExercisePanel(Session &session, QWidget *parent) : QWidget(parent), session_(session) {
    setObjectName(QStringLiteral("exercisePanel"));
    prompt_ = new QLabel(this);
    prompt_->setObjectName(QStringLiteral("exercisePrompt"));
    prompt_->setTextFormat(Qt::PlainText);
    prompt_->setWordWrap(true);
    verdict_ = new QLabel(this);
    verdict_->setObjectName(QStringLiteral("exerciseVerdict"));
    verdict_->setTextFormat(Qt::PlainText);
    verdict_->setWordWrap(true);
    QFont bold = verdict_->font();
    bold.setBold(true);
    verdict_->setFont(bold);
    check_ = new QPushButton(tr("Check (Enter)"), this);
    check_->setObjectName(QStringLiteral("exerciseCheck"));
    best_ = new QPushButton(tr("Show the best plan"), this);
    best_->setObjectName(QStringLiteral("exerciseBest"));
    auto *layout = new QGridLayout(this);
    layout->setContentsMargins(4, 0, 4, 4);
    layout->addWidget(prompt_, 0, 0);
    layout->addWidget(check_, 0, 1);
    layout->addWidget(best_, 0, 2);
    layout->addWidget(verdict_, 1, 0, 1, 3);
    layout->setColumnStretch(0, 1);
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
    connect(check_, &QPushButton::clicked, this, &ExercisePanel::check);
    connect(best_, &QPushButton::clicked, this, &ExercisePanel::showBestPlan);
    connect(&session_, &Session::paneConfigChanged, this, &ExercisePanel::answerChanged);
    hide();
}

void ExercisePanel::setExercise(const std::optional<lesson::Exercise> &exercise, std::shared_ptr<const Model> model) {
    exercise_ = exercise;
    model_ = std::move(model);
    grade_.reset();
    verdict_->clear();
    if (exercise_)
        prompt_->setText(tr("Exercise, budget %1: %2")
                             .arg(qs(exercise_->budgetWritten), qs(exercise_->prompt)));
    setVisible(exercise_.has_value());
}

QString ExercisePanel::verdict() const {
    return verdict_->text();
}

void ExercisePanel::answerChanged(int pane) {
    if (exercise_ && pane == 0 && grade_) {
        grade_.reset();
        verdict_->setText(tr("Changed: press Check (Enter) again."));
    }
}

std::optional<std::vector<int>> ExercisePanel::studentAnswer() {
    if (session_.paneCount() == 0 || session_.paneConfig(0).strategy != "checkpoints" ||
        session_.model()->layers() != model_->layers()) {
        verdict_->setText(tr("Pane 1 must be the chapter's checkpoints pane on its model: press Page Up and "
                             "Page Down to set the chapter up again."));
        return std::nullopt;
    }
    return session_.paneConfig(0).params.checkpoints.value_or(std::vector<int>{});
}

void ExercisePanel::check() {
    if (!exercise_)
        return;
    const auto answer = studentAnswer();
    if (!answer)
        return;
    try {
        grade_ = gradeExercise(*model_, exercise_->budget, *answer);
    } catch (const std::exception &e) {
        verdict_->setText(QString::fromUtf8(e.what()));
        return;
    }
    verdict_->setText(qs(verdictText(*model_, exercise_->budget, *grade_)));
    if (grade_->verdict == Verdict::OverBudget && session_.trackOf(0) >= 0)
        session_.player().jumpToPeak(session_.trackOf(0)); // the chart's cursor and marker at the answer's peak
}

void ExercisePanel::showBestPlan() {
    if (!exercise_)
        return;
    const auto answer = studentAnswer();
    if (!answer)
        return;
    if (!grade_)
        check();
    if (!grade_)
        return;
    PaneConfig best;
    best.strategy = "checkpoints";
    best.params.checkpoints = grade_->best.kept;
    if (!session_.addPane(best))
        return; // the session says why (four panes already)
    if (grade_->general) {
        PaneConfig general;
        general.strategy = "budget";
        (exercise_->budget.unit == planners::KeptSetUnit::Nodes ? general.params.budgetNodes
                                                                  : general.params.budgetBytes) =
            exercise_->budget.amount;
        session_.addPane(general);
    }
}

} // namespace remat::studio
