#pragma once
// The bar under the panes: play/pause, step and jump buttons, Peak, the scrub
// slider, the clock ("t = 2.005M / 4.01M GFLOP", in the model's cost unit or
// seconds on a link) and the speed. It drives the session's player and shows
// where it is; the icons are drawn in the palette's text colour.
#include <QWidget>

class QDoubleSpinBox;
class QLabel;
class QSlider;
class QToolButton;

namespace remat::studio {

class Session;

class PlayerBar : public QWidget {
    Q_OBJECT
public:
    PlayerBar(Session &session, QWidget *parent);
    // Redraws the icons in the current palette's text colour.
    void refreshIcons();

protected:
    void changeEvent(QEvent *event) override;

private:
    void showPosition();
    void showPlaying(bool playing);

    Session &session_;
    QToolButton *playButton_;
    QSlider *slider_;
    QLabel *clock_;
    QDoubleSpinBox *speed_;
};

} // namespace remat::studio
