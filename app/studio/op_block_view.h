#pragma once
// The Blocks panel of an op-level model: its blocks in a strip, and the block
// the session has opened (double-click a block, again to close) drawn op by
// op for the right-most pane's run at the player's current op: which tensors
// the plan keeps into the backward pass, which it re-runs, which are in
// memory now (app/render/op_block_layout.h). Hidden for other models.
#include "core/op_plan.h"

#include <QWidget>

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

protected:
    void paintEvent(QPaintEvent *event) override;
    void mouseDoubleClickEvent(QMouseEvent *event) override;

private:
    void modelChanged();

    Session &session_;
    Player &player_;
    std::optional<OpGraph> graph_;
    bool presenting_ = false;
};

} // namespace remat::studio
