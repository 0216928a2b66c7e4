#include "app/studio/player_bar.h"

#include "app/render/time_axis.h"
#include "app/studio/player.h"
#include "app/studio/session.h"
#include "app/studio/studio_look.h"
#include "core/units.h"

#include <QApplication>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QSlider>
#include <QToolButton>

namespace remat::studio {

namespace {

int clockWidth(const QLabel *clock) {
    return clock->fontMetrics().horizontalAdvance(QStringLiteral("t = 0000.0 / 0000.0 GFLOP"));
}

} // namespace

PlayerBar::PlayerBar(Session &session, QWidget *parent) : QWidget(parent), session_(session) {
    Player *player = &session.player();
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 2, 0, 2);
    auto button = [&](QStyle::StandardPixmap icon, const QString &tip, auto slot) {
        auto *b = new QToolButton(this);
        b->setProperty("playerIcon", static_cast<int>(icon));
        b->setToolTip(tip);
        b->setFocusPolicy(Qt::NoFocus);
        b->setAutoRaise(true);
        b->setIconSize(QSize(20, 20));
        connect(b, &QToolButton::clicked, player, slot);
        layout->addWidget(b);
        return b;
    };
    button(QStyle::SP_MediaSkipBackward, tr("Jump to start (Home)"), &Player::jumpToStart);
    button(QStyle::SP_MediaSeekBackward, tr("Step back (\u2190)"), &Player::stepBack);
    playButton_ = button(QStyle::SP_MediaPlay, tr("Play (Space)"), &Player::togglePlay);
    playButton_->setObjectName("play");
    button(QStyle::SP_MediaSeekForward, tr("Step forward (\u2192)"), &Player::stepForward);
    button(QStyle::SP_MediaSkipForward, tr("Jump to end (End)"), &Player::jumpToEnd);
    auto *peak = new QToolButton(this);
    peak->setText(tr("Peak"));
    peak->setToolTip(tr("Jump to the peak memory of each pane in turn (P)"));
    peak->setFocusPolicy(Qt::NoFocus);
    connect(peak, &QToolButton::clicked, player, &Player::jumpToNextPeak);
    layout->addWidget(peak);

    slider_ = new QSlider(Qt::Horizontal, this);
    slider_->setObjectName("scrub");
    slider_->setFocusPolicy(Qt::NoFocus);
    slider_->setToolTip(tr("Scrub through the schedules"));
    connect(slider_, &QSlider::valueChanged, player, [player](int v) {
        if (v != player->position()) {
            player->pause();
            player->seek(v);
        }
    });
    layout->addWidget(slider_, 1);
    clock_ = new QLabel(this);
    clock_->setMinimumWidth(clockWidth(clock_));
    layout->addWidget(clock_);
    layout->addWidget(new QLabel(tr("Speed"), this));
    speed_ = new QDoubleSpinBox(this);
    speed_->setObjectName("speed");
    speed_->setRange(0.5, 10000);
    speed_->setDecimals(1);
    speed_->setSuffix(tr(" ops/s"));
    speed_->setValue(session.speed());
    speed_->setToolTip(tr("Playback speed in forward ops per second (a backward op takes 2 when synced by time)"));
    connect(speed_, &QDoubleSpinBox::valueChanged, &session, &Session::setSpeed);
    connect(&session, &Session::speedChanged, speed_, &QDoubleSpinBox::setValue);
    layout->addWidget(speed_);

    connect(player, &Player::positionChanged, this, &PlayerBar::showPosition);
    connect(player, &Player::rangeChanged, slider_, [this](int last) { slider_->setRange(0, last); });
    connect(player, &Player::playingChanged, this, &PlayerBar::showPlaying);
    refreshIcons();
}

void PlayerBar::refreshIcons() {
    for (QToolButton *b : findChildren<QToolButton *>())
        if (const QVariant kind = b->property("playerIcon"); kind.isValid())
            b->setIcon(playerIcon(static_cast<QStyle::StandardPixmap>(kind.toInt()),
                                  QApplication::palette().color(QPalette::ButtonText)));
}

void PlayerBar::changeEvent(QEvent *event) {
    if (event->type() == QEvent::FontChange) // the clock keeps room for its text at the new size
        clock_->setMinimumWidth(clockWidth(clock_));
    QWidget::changeEvent(event);
}

void PlayerBar::showPlaying(bool playing) {
    const QStyle::StandardPixmap icon = playing ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay;
    playButton_->setProperty("playerIcon", static_cast<int>(icon));
    playButton_->setIcon(playerIcon(icon, QApplication::palette().color(QPalette::ButtonText)));
    playButton_->setToolTip(playing ? tr("Pause (Space)") : tr("Play (Space)"));
}

void PlayerBar::showPosition() {
    const Player &player = session_.player();
    slider_->blockSignals(true);
    slider_->setValue(player.position());
    slider_->blockSignals(false);
    // "t = 2.005M / 4.01M GFLOP": readable at any size, in the model's cost unit.
    const Timeline *timed = nullptr; // timed panes count seconds (a link is set)
    for (int i = 0; i < session_.paneCount(); ++i)
        if (const auto &run = session_.run(i); run && run->timeline->timed())
            timed = run->timeline.get();
    const Model *model = session_.model().get();
    const auto timeText = [&player, timed, model](double t, bool withUnit) {
        if (timed)
            return QString::fromStdString(render::timeText(t, player.axis(), *timed, withUnit));
        return QString::fromStdString(model ? render::timeText(t, player.axis(), *model, withUnit) : formatCost(t));
    };
    clock_->setText(tr("t = %1 / %2").arg(timeText(player.time(), false), timeText(player.endTime(), true)));
}

} // namespace remat::studio
