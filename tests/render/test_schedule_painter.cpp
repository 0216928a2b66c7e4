// The schedule picture shows what the simulator says: rendered into a QImage
// at a step, the colour at every node's centre is a "resident" colour exactly
// for the nodes in the simulator's resident set, and each node's colour is the
// one its state calls for.
#include "app/render/schedule_painter.h"
#include "core/model_io.h"
#include "core/simulator.h"
#include "core/strategy_registry.h"

#include <QImage>
#include <QPainter>
#include <QtTest>

using namespace remat;
using remat::render::Palette;
using remat::render::SchedulePainter;

namespace {

std::shared_ptr<const Timeline> replay(const std::string &strategy, int n, const StrategyParams &params = {},
                                       const QString &modelFile = {}) {
    auto model = std::make_shared<const Model>(
        modelFile.isEmpty() ? Model::chain(n)
                            : loadModelFile(qEnvironmentVariable("REMAT_SOURCE_DIR").toStdString() +
                                            "/resources/models/" + modelFile.toStdString())
                                  .model);
    auto schedule =
        std::make_shared<const Schedule>(StrategyRegistry::builtin().get(strategy).makeSchedule(*model, params));
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
        QTest::addColumn<QString>("modelFile"); // "" for a chain of `layers`
        for (const char *s : {"store-all", "recompute-all", "periodic", "checkpoints"})
            for (const int n : {5, 16, 40})
                for (const bool dark : {false, true})
                    QTest::addRow("%s n=%d %s", s, n, dark ? "dark" : "light") << QString(s) << n << dark << QString();
        // A DAG: the skip edges' arcs must not cover any node centre.
        for (const char *s : {"store-all", "recompute-all", "checkpoints"})
            QTest::addRow("%s unet", s) << QString(s) << 0 << false << QStringLiteral("unet-batch8.json");
    }

    void residentPixelsMatchTheSimulator() {
        QFETCH(QString, strategy);
        QFETCH(int, layers);
        QFETCH(bool, dark);
        QFETCH(QString, modelFile);
        StrategyParams params;
        if (strategy == "checkpoints")
            params.checkpoints = modelFile.isEmpty() ? std::vector<int>{1, layers / 2} : std::vector<int>{3, 6};
        const auto timeline = replay(strategy.toStdString(), layers, params, modelFile);
        layers = timeline->model().layers();
        const SchedulePainter painter(timeline);
        const Palette palette = Palette::forDarkMode(dark);
        const QColor residentFills[] = {palette.resident, palette.recomputed, palette.current};
        QImage image(900, 420, QImage::Format_ARGB32_Premultiplied);
        const render::ScheduleLayout layout =
            render::ScheduleLayout::make(layers + 1, QRectF(image.rect()).adjusted(5, 5, -5, -5));
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
                const bool drawnResident =
                    std::find(std::begin(residentFills), std::end(residentFills), pixel) != std::end(residentFills);
                const bool resident = state.resident[id] != 0;
                QVERIFY2(drawnResident == resident,
                         qPrintable(QString("%1 at step %2: simulator says %3, picture says %4")
                                        .arg(QString::fromStdString(model.name(id)))
                                        .arg(step)
                                        .arg(resident ? "resident" : "not resident")
                                        .arg(drawnResident ? "resident" : "not resident")));
                QCOMPARE(pixel, SchedulePainter::fillColor(painter.appearance(state, id).fill, palette));
            }
        }
    }

    void skipEdgesAreDrawn_data() {
        QTest::addColumn<QSize>("size");
        QTest::addRow("one band") << QSize(1400, 150);
        QTest::addRow("wrapped") << QSize(360, 700);
    }

    // The U-Net's picture differs from the chain's of the same n along every
    // edge the chain lacks: skip connections and their gradients are drawn,
    // also when they run from one band of a wrapped picture to the next.
    void skipEdgesAreDrawn() {
        QFETCH(QSize, size);
        const auto unet = replay("store-all", 0, {}, QStringLiteral("unet-batch8.json"));
        const Model &model = unet->model();
        const auto chain = replay("store-all", model.layers());
        const Palette palette = Palette::light();
        const render::ScheduleLayout layout =
            render::ScheduleLayout::make(model.forwardCount(), QRectF(QPointF(0, 0), QSizeF(size)));
        auto picture = [&](const std::shared_ptr<const Timeline> &timeline) {
            QImage image(size, QImage::Format_ARGB32_Premultiplied);
            image.fill(palette.background);
            QPainter p(&image);
            SchedulePainter(timeline).paint(p, layout, timeline->stateAt(-1), palette);
            return image;
        };
        const QImage withSkips = picture(unet), plain = picture(chain);
        int checked = 0;
        for (NodeId to = 0; to < NodeId(model.nodeCount()); ++to)
            for (const NodeId from : model.reads(to)) {
                const int i = model.indexOf(from), j = model.indexOf(to);
                const bool sameRow = model.isBackward(from) == model.isBackward(to);
                if ((sameRow && std::abs(i - j) <= 1) || (!sameRow && i == j))
                    continue; // the chain has this edge too
                const render::ScheduleLayout::Edge e = layout.edge(model, from, to);
                bool differs = false;
                for (const double t : {0.3, 0.5, 0.7}) {
                    const double u = 1 - t;
                    const QPointF at = u * u * u * e.start + 3 * u * u * t * e.control1 + 3 * u * t * t * e.control2 +
                                       t * t * t * e.end;
                    for (int dx = -1; dx <= 1; ++dx)
                        for (int dy = -1; dy <= 1; ++dy) {
                            const QPoint q = at.toPoint() + QPoint(dx, dy);
                            differs = differs || (withSkips.rect().contains(q) && withSkips.pixel(q) != plain.pixel(q));
                        }
                }
                QVERIFY2(differs, qPrintable(QString("%1 -> %2 is not drawn")
                                                 .arg(QString::fromStdString(model.name(from)),
                                                      QString::fromStdString(model.name(to)))));
                ++checked;
            }
        QCOMPARE(checked, 8); // four long skips, forward and backward
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
