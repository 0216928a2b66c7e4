#pragma once
// One strategy pane: strategy and parameter controls on top, the schedule
// picture, and a line of narration saying what the current op does and why.
// The current pane (Session::currentPane) is framed in its colour.
#include "app/studio/pane_run.h"
#include "app/studio/schedule_view.h"

#include <QWidget>

#include <optional>

class QComboBox;
class QLabel;
class QLineEdit;
class QSpinBox;
class QToolButton;

namespace remat::studio {

class PaneWidget : public QWidget {
    Q_OBJECT
public:
    explicit PaneWidget(QWidget *parent = nullptr);

    void setConfig(const PaneConfig &config, int layers); // updates the controls, emits nothing
    void setRun(std::shared_ptr<const PaneRun> run);
    const std::shared_ptr<const PaneRun> &run() const { return run_; }
    void setError(const QString &message);
    void setBusy(const QString &message);
    // `time`: the timeline's own clock (render::streamTime) for a timed run's
    // host lane and narration of its two streams.
    void setStep(std::int64_t step, double time = 0);
    void setPalette(const render::Palette &palette, QColor seriesColor);
    void setRemovable(bool removable);
    // Presentation mode: no strategy and parameter row; three lines of
    // narration stay free at the larger text.
    void setPresenting(bool on);
    // Strategies that plan only chains are greyed out while the model is a DAG.
    void setGraphModel(bool graph);
    // Framed in the pane's colour while it is the session's current pane.
    void setCurrent(bool current);
    bool isCurrent() const { return current_; }

    ScheduleView *view() const { return view_; }
    QString narration() const;

signals:
    void configEdited(const remat::studio::PaneConfig &config);
    void removeRequested();
    void nodeClicked(remat::NodeId node);
    // A click anywhere in the pane, or focus moving into one of its controls.
    void selectRequested();

protected:
    void changeEvent(QEvent *event) override;
    void paintEvent(QPaintEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void updateParamControls();
    void emitConfig();

    std::shared_ptr<const PaneRun> run_;
    QComboBox *strategy_;
    QLabel *everyLabel_;
    QSpinBox *every_;
    QLabel *checkpointsLabel_;
    QLineEdit *checkpoints_;
    QLabel *slotsLabel_;
    QSpinBox *slots_;
    QLabel *budgetLabel_;
    QSpinBox *budget_;
    QLabel *heuristicLabel_;
    QComboBox *heuristic_; // dtr's eviction heuristic (core/planners/dtr_runtime.h)
    QWidget *controls_;
    QToolButton *remove_;
    QLabel *swatch_;
    QLabel *title_;
    ScheduleView *view_;
    QLabel *narration_;
    QLabel *position_;
    bool updating_ = false;
    int narrationLines_ = 3;                  // kept free under the picture
    std::optional<std::int64_t> budgetBytes_; // a byte budget (Plan for budget) instead of the nodes box
    QColor seriesColor_;
    bool current_ = false;
};

} // namespace remat::studio
