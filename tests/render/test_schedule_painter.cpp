// The schedule picture shows what the simulator says: rendered into a QImage
// at a step, the colour at every node's centre is a "resident" colour exactly
// for the nodes in the simulator's resident set, and each node's colour is the
// one its state calls for.
#include "app/render/schedule_painter.h"
#include "core/simulator.h"
#include "core/strategy_registry.h"

#include <QImage>
#include <QPainter>
#include <QtTest>

using namespace remat;
using remat::render::Palette;
using remat::render::SchedulePainter;

namespace {

std::shared_ptr<const Timeline> replay(const std::string &strategy, int n, const StrategyParams &params = {}) {
    auto model = std::make_shared<const Model>(Model::chain(n));
    auto schedule = std::make_shared<const Schedule>(StrategyRegistry::builtin().get(strategy).makeSchedule(*model, params));
    return std::make_shared<const Timeline>(Simulator::replay(model, schedule).timeline);
}

} // namespace

class TestSchedulePainter : public QObject {
    Q_OBJECT
private slots:
    void residentPixelsMatchTheSimulator_data() {
        QTest::addColumn<QString>("strategy");
        QTest::addColumn<int>("layers");
        QTest::addColumn<bool>("dark");
        for (const char *s : {"store-all", "recompute-all", "periodic", "checkpoints"})
            for (const int n : {5, 16, 40})
                for (const bool dark : {false, true})
                    QTest::addRow("%s n=%d %s", s, n, dark ? "dark" : "light") << QString(s) << n << dark;
    }

    void residentPixelsMatchTheSimulator() {
        QFETCH(QString, strategy);
        QFETCH(int, layers);
        QFETCH(bool, dark);
        StrategyParams params;
        if (strategy == "checkpoints")
            params.checkpoints = std::vector<int>{1, layers / 2};
        const auto timeline = replay(strategy.toStdString(), layers, params);
        const SchedulePainter painter(timeline);
        const Palette palette = Palette::forDarkMode(dark);
        const QColor residentFills[] = {palette.resident, palette.recomputed, palette.current};
        QImage image(900, 420, QImage::Format_ARGB32_Premultiplied);
        const render::ScheduleLayout layout = render::ScheduleLayout::make(layers + 1, QRectF(image.rect()).adjusted(5, 5, -5, -5));
        const Model &model = timeline->model();
        // Several steps across the run: the start, the forward pass, the turn, the backward pass, the end.
        const std::int64_t last = timeline->steps() - 1;
        for (const std::int64_t step : {std::int64_t{-1}, last / 5, last / 3, last / 2, 2 * last / 3, last - 1, last}) {
            const StepState state = timeline->stateAt(step);
            image.fill(palette.background);
            QPainter p(&image);
            painter.paint(p, layout, state, palette);
            p.end();
            for (NodeId id = 0; id < NodeId(model.nodeCount()); ++id) {
                const QColor pixel = image.pixelColor(layout.center(model, id).toPoint());
                const bool drawnResident = std::find(std::begin(residentFills), std::end(residentFills), pixel) != std::end(residentFills);
                const bool resident = state.resident[id] != 0;
                QVERIFY2(drawnResident == resident, qPrintable(QString("%1 at step %2: simulator says %3, picture says %4")
                                                                   .arg(QString::fromStdString(model.name(id)))
                                                                   .arg(step)
                                                                   .arg(resident ? "resident" : "not resident")
                                                                   .arg(drawnResident ? "resident" : "not resident")));
                QCOMPARE(pixel, SchedulePainter::fillColor(painter.appearance(state, id).fill, palette));
            }
        }
    }

    void highDpiImagesShowTheSameNodes() {
        // At device pixel ratio 2 the cached layer and sprites are drawn at twice the pixels, same places.
        const auto timeline = replay("periodic", 16);
        const SchedulePainter painter(timeline);
        const Palette palette = Palette::light();
        QImage image(2 * 700, 2 * 300, QImage::Format_ARGB32_Premultiplied);
        image.setDevicePixelRatio(2);
        const render::ScheduleLayout layout = render::ScheduleLayout::make(17, QRectF(0, 0, 700, 300));
        const StepState state = timeline->stateAt(timeline->steps() / 2);
        image.fill(palette.background);
        QPainter p(&image);
        painter.paint(p, layout, state, palette);
        p.end();
        const Model &model = timeline->model();
        for (NodeId id = 0; id < NodeId(model.nodeCount()); ++id)
            QCOMPARE(image.pixelColor((layout.center(model, id) * 2).toPoint()),
                     SchedulePainter::fillColor(painter.appearance(state, id).fill, palette));
    }

    void recomputedNodesGetTheirOwnColour() {
        // periodic at n = 16 recomputes a_13 for the last segment.
        const auto timeline = replay("periodic", 16);
        const SchedulePainter painter(timeline);
        const Model &model = timeline->model();
        StepState state = timeline->stateAt(-1);
        bool sawRecomputed = false;
        while (state.step + 1 < timeline->steps()) {
            timeline->advance(state);
            for (NodeId id = 0; id < NodeId(model.forwardCount()); ++id) {
                const auto a = painter.appearance(state, id);
                if (a.fill == render::NodeFill::Recomputed) {
                    sawRecomputed = true;
                    QVERIFY(state.computeCount[id] > 1 && state.resident[id]);
                }
            }
        }
        QVERIFY(sawRecomputed);
    }

    void checkpointsAreRinged() {
        const auto timeline = replay("periodic", 16);
        const SchedulePainter painter(timeline);
        const StepState state = timeline->stateAt(timeline->steps() / 2);
        for (int i = 0; i <= 16; ++i) {
            const bool listed = i == 0 || std::count(timeline->schedule().checkpoints.begin(),
                                                     timeline->schedule().checkpoints.end(), i) > 0;
            QCOMPARE(painter.appearance(state, NodeId(i)).checkpoint, listed);
        }
    }

    void legendFitsItsWidth() {
        QImage image(300, 200, QImage::Format_ARGB32_Premultiplied);
        QPainter p(&image);
        const double narrow = SchedulePainter::paintLegend(p, QRectF(0, 0, 300, 0), Palette::light());
        const double wide = SchedulePainter::paintLegend(p, QRectF(0, 0, 3000, 0), Palette::light());
        QVERIFY(narrow > wide); // wraps onto more lines when narrow
    }
};

QTEST_MAIN(TestSchedulePainter)
#include "test_schedule_painter.moc"
