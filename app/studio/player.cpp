#include "app/studio/player.h"

#include <algorithm>

namespace remat::studio {

using render::TimeAxis;

Player::Player(QObject *parent) : QObject(parent) {
    timer_.setInterval(15); // ~60 frames per second; the clock, not the timer, sets the pace
    timer_.setTimerType(Qt::PreciseTimer);
    connect(&timer_, &QTimer::timeout, this, &Player::tick);
}

void Player::setTracks(std::vector<Track> tracks) {
    const double oldTime = time();
    tracks_ = std::move(tracks);
    nextPeakTrack_ = 0;
    rebuildEvents();
    position_ = positionAtTime(oldTime);
    emit rangeChanged(lastPosition());
    emit positionChanged(position_);
}

void Player::setAxis(TimeAxis axis) {
    if (axis == axis_)
        return;
    // Keep what the first pane shows: switch to the time at which it reaches the same step.
    const std::int64_t step = tracks_.empty() ? -1 : stepOf(0);
    axis_ = axis;
    rebuildEvents();
    position_ = tracks_.empty() ? 0 : positionAtTime(render::opShownTime(*tracks_[0].timeline, step, axis_));
    emit rangeChanged(lastPosition());
    emit positionChanged(position_);
}

void Player::rebuildEvents() {
    // The moments some pane changes (render::timelineEvents, the GIF export's
    // frames too): op ends, and on timed panes the starts of ops and transfers
    // and a grid that moves the link's arrows.
    std::vector<const Timeline *> timelines;
    for (const Track &t : tracks_)
        timelines.push_back(t.timeline.get());
    events_ = render::timelineEvents(timelines, axis_);
    // The speed is in forward ops per second whatever the clock counts in (seconds when timed).
    opTime_ = 1;
    for (const Track &t : tracks_)
        if (t.timeline->timed())
            opTime_ = render::forwardOpTime(*t.timeline, axis_);
}

std::int64_t Player::stepOf(int track) const {
    return render::stepAtTime(*tracks_[static_cast<std::size_t>(track)].timeline, time(), axis_);
}

int Player::positionAtTime(double t) const {
    const auto it = std::upper_bound(events_.begin(), events_.end(), t);
    return std::max(0, static_cast<int>(it - events_.begin()) - 1);
}

void Player::setSpeed(double opsPerSecond) {
    speed_ = std::clamp(opsPerSecond, 0.1, 100000.0);
}

void Player::seek(int position) {
    position = std::clamp(position, 0, lastPosition());
    playTime_ = events_[static_cast<std::size_t>(position)];
    if (position == position_)
        return;
    position_ = position;
    emit positionChanged(position_);
}

void Player::seekTime(double t) {
    seek(positionAtTime(t));
}

void Player::stepForward() {
    pause();
    seek(position_ + 1);
}

void Player::stepBack() {
    pause();
    seek(position_ - 1);
}

void Player::jumpToPeak(int track) {
    if (track < 0 || track >= trackCount())
        return;
    pause();
    const Track &t = tracks_[static_cast<std::size_t>(track)];
    seekTime(render::opShownTime(*t.timeline, t.peakStep, axis_));
    emit peakVisited(track);
}

void Player::jumpToNextPeak() {
    if (tracks_.empty())
        return;
    const int track = nextPeakTrack_ % trackCount();
    nextPeakTrack_ = (track + 1) % trackCount();
    jumpToPeak(track);
}

void Player::play() {
    if (isPlaying())
        return;
    if (position_ >= lastPosition())
        seek(0); // play again from the start
    playTime_ = time();
    clock_.start();
    timer_.start();
    emit playingChanged(true);
}

void Player::pause() {
    if (!isPlaying())
        return;
    timer_.stop();
    emit playingChanged(false);
}

void Player::togglePlay() {
    if (isPlaying())
        pause();
    else
        play();
}

void Player::tick() {
    playTime_ += clock_.restart() / 1000.0 * speed_ * opTime_;
    const int target = positionAtTime(playTime_);
    if (target > position_) {
        position_ = target;
        emit positionChanged(position_);
    }
    if (position_ >= lastPosition())
        pause();
}

} // namespace remat::studio
