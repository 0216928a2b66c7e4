#pragma once
// The clicker's B (or .): the whole window goes black, as a slide show's
// blank screen, until B again (or another lesson key) brings it back.
#include <QWidget>

namespace remat::studio {

class ScreenBlank : public QWidget {
    Q_OBJECT
public:
    // Covers `window` (its menus too) and follows its size.
    explicit ScreenBlank(QWidget *window);
    void setBlank(bool on);
    bool isBlank() const { return isVisible(); }

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;
    void paintEvent(QPaintEvent *event) override;
};

} // namespace remat::studio
