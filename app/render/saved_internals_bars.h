#pragma once
// Where a layer's saved internals s_i are drawn in the schedule picture: a bar
// hanging below its forward node a_i, right of the a_i -> b_i arrow, as tall
// as its saved bytes against the largest layer's (at most the room between the
// rows). Filled while the layer holds them, an empty outline of the same size
// while it does not, so the size is readable before and after. The ring keeps
// its one meaning: what the plan keeps from the forward into the backward pass.
// A plain struct, so tests check the geometry without a window.
#include "app/render/schedule_layout.h"

#include <cstdint>

namespace remat::render {

struct SavedInternalsBars {
    static constexpr double kWidthPerPitch = 0.2;
    static constexpr double kMaxHeightPerPitch = 0.6;
    static constexpr double kMinHeight = 2; // a layer that saves anything gets a visible bar
    static constexpr double kMinPitch = 8;  // below it there is no room: the tooltip tells

    ScheduleLayout layout;
    std::int64_t largest = 0; // the largest savedBytes of any layer (0: nothing is drawn)

    static SavedInternalsBars make(const ScheduleLayout &layout, const Model &model);

    bool drawn() const { return largest > 0 && layout.pitch >= kMinPitch; }
    // Layer `forwardIndex`'s bar for `savedBytes` (an empty rect for 0 or when none are drawn).
    QRectF bar(int forwardIndex, std::int64_t savedBytes) const;
    // Where the size label goes, right of the bar up to the next column's
    // arrow; empty when a text of `textWidth` x `textHeight` does not fit there.
    QRectF label(const QRectF &bar, double textWidth, double textHeight) const;
};

} // namespace remat::render
