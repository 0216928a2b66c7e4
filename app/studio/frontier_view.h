#pragma once
// Tools > Trade-off curve: the least compute for every peak memory of the
// opened model (core/frontier.h), with the named strategies as points on the
// same axes. It answers "how much compute does each GiB cost me". Computed off
// the GUI thread with progress and Cancel; exported as PNG and CSV. Beside it,
// on their own axes, the session's measured points from the framework race
// (Add measured points..., core/race_points.h), when there are any.
#include "core/frontier.h"
#include "core/race_points.h"

#include <QDialog>
#include <QFutureWatcher>
#include <QWidget>

#include <atomic>
#include <memory>
#include <optional>

class QLabel;
class QMenu;
class QProgressBar;
class QPushButton;
class QSplitter;

namespace remat::studio {

class Session;

// The curve as a staircase (peak on x, cost on y) and the named points, with
// their labels. paint() serves the screen and the PNG export alike.
class FrontierChart : public QWidget {
public:
    explicit FrontierChart(QWidget *parent = nullptr);
    void setFrontier(Frontier frontier, bool sizesInNodes, std::string costUnit);
    const std::optional<Frontier> &frontier() const { return frontier_; }
    void paint(QPainter &painter, const QRectF &rect) const;

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    std::optional<Frontier> frontier_;
    bool sizesInNodes_ = false;
    std::string costUnit_;
};

// The race's measured points (app/render/measured_points_painter.h) on their
// own axes, and a line below naming the file and what the race did not run.
class MeasuredPointsChart : public QWidget {
public:
    explicit MeasuredPointsChart(QWidget *parent = nullptr);
    void setPoints(std::shared_ptr<const RaceResult> points);
    const std::shared_ptr<const RaceResult> &points() const { return points_; }
    void paint(QPainter &painter, const QRectF &rect) const;

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    std::shared_ptr<const RaceResult> points_;
};

// The curve of a model planned off the GUI thread, with a status line, a
// progress bar and Cancel: the dialog's body, and a lesson's curve chapter.
class FrontierPanel : public QWidget {
    Q_OBJECT
public:
    explicit FrontierPanel(std::shared_ptr<const Model> model, QWidget *parent = nullptr);
    ~FrontierPanel() override; // stops the planner and waits for it
    bool isComputing() const { return watcher_.isRunning(); }
    FrontierChart *chart() const { return chart_; }
    QString statusText() const;
    void setStatus(const QString &text);
    void cancel(); // while computing: the planner stops, computed(false) follows

signals:
    void computed(bool ok);

private:
    void onFinished();

    std::shared_ptr<const Model> model_;
    FrontierChart *chart_;
    QLabel *status_;
    QProgressBar *progress_;
    // QtConcurrent would wrap our exceptions: the worker returns what happened.
    struct Outcome {
        std::optional<Frontier> frontier;
        bool cancelled = false;
        QString error;
    };
    QFutureWatcher<Outcome> watcher_;
    std::shared_ptr<std::atomic<bool>> stop_;
    std::shared_ptr<std::atomic<int>> done_; // permille
};

class FrontierDialog : public QDialog {
    Q_OBJECT
public:
    // With a session: its measured points beside the curve, following it
    // (Session::measuredPointsChanged); hidden while it has none.
    FrontierDialog(std::shared_ptr<const Model> model, const QString &modelName, QWidget *parent = nullptr,
                   Session *session = nullptr);
    bool isComputing() const { return panel_->isComputing(); }
    FrontierChart *chart() const { return panel_->chart(); }
    MeasuredPointsChart *measuredChart() const { return measured_; } // null without a session
    QString measuredText() const;                                    // the line below the measured points
    QString statusText() const { return panel_->statusText(); }
    // Write-then-rename (QSaveFile): a failed export leaves an old file intact.
    // Return false with the reason in the status line.
    bool exportPng(const QString &path, QSize size = {1200, 800});
    bool exportCsv(const QString &path);

public slots:
    void reject() override; // Cancel while computing, else close

signals:
    void computed(bool ok);

private:
    void showMeasuredPoints();

    FrontierPanel *panel_;
    Session *session_ = nullptr;
    QSplitter *splitter_ = nullptr;
    QWidget *measuredBox_ = nullptr;
    MeasuredPointsChart *measured_ = nullptr;
    QLabel *measuredText_ = nullptr;
    QPushButton *close_;
    QPushButton *png_;
    QPushButton *csv_;
};

// Adds the "Trade-off curve" submenu to `menu`: "Show curve..." (Ctrl+T), a
// dialog (a child of `parent`) for the session's model as it is when the user
// asks; "Add measured points..." (a race JSON into the session, then the
// dialog if none is open); "Clear measured points".
void addFrontierAction(QMenu *menu, Session &session, QWidget *parent);

// Reads `path` into the session's measured points. When it does not read: a
// warning (a child of `parent`, object name "measuredPointsError", not
// waited for) naming the file, the bad value and what is allowed; false.
bool addMeasuredPoints(Session &session, const QString &path, QWidget *parent);

} // namespace remat::studio
