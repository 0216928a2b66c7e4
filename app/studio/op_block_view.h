#pragma once
// The Blocks panel of an op-level model: a title naming the pane it shows,
// its blocks in a strip, and the block the session has opened (double-click
// a block, again to close) drawn op by op for the session's current pane's
// run at the player's current op: which tensors the plan keeps into the
// backward pass, which it re-runs, which are in memory now
// (app/render/op_block_layout.h). Hidden for other models.
#include "core/op_plan.h"
#include "core/timeline.h"

#include <QWidget>

#include <memory>
#include <optional>

namespace remat::studio {

class Player;
class Session;

class OpBlockView : public QWidget {
    Q_OBJECT
public:
    OpBlockView(Session &session, Player &player, QWidget *parent = nullptr);
    QSize sizeHint() const override { return {800, minimumHeight()}; }
    // Presentation mode leaves the stage to the panes and the chart (as the
    // summary table): the panel is hidden while presenting.
    void setPresenting(bool on);

    // What the panel shows: the current pane's timeline (null while that pane
    // has no run of this model) and the title naming that pane.
    std::shared_ptr<const Timeline> shownTimeline() const;
    QString title() const;

protected:
    void paintEvent(QPaintEvent *event) override;
    void mouseDoubleClickEvent(QMouseEvent *event) override;
    void changeEvent(QEvent *event) override;

private:
    void modelChanged();
    void paneChanged();
    void fitHeight();
    int titleHeight() const;
    QRectF blocksRect() const; // below the title

    Session &session_;
    Player &player_;
    std::optional<OpGraph> graph_;
    bool presenting_ = false;
};

} // namespace remat::studio
