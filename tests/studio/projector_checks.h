#pragma once
// What a projector needs of the window in presentation mode, read off the
// real window and a screenshot of it: the memory chart at least a third of the
// window's height, the legend of node states on one line, and every peak
// label clear of the other labels, the markers and the plotted curves
// (tests/common/peak_label_checks.h) and really painted where the layout put
// it (the screenshot is not blank there). Returns "" when all hold.
#include "app/render/schedule_painter.h"
#include "app/studio/legend_widget.h"
#include "app/studio/main_window.h"
#include "app/studio/memory_chart_view.h"
#include "tests/common/peak_label_checks.h"

#include <QDir>
#include <QImage>

namespace remat::testing {

// Pixels of `box` in `image` that differ clearly from its most common colour (the backing).
inline int inkPixels(const QImage &image, const QRect &box) {
    std::map<QRgb, int> counts;
    for (int y = box.top(); y <= box.bottom(); ++y)
        for (int x = box.left(); x <= box.right(); ++x)
            ++counts[image.pixel(x, y)];
    QRgb backing = 0;
    int most = -1;
    for (const auto &[colour, count] : counts)
        if (count > most) {
            most = count;
            backing = colour;
        }
    int ink = 0;
    for (int y = box.top(); y <= box.bottom(); ++y)
        for (int x = box.left(); x <= box.right(); ++x) {
            const QRgb c = image.pixel(x, y);
            if (std::abs(qRed(c) - qRed(backing)) + std::abs(qGreen(c) - qGreen(backing)) +
                    std::abs(qBlue(c) - qBlue(backing)) >
                120)
                ++ink;
        }
    return ink;
}

// `name` names the screenshot saved under $REMAT_TEST_SCREENSHOTS (when set), for a person to look at.
inline QString projectorProblem(studio::MainWindow &window, const QString &name) {
    const QImage shot = window.grab().toImage();
    if (const QString dir = qEnvironmentVariable("REMAT_TEST_SCREENSHOTS"); !dir.isEmpty()) {
        QDir().mkpath(dir);
        shot.save(QDir(dir).filePath(name + QStringLiteral(".png")));
    }
    studio::MemoryChartView *chart = window.chart();
    if (chart->height() * 3 < window.height())
        return QStringLiteral("chart %1 px high in a window of %2 px").arg(chart->height()).arg(window.height());
    if (auto *legend = window.findChild<studio::LegendWidget *>()) {
        const double oneLine = render::SchedulePainter::legendHeight(legend->font(), 1e6, false, true);
        if (legend->height() > oneLine * 1.5)
            return QStringLiteral("the legend takes %1 px, more than one line (%2 px)")
                .arg(legend->height())
                .arg(oneLine);
    }
    const render::MemoryChartMapping m = chart->mapping();
    const QFontMetricsF metrics(chart->font());
    if (const QString problem = remat::test::peakLabelProblem(chart->chart(), m, metrics); !problem.isEmpty())
        return problem;
    const QImage chartShot = chart->grab().toImage();
    const double dpr = chartShot.devicePixelRatio();
    for (const render::PeakLabel &label : chart->chart().peakLabels(m, metrics)) {
        const QRect box = QRectF(label.box.topLeft() * dpr, label.box.size() * dpr).toAlignedRect() & chartShot.rect();
        if (inkPixels(chartShot, box) < box.width() * box.height() / 40)
            return QStringLiteral("nothing is painted in the label box at %1,%2").arg(box.x()).arg(box.y());
    }
    return {};
}

} // namespace remat::testing
