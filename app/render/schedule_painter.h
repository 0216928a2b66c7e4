#pragma once
// Paints one pane's schedule picture at one step: forward row, backward row,
// dependency arrows (those the current op reads are highlighted), node states,
// checkpoint rings, recompute counters and saved-internals bars. QtGui only: the screen and the GIF
// export share it.
#include "app/render/node_appearance.h"
#include "app/render/palette.h"
#include "app/render/schedule_layout.h"

#include <QImage>
#include <QRectF>

#include <memory>
#include <optional>
#include <unordered_map>

class QFont;
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
    // `compact`: short names, for a line under every exported frame;
    // `savedInternals`: also the saved-internals bar (models whose layers save some);
    // `offload`: also "on host" and "in flight" (timed panes, which have a host lane).
    static double paintLegend(QPainter &painter, const QRectF &rect, const Palette &palette, bool compact = false,
                              bool savedInternals = false, bool offload = false);
    // The height paintLegend would take in `width` with `font`.
    static double legendHeight(const QFont &font, double width, bool compact, bool savedInternals = false,
                               bool offload = false);
    static QColor fillColor(NodeFill fill, const Palette &palette);

private:
    // What stays the same from step to step (arrows, labels) is painted once
    // per layout into an image, and each node look once into a sprite; a
    // frame then is mostly blits (60 fps at 3 x 512 nodes).
    struct Cache {
        ScheduleLayout layout;
        Palette palette;
        qreal dpr = 0;
        QImage staticLayer;
        std::unordered_map<std::uint64_t, QImage> sprites;
    };

    void paintArrows(QPainter &painter, const ScheduleLayout &layout, const Palette &palette,
                     std::optional<NodeId> onlyReader) const;
    void paintLabels(QPainter &painter, const ScheduleLayout &layout, const Palette &palette) const;
    static void paintNode(QPainter &painter, QPointF center, const NodeAppearance &a, bool forward,
                          const ScheduleLayout &layout, const Palette &palette);
    void paintSavedInternals(QPainter &painter, const ScheduleLayout &layout, const StepState &state,
                             const Palette &palette) const;
    void prepareCache(const ScheduleLayout &layout, const Palette &palette, qreal dpr) const;
    const QImage &sprite(const NodeAppearance &a, bool forward, const ScheduleLayout &layout,
                         const Palette &palette) const;

    std::shared_ptr<const Timeline> timeline_;
    std::vector<std::uint8_t> checkpoints_;
    mutable Cache cache_;
};

} // namespace remat::render
