#pragma once
// Paints memory against time for every pane on shared axes: a step chart
// (memory is constant within an op), each strategy's peak marked and labelled,
// and a playhead. Curves are decimated to the pixel columns and the whole
// chart but the playhead is cached as an image, so long schedules cost the
// same per frame as short ones. Optionally the first series' memory is stacked
// by kind under its curve (layer outputs, saved internals, gradients, workspace).
// Timed series that offload (docs/model.md) also get their host memory,
// dotted in the series' colour, with its own peak marker and label.
#include "app/render/memory_chart_mapping.h"
#include "app/render/memory_kinds.h"
#include "app/render/palette.h"
#include "app/render/peak_label_layout.h"
#include "app/render/time_axis.h"

#include <QFont>
#include <QImage>
#include <QPolygonF>
#include <QString>
#include <utility>

#include <memory>
#include <vector>

class QPainter;
class QFontMetricsF;

namespace remat::render {

class MemoryChartPainter {
public:
    struct Series {
        std::shared_ptr<const Timeline> timeline;
        QString name;
        std::int64_t peakBytes = 0;
        std::int64_t peakStep = -1;
        int pane = -1; // whose colour (Palette::paneColour); -1: the series' own index
    };

    // Bytes op by op as measured (in the series' units, so possibly
    // fractional), one per op of the series' timeline, drawn dashed in the
    // series' colour over the predicted curve.
    using Measured = std::shared_ptr<const std::vector<double>>;

    // Clears the measured overlays.
    void setSeries(std::vector<Series> series, TimeAxis axis);
    const std::vector<Series> &series() const { return series_; }
    // measured[i] belongs to series i; null (or a missing entry) draws none.
    void setMeasured(std::vector<Measured> measured);
    const std::vector<Measured> &measured() const { return measured_; }
    bool hasMeasured() const;
    // Fills the area under the first series' curve with its bytes by kind.
    void setStackByKind(bool stack);
    bool stackByKind() const { return stackByKind_; }
    // The first series' breakdown by kind (made on first use; null without series).
    std::shared_ptr<const MemoryBreakdown> breakdown() const;
    TimeAxis axis() const { return axis_; }
    double maxTime() const;

    // The mapping used when painting into `rect` (axes take room on the left and bottom).
    MemoryChartMapping mapping(const QRectF &rect, const QFontMetricsF &metrics) const;
    // Peak markers: one per series (device memory), then one per series
    // that holds host memory (hostSeries()).
    std::size_t peakCount() const { return series_.size() + hosts_.size(); }
    // The series whose host memory marker `peakCount() - hostSeries().size() + k` is.
    const std::vector<std::size_t> &hostSeries() const { return hostSeriesIndex_; }
    // Where peak `index` is drawn (middle of its op, at its bytes).
    QPointF peakPoint(const MemoryChartMapping &mapping, std::size_t index) const;
    // The peak labels, one per peak marker: beside each marker where that is
    // clear, else the nearest clear spot; never on each other, a marker or a
    // curve (placePeakLabels).
    std::vector<PeakLabel> peakLabels(const MemoryChartMapping &mapping, const QFontMetricsF &metrics) const;
    // The curves as drawn (pixels): each series' predicted curve, then the
    // measured ones shown, then the host curves.
    std::vector<QPolygonF> curves(const MemoryChartMapping &mapping) const;
    static constexpr double kCurvePenWidth = 2;
    static constexpr double kMarkerRadius = 4;
    // "peak 1.12 GiB", or for a host marker "host 896 MiB".
    QString peakLabel(std::size_t index) const;
    // Whose peak `index` is: "store-all (1)", "offload-all (3), host".
    QString peakName(std::size_t index) const;
    // The panes share one model; a chain of unit nodes reads in nodes.
    bool sizesInNodes() const;
    QColor colourOf(std::size_t index, const Palette &palette) const;

    void paint(QPainter &painter, const QRectF &rect, double playheadTime, const Palette &palette) const;

private:
    // The step curve of `bytes` (one per op) over the series' op times.
    template <class BytesAt>
    QPolygonF curve(const MemoryChartMapping &mapping, const Series &series, BytesAt bytesAt) const;
    // Op `step` on the chart's clock: from its start to its end; on a timed
    // timeline until the next op starts (a stall is held at the level before
    // it, as the player shows it: render::stepAtTime).
    std::pair<double, double> interval(const Timeline &timeline, std::int64_t step) const;
    void paintKinds(QPainter &painter, const MemoryChartMapping &mapping, const Palette &palette) const;
    void paintKindLegend(QPainter &painter, const MemoryChartMapping &mapping, const Palette &palette) const;
    QRectF kindLegendBox(const MemoryChartMapping &mapping, const QFontMetricsF &metrics) const;
    void paintPeakLabels(QPainter &painter, const Palette &palette) const;
    void paintStatic(QPainter &painter, const QRectF &rect, const MemoryChartMapping &mapping,
                     const Palette &palette) const;

    struct Cache {
        QRectF rect;
        Palette palette;
        qreal dpr = 0;
        QFont font;
        QImage image;
        std::vector<PeakLabel> labels; // placed with the image, painted over the playhead
    };
    struct HostPeak {
        std::int64_t bytes = 0;
        std::int64_t step = 0;
    };
    std::vector<Series> series_;
    std::vector<HostPeak> hosts_;              // of the series that hold host memory
    std::vector<std::size_t> hostSeriesIndex_; // their series
    std::vector<Measured> measured_;
    TimeAxis axis_ = TimeAxis::Cost;
    bool stackByKind_ = false;
    mutable std::shared_ptr<const MemoryBreakdown> breakdown_;
    mutable Cache cache_;
};

} // namespace remat::render
