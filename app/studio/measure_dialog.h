#pragma once
// Measure: the panes' schedules run on the real execution core (the CPU
// backend, or CUDA when built and a device answers; otherwise the dialog says
// why not) in a worker thread, with width/batch/repeat settings, a progress
// bar and Cancel (which stops inside a strategy, between ops). The results go
// to the main window: measured columns in the summary table (a mismatch is a
// red cell and a status bar message, never hidden) and the measured trace
// dashed over the memory chart. Gradients are checked against store-all.
#include "app/studio/measure_run.h"

#include <QDialog>
#include <QFutureWatcher>

#include <atomic>
#include <memory>
#include <vector>

class QComboBox;
class QLabel;
class QMenu;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace remat::studio {

class MemoryChartView;
class Session;
class SummaryTable;
struct PaneRun;

class MeasureDialog : public QDialog {
    Q_OBJECT
public:
    // Measures `configs` on chains of `layers` layers.
    MeasureDialog(std::vector<PaneConfig> configs, int layers, QWidget *parent = nullptr);
    ~MeasureDialog() override;
    // The model the panes show (null: an abstract chain). When the executor
    // runs it (the transformer example), that model is measured; otherwise the
    // tanh MLP of the same depth, reported as a different network.
    // The network line then says which one runs; the width and batch (the
    // tanh MLP's) are disabled when the model itself is run.
    void setPaneModel(std::shared_ptr<const Model> model);

    bool start(); // as the Measure button
    bool isRunning() const { return watcher_.isRunning(); }
    QString statusText() const;
    // Test hook: the settings the next start() uses are passed through this
    // first (a fake backend that miscounts, fewer repeats).
    void setSettingsHook(std::function<void(MeasureSettings &)> hook) { settingsHook_ = std::move(hook); }

public slots:
    void reject() override; // Cancel while measuring, else close

signals:
    // ok: a report came back (it may hold mismatches); false: cancelled or failed.
    void measured(bool ok);
    void reportReady(std::shared_ptr<const remat::studio::MeasureReport> report);

private:
    struct Outcome {
        std::optional<MeasureReport> report;
        bool cancelled = false;
        QString error;
    };
    void onFinished();
    void showReport(const MeasureReport &report);
    std::function<void(MeasureSettings &)> settingsHook_;

    std::vector<PaneConfig> configs_;
    int layers_;
    std::shared_ptr<const Model> paneModel_;
    QComboBox *backend_;
    QLabel *network_;
    QSpinBox *width_;
    QSpinBox *batch_;
    QSpinBox *repeats_;
    QSpinBox *threads_;
    QLabel *status_;
    QProgressBar *progress_;
    QPushButton *measure_;
    QFutureWatcher<Outcome> watcher_;
    std::shared_ptr<std::atomic<bool>> stop_;
    std::shared_ptr<std::atomic<int>> done_; // permille of the run's ops
    QPushButton *close_;                     // "Cancel" while measuring, "Close" otherwise
};

// Puts a report beside the prediction: the summary table's measured columns,
// the chart's measured overlay, and a line in the session's status (an error
// when any pane disagrees). `runs` are the runs the panes showed when
// measuring started.
void showMeasurement(Session &session, SummaryTable &table, MemoryChartView &chart, const MeasureReport &report,
                     const std::vector<std::shared_ptr<const PaneRun>> &runs);

// Adds "Measure on the execution core..." to `menu` (a MeasureDialog for the
// session's panes, a child of the chart's window, whose results go to `table`
// and `chart`) and "Overlay measured memory".
void addMeasureAction(QMenu *menu, Session &session, SummaryTable &table, MemoryChartView &chart);

} // namespace remat::studio
