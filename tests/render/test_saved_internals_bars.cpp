// A layer holding saved internals looks different from one holding only its
// output: its bar is filled exactly while the simulator says it holds them,
// in proportion to its saved bytes, and never covers a node, its ring or an
// arrow.
#include "app/render/memory_kinds.h"
#include "app/render/saved_internals_bars.h"
#include "app/render/schedule_painter.h"
#include "tests/render/saved_models.h"

#include <QImage>
#include <QPainter>
#include <QtTest>

using namespace remat;
using remat::render::Palette;
using remat::render::SavedInternalsBars;
using remat::render::ScheduleLayout;

class TestSavedInternalsBars : public QObject {
    Q_OBJECT
private slots:
    void barsAreProportionalAndClearOfNodes_data() {
        QTest::addColumn<int>("layers");
        QTest::addColumn<QSize>("size");
        QTest::addRow("short, large nodes") << 6 << QSize(900, 420);
        QTest::addRow("24 layers, one band") << 24 << QSize(1200, 300);
        QTest::addRow("48 layers, wrapped") << 48 << QSize(500, 700);
    }

    void barsAreProportionalAndClearOfNodes() {
        QFETCH(int, layers);
        QFETCH(QSize, size);
        const auto model = testing::savedChain(layers, 5 << 20); // 5, 10 or 15 MiB
        const ScheduleLayout layout = ScheduleLayout::make(model->forwardCount(), QRectF(QPointF(0, 0), QSizeF(size)));
        const SavedInternalsBars bars = SavedInternalsBars::make(layout, *model);
        QCOMPARE(bars.largest, std::int64_t{15} << 20);
        QVERIFY(bars.drawn());
        QVERIFY(bars.bar(1, 0).isEmpty()); // a layer that saves nothing gets no bar
        const double ring = layout.radius + std::max(2.0, layout.pitch * 0.09);
        for (int i = 1; i <= layers; ++i) {
            const QRectF bar = bars.bar(i, model->savedBytes(i));
            QVERIFY(!bar.isEmpty());
            // Height in proportion to the saved bytes.
            const double expected = layout.pitch * SavedInternalsBars::kMaxHeightPerPitch *
                                    static_cast<double>(model->savedBytes(i)) / static_cast<double>(bars.largest);
            QVERIFY2(std::abs(bar.height() - std::max(expected, SavedInternalsBars::kMinHeight)) < 1e-9,
                     qPrintable(QString("a_%1: bar %2 px, expected %3").arg(i).arg(bar.height()).arg(expected)));
            // Below a_i's ring, above b_i's, right of the a_i -> b_i arrow, left of the next column's.
            const QPointF f = layout.forwardCenter(i), b = layout.backwardCenter(i);
            QVERIFY(bar.top() > f.y() + ring);
            QVERIFY(bar.bottom() < b.y() - ring);
            QVERIFY(bar.left() > f.x() + 1);
            QVERIFY(bar.right() < f.x() + layout.pitch - 1);
            // The size label, when there is room, stays in the column too.
            const QRectF label = bars.label(bar, 20, 10);
            if (!label.isEmpty())
                QVERIFY(label.left() > bar.right() && label.right() < f.x() + layout.pitch - 1);
        }
    }

    void tooSmallPicturesDrawNoBars() {
        const auto model = testing::savedChain(400);
        const ScheduleLayout layout = ScheduleLayout::make(model->forwardCount(), QRectF(0, 0, 300, 100));
        QVERIFY(layout.pitch < SavedInternalsBars::kMinPitch);
        QVERIFY(SavedInternalsBars::make(layout, *model).bar(3, model->savedBytes(3)).isEmpty());
    }

    void barIsFilledExactlyWhileTheLayerHoldsItsInternals_data() {
        QTest::addColumn<QString>("strategy");
        QTest::addColumn<int>("every");
        QTest::addColumn<bool>("dark");
        for (const bool dark : {false, true}) {
            const char *theme = dark ? "dark" : "light";
            QTest::addRow("store-all %s", theme) << QString("store-all") << 0 << dark;
            QTest::addRow("per-layer checkpointing %s", theme) << QString("periodic") << 1 << dark;
            QTest::addRow("periodic 3 %s", theme) << QString("periodic") << 3 << dark;
            QTest::addRow("recompute-all %s", theme) << QString("recompute-all") << 0 << dark;
        }
    }

    void barIsFilledExactlyWhileTheLayerHoldsItsInternals() {
        QFETCH(QString, strategy);
        QFETCH(int, every);
        QFETCH(bool, dark);
        StrategyParams params;
        if (every > 0)
            params.every = every;
        const auto timeline = testing::replayOn(testing::savedChain(8, 4 << 20), strategy.toStdString(), params);
        const Model &model = timeline->model();
        const render::SchedulePainter painter(timeline);
        const Palette palette = Palette::forDarkMode(dark);
        const QColor savedColour = render::kindColour(render::MemoryKind::SavedInternals, palette);
        QImage image(900, 420, QImage::Format_ARGB32_Premultiplied);
        const ScheduleLayout layout = ScheduleLayout::make(model.forwardCount(), QRectF(image.rect()));
        const SavedInternalsBars bars = SavedInternalsBars::make(layout, model);
        int held = 0, notHeld = 0;
        StepState state = timeline->stateAt(-1);
        while (true) {
            image.fill(palette.background);
            QPainter p(&image);
            painter.paint(p, layout, state, palette);
            p.end();
            for (int i = 1; i < model.forwardCount(); ++i) {
                const QRectF bar = bars.bar(i, model.savedBytes(i));
                const bool drawnHeld = image.pixelColor(bar.center().toPoint()) == savedColour;
                QVERIFY2(
                    drawnHeld == state.holdsSaved(i),
                    qPrintable(QString("s_%1 at step %2: simulator says %3, picture says %4")
                                   .arg(i)
                                   .arg(state.step)
                                   .arg(state.holdsSaved(i) ? "held" : "not held", drawnHeld ? "held" : "not held")));
                // The outline shows the size also when not held.
                QCOMPARE(image.pixelColor(QPointF(bar.center().x(), bar.top() + 0.5).toPoint()) == palette.background,
                         false);
                (state.holdsSaved(i) ? held : notHeld) += 1;
                // The node itself keeps its own look.
                QCOMPARE(image.pixelColor(layout.forwardCenter(i).toPoint()),
                         render::SchedulePainter::fillColor(painter.appearance(state, NodeId(i)).fill, palette));
            }
            if (state.step + 1 >= timeline->steps())
                break;
            timeline->advance(state);
        }
        QVERIFY(held > 0 && notHeld > 0);
    }

    void noBarsWithoutSavedInternals() {
        // Models that save nothing look exactly as before: not a pixel of the saved colour.
        const auto timeline = testing::replayOn(std::make_shared<const Model>(Model::chain(8)), "store-all");
        const render::SchedulePainter painter(timeline);
        const Palette palette = Palette::light();
        QImage image(900, 420, QImage::Format_ARGB32_Premultiplied);
        image.fill(palette.background);
        QPainter p(&image);
        painter.paint(p, ScheduleLayout::make(9, QRectF(image.rect())), timeline->stateAt(timeline->steps() / 2),
                      palette);
        p.end();
        const QRgb saved = render::kindColour(render::MemoryKind::SavedInternals, palette).rgba();
        for (int y = 0; y < image.height(); ++y)
            for (int x = 0; x < image.width(); ++x)
                QVERIFY(image.pixel(x, y) != saved);
    }

    void legendNamesSavedInternalsOnlyWhenAsked() {
        QImage image(400, 400, QImage::Format_ARGB32_Premultiplied);
        QPainter p(&image);
        const QRectF narrow(0, 0, 400, 0);
        const double without = render::SchedulePainter::paintLegend(p, narrow, Palette::light());
        const double with = render::SchedulePainter::paintLegend(p, narrow, Palette::light(), false, true);
        QVERIFY(with > without);
    }
};

QTEST_MAIN(TestSavedInternalsBars)
#include "test_saved_internals_bars.moc"
