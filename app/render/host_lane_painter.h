#pragma once
// Paints a timed pane's host lane (app/render/host_lane_layout.h) at one
// moment: which activations sit on the host, the copies on the link as
// arrows moving between device and host, the two streams over time with the
// stalls hatched, and a caption saying what happens now. Everything is read
// off the simulator's Timeline and StepState. QtGui only: the studio and the
// GIF export share it.
#include "app/render/host_lane_layout.h"
#include "app/render/palette.h"

#include "core/timeline.h"

#include <QBrush>
#include <QImage>

#include <memory>

class QFontMetricsF;
class QPainter;

namespace remat::render {

// What a_i's host cell shows.
struct HostCell {
    enum class Kind : std::uint8_t {
        Empty,    // no host copy (on the device only, or not held)
        OnHost,   // a complete host copy (offloaded; or prefetched back and not yet read)
        ToHost,   // being copied to host (an offload whose copy has not ended)
        ToDevice, // being copied back to the device (a prefetch whose copy has not ended)
    };
    Kind kind = Kind::Empty;
    double progress = 0;        // of the copy, for ToHost and ToDevice
    std::int32_t transfer = -1; // Timeline::transfers() index, -1 none
};

class HostLanePainter {
public:
    explicit HostLanePainter(std::shared_ptr<const Timeline> timeline);

    // a_i's cell after `state` at `time` on the timeline's clock: from
    // StepState::placeOf and, for a copy, Timeline::transferProgress.
    static HostCell cellOf(const Timeline &timeline, const StepState &state, int i, double time);
    static QColor cellColour(HostCell::Kind kind, const Palette &palette);
    // The hatch of a stall (over palette.stall): the compute stream stands still. The legend shows it too.
    static QBrush stallBrush(const Palette &palette);
    // The red frame around the stall under way (2 px on whole pixels, its top row at the rect's top).
    static QRect stallFrame(const HostLaneLayout &layout, const Stall &stall);
    // The widest row name in `font`'s metrics (HostLaneLayout::make's gutterWidth).
    static double gutterWidth(const QFontMetricsF &metrics);

    // Paints with the painter's font (its height sized the layout).
    void paint(QPainter &painter, const HostLaneLayout &layout, const StepState &state, double time,
               const Palette &palette) const;

private:
    void paintStreams(QPainter &painter, const HostLaneLayout &layout, const Palette &palette) const;
    void paintCells(QPainter &painter, const HostLaneLayout &layout, const StepState &state, double time,
                    const Palette &palette) const;
    void paintNow(QPainter &painter, const HostLaneLayout &layout, double time, const Palette &palette) const;

    // The streams over time change only with the layout or the palette: painted once, blitted every frame.
    struct Cache {
        HostLaneLayout layout;
        Palette palette;
        qreal dpr = 0;
        QImage image;
    };
    std::shared_ptr<const Timeline> timeline_;
    std::vector<std::uint8_t> recomputes_; // by step: a forward node computed again
    mutable Cache cache_;
};

} // namespace remat::render
