#pragma once
// The studio's view as one picture, for GIF frames and PNG snapshots: the
// panes side by side (or one pane) with their titles and a status line, and
// the shared memory chart with its playhead, under an optional caption.
// Everything is drawn by the render library's painters (SchedulePainter,
// MemoryChartPainter), the same code that paints the screen; this class only
// arranges their rectangles.
#include "app/export/export_pane.h"
#include "app/render/host_lane_painter.h"
#include "app/render/memory_chart_painter.h"
#include "app/render/schedule_painter.h"

#include <QImage>
#include <QSize>

#include <algorithm>
#include <memory>
#include <vector>

class QPainter;

namespace remat::exporting {

class TimelinePicture {
public:
    struct Options {
        QSize size{960, 540};
        render::TimeAxis axis = render::TimeAxis::Cost;
        render::Palette palette = render::Palette::light();
        bool paneOnly = false;    // the first pane alone, without the memory chart
        QString caption;          // a line on top of every frame, the title card's title; empty: none
        QString description;      // the title card's sentences under the title (a lesson chapter's caption)
        bool stackByKind = false; // the chart fills the first pane's memory by kind
    };

    // The size for a width when no height is given: 16:9 for the side-by-side
    // view with its chart, 2:1 for one pane.
    static QSize defaultSize(int width, bool paneOnly) {
        return {width, std::max(90, paneOnly ? width / 2 : width * 9 / 16)};
    }

    // Throws remat::InvalidArgument for no panes, more than four, or a size
    // too small to draw in (under 160 x 90).
    TimelinePicture(std::vector<ExportPane> panes, Options options);

    const std::vector<ExportPane> &panes() const { return panes_; }
    const Options &options() const { return options_; }
    // How many panes are drawn (1 when paneOnly).
    int shownPanes() const { return options_.paneOnly ? 1 : static_cast<int>(panes_.size()); }
    // Pane `index`'s colour in the palette: the studio pane's, else its place here.
    int paneColourIndex(int index) const {
        const int pane = panes_[static_cast<std::size_t>(index)].pane;
        return pane >= 0 ? pane : index;
    }
    double endTime() const;
    // The step pane `index` shows at `time` (the player's rule, render::stepAtTime).
    std::int64_t stepAt(int index, double time) const;

    // Where pane `index` draws its schedule (above its host lane when it is
    // timed), and its node positions there.
    QRectF scheduleRect(int index) const;
    render::ScheduleLayout layout(int index) const;
    // Timed panes (a link): the host lane under the picture (app/render/host_lane_layout.h).
    bool hasHostLane(int index) const { return panes_[static_cast<std::size_t>(index)].timeline->timed(); }
    render::HostLaneLayout hostLane(int index) const;
    // The time on pane `index`'s own clock at `time` (render::streamTime).
    double streamTime(int index, double time) const;
    QRectF chartRect() const;  // empty when paneOnly
    QRectF legendRect() const; // the compact legend of node states, on every frame

    // Paints the view at `time` into `image` (resized to options().size when
    // it differs). Stepping forward through time is O(ops stepped).
    void paint(QImage &image, double time);
    // A title card (app/export/title_card.h): the caption large, the
    // description, the panes' names and the legend of node states.
    void paintTitle(QImage &image);

private:
    void paintPane(QPainter &painter, int index, double time);
    const StepState &stateAt(int index, std::int64_t step);
    QRectF paneRect(int index) const;

    std::vector<ExportPane> panes_;
    Options options_;
    QRectF paneBody(int index) const; // the picture and the lane
    std::vector<std::unique_ptr<render::SchedulePainter>> painters_;
    std::vector<std::unique_ptr<render::HostLanePainter>> lanes_; // null for untimed panes
    std::vector<StepState> states_;
    render::MemoryChartPainter chart_;
    double captionHeight_ = 0;
    double paneTitleHeight_ = 0;
    double statusHeight_ = 0;
    int statusLines_ = 1;
    double legendHeight_ = 0;
    bool savedInternals_ = false; // some pane's layers save internals: the legend shows their bar
    bool offload_ = false;        // some pane is timed: the legend shows "on host" and "in flight"
    double laneEnd_ = 1;          // the host lanes' shared time axis (seconds)
};

} // namespace remat::exporting
