// QBENCHMARK figures for the studio. Run: build/release/bench/render/bench_render
// (QT_QPA_PLATFORM=offscreen on a headless machine).
#include "app/render/memory_chart_painter.h"
#include "app/render/schedule_painter.h"
#include "app/studio/pane_run.h"

#include <QImage>
#include <QPainter>
#include <QtTest>

using namespace remat;

class BenchRender : public QObject {
    Q_OBJECT
private slots:
    // 60 fps playback needs a frame in well under 16 ms; the target is 4 ms.
    void frameThreePanes256NodesAndChart() {
        auto model = std::make_shared<const Model>(Model::chain(255)); // 256 forward nodes
        std::vector<studio::PaneRun> runs;
        for (const char *s : {"store-all", "recompute-all", "periodic"}) {
            studio::PaneConfig c;
            c.strategy = s;
            runs.push_back(studio::simulatePane(model, c));
        }
        const render::Palette palette = render::Palette::light();
        QImage frame(1280, 720, QImage::Format_ARGB32_Premultiplied);
        std::vector<render::SchedulePainter> painters;
        std::vector<StepState> states;
        std::vector<render::ScheduleLayout> layouts;
        std::vector<render::MemoryChartPainter::Series> series;
        for (std::size_t i = 0; i < runs.size(); ++i) {
            painters.emplace_back(runs[i].timeline);
            states.push_back(runs[i].timeline->stateAt(runs[i].timeline->steps() / 2));
            layouts.push_back(render::ScheduleLayout::make(256, QRectF(i * 1280.0 / 3, 0, 1280.0 / 3, 470)));
            series.push_back(
                {runs[i].timeline, QString(s_names[i]), runs[i].summary.peakBytes, runs[i].summary.peakStep});
        }
        render::MemoryChartPainter chart;
        chart.setSeries(series, render::TimeAxis::Cost);
        const double playhead = chart.maxTime() / 2;
        auto paintFrame = [&] {
            frame.fill(palette.background);
            QPainter p(&frame);
            for (std::size_t i = 0; i < runs.size(); ++i)
                painters[i].paint(p, layouts[i], states[i], palette);
            chart.paint(p, QRectF(0, 470, 1280, 250), playhead, palette);
        };
        // The first frame builds the caches (layout, sprites, chart); playback
        // then repaints at new steps, which is what is measured.
        paintFrame();
        QBENCHMARK {
            for (std::size_t i = 0; i < runs.size(); ++i)
                if (states[i].step + 1 < runs[i].timeline->steps())
                    runs[i].timeline->advance(states[i]);
            paintFrame();
        }
    }

    // After a resize or a palette change the caches are rebuilt: one slower frame.
    void firstFrameAfterResize() {
        auto model = std::make_shared<const Model>(Model::chain(255));
        std::vector<studio::PaneRun> runs;
        for (const char *s : {"store-all", "recompute-all", "periodic"}) {
            studio::PaneConfig c;
            c.strategy = s;
            runs.push_back(studio::simulatePane(model, c));
        }
        const render::Palette palette = render::Palette::light();
        QImage frame(1280, 720, QImage::Format_ARGB32_Premultiplied);
        QBENCHMARK {
            frame.fill(palette.background);
            QPainter p(&frame);
            std::vector<render::MemoryChartPainter::Series> series;
            for (std::size_t i = 0; i < runs.size(); ++i) {
                const render::SchedulePainter painter(runs[i].timeline);
                painter.paint(p, render::ScheduleLayout::make(256, QRectF(i * 1280.0 / 3, 0, 1280.0 / 3, 470)),
                              runs[i].timeline->stateAt(runs[i].timeline->steps() / 2), palette);
                series.push_back(
                    {runs[i].timeline, QString(s_names[i]), runs[i].summary.peakBytes, runs[i].summary.peakStep});
            }
            render::MemoryChartPainter chart;
            chart.setSeries(series, render::TimeAxis::Cost);
            chart.paint(p, QRectF(0, 470, 1280, 250), chart.maxTime() / 2, palette);
        }
    }

    // A click on a forward node re-plans and re-simulates its pane.
    void resimulateAfterCheckpointClickN512() {
        auto model = std::make_shared<const Model>(Model::chain(512));
        studio::PaneConfig periodic;
        periodic.strategy = "periodic";
        const studio::PaneRun before = studio::simulatePane(model, periodic);
        const studio::PaneConfig clicked = studio::withCheckpointToggled(before, 101);
        QBENCHMARK {
            const studio::PaneRun after = studio::simulatePane(model, clicked);
            QVERIFY(after.summary.ops > 0);
        }
    }

private:
    static constexpr const char *s_names[] = {"store-all", "recompute-all", "periodic"};
};

QTEST_MAIN(BenchRender)
#include "bench_render.moc"
