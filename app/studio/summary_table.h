#pragma once
// One row per pane with the simulator's counts: peak memory (nodes and bytes),
// forward evaluations, recomputations, compute overhead against store-all and
// the complexity classes: the seed notes' table for the current run.
#include "app/studio/pane_run.h"

#include <QTableWidget>

#include <memory>
#include <vector>

namespace remat::studio {

class SummaryTable : public QTableWidget {
    Q_OBJECT
public:
    enum Column { Strategy, Parameters, PeakNodes, PeakBytes, ForwardEvaluations, Recomputations, Overhead,
                  MemoryClass, ComputeClass, ColumnCount };

    explicit SummaryTable(QWidget *parent = nullptr);
    // A null run is a pane that could not be simulated (its error is shown in the pane).
    void setRuns(const std::vector<std::shared_ptr<const PaneRun>> &runs, const std::vector<QColor> &colors);

    QSize sizeHint() const override;
};

} // namespace remat::studio
