#pragma once
// Measure: the panes' schedules run on the real execution core (the CPU
// backend, or CUDA when built and a device answers; otherwise the dialog says
// why not) in a worker thread, with width/batch/repeat settings, a progress bar and
// Cancel. Measured peak bytes sit beside the predicted ones; a mismatch is
// shown as an error, never hidden. Gradients are checked against store-all.
#include "app/studio/measure_run.h"

#include <QDialog>
#include <QFutureWatcher>

#include <atomic>
#include <memory>

class QComboBox;
class QLabel;
class QMenu;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace remat::studio {

class MainWindow;

class MeasureDialog : public QDialog {
    Q_OBJECT
public:
    enum Column { Strategy, Predicted, Measured, DevicePeak, SecondsPerStep, GradientCheck, ColumnCount };

    // Measures `configs` on chains of `layers` layers.
    MeasureDialog(std::vector<PaneConfig> configs, int layers, QWidget *parent = nullptr);
    ~MeasureDialog() override;

    bool start(); // as the Measure button
    bool isRunning() const { return watcher_.isRunning(); }
    QTableWidget *results() const { return table_; }
    QString statusText() const;

public slots:
    void reject() override; // Cancel while measuring, else close

signals:
    void measured(bool ok);

private:
    struct Outcome {
        std::optional<MeasureReport> report;
        bool cancelled = false;
        QString error;
    };
    void onFinished();
    void showReport(const MeasureReport &report);

    std::vector<PaneConfig> configs_;
    int layers_;
    QComboBox *backend_;
    QSpinBox *width_;
    QSpinBox *batch_;
    QSpinBox *repeats_;
    QTableWidget *table_;
    QLabel *status_;
    QProgressBar *progress_;
    QPushButton *measure_;
    QFutureWatcher<Outcome> watcher_;
    std::shared_ptr<std::atomic<bool>> stop_;
    std::shared_ptr<std::atomic<int>> done_;
};

// Adds "Measure on the execution core..." to `menu`: a MeasureDialog for the window's panes.
void addMeasureAction(QMenu *menu, MainWindow &window);

} // namespace remat::studio
