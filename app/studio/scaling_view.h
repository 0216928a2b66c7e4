#pragma once
// The scaling laws as a picture: peak memory and forward evaluations against n
// on log-log axes for every strategy that runs on a chain without parameters,
// from the simulator (n = 4 ... 4096), computed in a worker thread with
// progress and Cancel, with the fitted slopes printed (store-all 1 and 1,
// recompute-all 0 and 2, periodic 0.5 and 1, ...).
#include <QDialog>
#include <QFutureWatcher>
#include <QWidget>

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

class QLabel;
class QProgressBar;
class QPushButton;
class QTableWidget;
class QMenu;

namespace remat::studio {

struct ScalingSeries {
    std::string strategy;
    std::string memoryClass;
    std::string computeClass;
    std::vector<double> n;
    std::vector<double> peakBytes;
    std::vector<double> forwardEvaluations;
    double memorySlope = 0;  // fitted d log(peak) / d log(n)
    double computeSlope = 0; // fitted d log(forward evaluations) / d log(n)
    std::string stoppedAt;   // why the series ends early ("" when complete)
};

// n = first, 2 first, 4 first, ... <= last.
std::vector<int> doublings(int first, int last);

// Simulates each strategy on chains of every n (1 byte per node). A strategy
// that fails at some n (a limit, a planner that refuses) keeps the points
// before it. `progress(done, total)`; throws remat::Cancelled when
// `cancelled()` turns true.
std::vector<ScalingSeries> computeScaling(const std::vector<int> &ns,
                                          const std::function<void(int, int)> &progress = {},
                                          const std::function<bool()> &cancelled = {});

// Two log-log plots side by side: peak memory and forward evaluations vs n.
class ScalingChart : public QWidget {
    Q_OBJECT
public:
    explicit ScalingChart(QWidget *parent = nullptr);
    void setSeries(std::vector<ScalingSeries> series);
    const std::vector<ScalingSeries> &series() const { return series_; }
    QSize sizeHint() const override { return {900, 420}; }

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    std::vector<ScalingSeries> series_;
};

class ScalingDialog : public QDialog {
    Q_OBJECT
public:
    explicit ScalingDialog(QWidget *parent = nullptr, int lastN = 4096);
    ~ScalingDialog() override;
    bool isComputing() const { return watcher_.isRunning(); }
    ScalingChart *chart() const { return chart_; }
    QTableWidget *slopes() const { return table_; }

public slots:
    void reject() override; // Cancel while computing, else close

signals:
    void computed(bool ok);

private:
    void onFinished();

    ScalingChart *chart_;
    QTableWidget *table_;
    QLabel *status_;
    QProgressBar *progress_;
    QPushButton *cancel_;
    QFutureWatcher<std::vector<ScalingSeries>> watcher_;
    std::shared_ptr<std::atomic<bool>> stop_;
    std::shared_ptr<std::atomic<int>> done_;
    std::shared_ptr<std::atomic<int>> total_;
};

// Adds "Scaling laws..." to `menu`.
void addScalingAction(QMenu *menu, QWidget *parent);

} // namespace remat::studio
