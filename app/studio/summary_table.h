#pragma once
// One row per pane with the simulator's counts: peak memory (nodes and bytes),
// forward evaluations, recomputations, compute overhead against store-all and
// the complexity classes: the seed notes' table for the current run. After
// Measure, measured columns: the peak predicted for the real network next to
// the peak measured on it, the device-level growth, seconds per step and the
// gradient check. A disagreement is an error cell (red), never hidden.
#include "app/studio/measure_run.h"
#include "app/studio/pane_run.h"

#include <QStringList>

#include <QTableWidget>

#include <memory>
#include <vector>

namespace remat::studio {

class SummaryTable : public QTableWidget {
    Q_OBJECT
public:
    enum Column {
        Strategy,
        Parameters,
        PeakNodes,
        PeakBytes,
        ForwardEvaluations,
        Recomputations,
        Overhead,
        MemoryClass,
        ComputeClass,
        HostPeak, // with a link (timed runs): host memory, stalls and the step's time on two streams
        StallTime,
        Makespan,
        NetworkPredicted,
        MeasuredPeak,
        DevicePeak,
        SecondsPerStep,
        GradientCheck,
        ColumnCount
    };
    static constexpr int kFirstMeasured = NetworkPredicted;
    // The Parameters column grows to its text up to this many average
    // characters; longer lists are elided, the tooltip has them whole.
    static constexpr int kParametersChars = 36;

    explicit SummaryTable(QWidget *parent = nullptr);
    // A null run is a pane that could not be simulated (its error is shown in the pane).
    // Rows keep their measurement while their run is the one measured.
    void setRuns(const std::vector<std::shared_ptr<const PaneRun>> &runs, const std::vector<QColor> &colors);

    // `runs[i]` is the run pane i showed when report.panes[i] was measured.
    // Shows the measured columns; returns the problems, one line each (empty
    // when every peak is as predicted and every gradient equals store-all's).
    QStringList setMeasurements(const MeasureReport &report, const std::vector<std::shared_ptr<const PaneRun>> &runs);
    bool hasMeasurements() const { return !measured_.empty(); }
    // Rows whose measured cells are errors now.
    int errorRows() const;

    QSize sizeHint() const override;

private:
    struct Measured {
        std::shared_ptr<const PaneRun> run;
        MeasuredPane pane;
        QString where; // device and network, for tooltips
    };
    void showMeasured(int row);

    std::vector<std::shared_ptr<const PaneRun>> runs_;
    std::vector<Measured> measured_; // by row; a null run: nothing measured
};

// A pane's problems in words ("measured peak 5 MiB differs from the predicted
// 4 MiB", "gradients differ from store-all's", its error); empty when none.
QStringList measureProblems(const MeasuredPane &pane);

} // namespace remat::studio
