#pragma once
// The legend of node states above the panes (painted by render::SchedulePainter).
#include "app/render/palette.h"

#include <QWidget>

namespace remat::studio {

class LegendWidget : public QWidget {
    Q_OBJECT
public:
    explicit LegendWidget(QWidget *parent = nullptr);
    void setPalette(const render::Palette &palette);
    // Adds the saved-internals bar to the legend (the opened model's layers save some).
    void setShowsSavedInternals(bool shows);
    // Adds "on host" and "in flight" (a link is set: the panes have host lanes).
    void setShowsOffload(bool shows);
    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override;
    // Short texts ("checkpoint", "recomputed (n×)") where the full ones need a second line.
    bool isCompactAt(int width) const;
    QSize sizeHint() const override { return {800, heightForWidth(800)}; }

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    render::Palette palette_ = render::Palette::light();
    bool showsSavedInternals_ = false;
    bool showsOffload_ = false;
};

} // namespace remat::studio
