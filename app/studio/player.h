#pragma once
// One clock for every pane. The clock moves over "events": the moments at
// which some pane finishes an op (by cost) or every op index (by op). Each
// pane shows the step it has reached at the current time, so panes stay
// synchronized and a strategy that recomputes more visibly finishes later.
#include "app/render/time_axis.h"

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

#include <memory>
#include <vector>

namespace remat::studio {

class Player : public QObject {
    Q_OBJECT
public:
    struct Track {
        std::shared_ptr<const Timeline> timeline;
        std::int64_t peakStep = -1; // from the simulator's Summary
    };

    explicit Player(QObject *parent = nullptr);

    // Keeps the current time (as far as the new tracks allow).
    void setTracks(std::vector<Track> tracks);
    void setAxis(render::TimeAxis axis);
    render::TimeAxis axis() const { return axis_; }
    int trackCount() const { return static_cast<int>(tracks_.size()); }

    int position() const { return position_; }
    int lastPosition() const { return static_cast<int>(events_.size()) - 1; }
    double time() const { return events_[static_cast<std::size_t>(position_)]; }
    double endTime() const { return events_.back(); }
    // The step pane `track` shows now (-1: before its first op).
    std::int64_t stepOf(int track) const;
    // The position at which `time` has been reached.
    int positionAtTime(double time) const;

    bool isPlaying() const { return timer_.isActive(); }
    double speed() const { return speed_; } // time units (forward ops) per second
    void setSpeed(double opsPerSecond);

public slots:
    void play();
    void pause();
    void togglePlay();
    void stepForward();
    void stepBack();
    void seek(int position);
    void seekTime(double time);
    void jumpToStart() { seek(0); }
    void jumpToEnd() { seek(lastPosition()); }
    // Where track `track` reaches its peak memory.
    void jumpToPeak(int track);
    // Each press of P visits the next pane's peak.
    void jumpToNextPeak();

signals:
    void positionChanged(int position);
    void playingChanged(bool playing);
    void rangeChanged(int lastPosition);
    void peakVisited(int track);

private:
    void tick();
    void rebuildEvents();

    std::vector<Track> tracks_;
    render::TimeAxis axis_ = render::TimeAxis::Cost;
    std::vector<double> events_{0.0};
    int position_ = 0;
    int nextPeakTrack_ = 0;
    double speed_ = 4;
    double playTime_ = 0;
    double opTime_ = 1; // one forward op on the clock (its seconds on timed panes)
    QTimer timer_;
    QElapsedTimer clock_;
};

} // namespace remat::studio
