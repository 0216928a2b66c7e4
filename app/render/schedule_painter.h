#pragma once
// Paints one pane's schedule picture at one step: forward row, backward row,
// dependency arrows (those the current op reads are highlighted), node states,
// checkpoint rings and recompute counters. QtGui only: the screen and the GIF
// export share it.
#include "app/render/node_appearance.h"
#include "app/render/palette.h"
#include "app/render/schedule_layout.h"

#include <QRectF>

#include <memory>
#include <optional>

class QPainter;

namespace remat::render {

class SchedulePainter {
public:
    explicit SchedulePainter(std::shared_ptr<const Timeline> timeline);

    const Timeline &timeline() const { return *timeline_; }
    const std::vector<std::uint8_t> &checkpoints() const { return checkpoints_; }
    NodeAppearance appearance(const StepState &state, NodeId node) const {
        return appearanceOf(*timeline_, checkpoints_, state, node);
    }

    // `hover`: a node to outline (the one under the mouse).
    void paint(QPainter &painter, const ScheduleLayout &layout, const StepState &state, const Palette &palette,
               std::optional<NodeId> hover = std::nullopt) const;

    // The legend of node states, flowed into `width`; returns the height used.
    static double paintLegend(QPainter &painter, const QRectF &rect, const Palette &palette);
    static QColor fillColor(NodeFill fill, const Palette &palette);

private:
    void paintArrows(QPainter &painter, const ScheduleLayout &layout, const StepState &state,
                     const Palette &palette) const;

    std::shared_ptr<const Timeline> timeline_;
    std::vector<std::uint8_t> checkpoints_;
};

} // namespace remat::render
