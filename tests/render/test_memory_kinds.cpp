// The memory chart's breakdown by kind is the simulator's memory cut into
// parts: at every step the kinds add up to Timeline::bytesAt, the saved
// internals are Timeline::savedBytesAt, and at the peak they match the
// simulator's own peak breakdown. The chart stacked by kind paints each band
// in its kind's colour.
#include "app/render/memory_chart_painter.h"
#include "app/render/memory_kinds.h"
#include "core/model_io.h"
#include "tests/render/saved_models.h"

#include <QImage>
#include <QPainter>
#include <QtTest>

using namespace remat;
using remat::render::MemoryBreakdown;
using remat::render::MemoryKind;

class TestMemoryKinds : public QObject {
    Q_OBJECT
private slots:
    void kindsAddUpToTheSimulatorsBytes_data() {
        QTest::addColumn<QString>("modelFile"); // "" for the saved-internals chain
        QTest::addColumn<int>("layers");
        QTest::addColumn<QString>("strategy");
        QTest::addColumn<int>("every");
        for (const char *s : {"store-all", "recompute-all", "revolve"})
            QTest::addRow("saved chain 24 %s", s) << QString() << 24 << QString(s) << 0;
        QTest::addRow("saved chain 24 per-layer checkpointing") << QString() << 24 << QString("periodic") << 1;
        QTest::addRow("saved chain 24 periodic 4") << QString() << 24 << QString("periodic") << 4;
        QTest::addRow("saved chain 9 budget") << QString() << 9 << QString("budget") << 0;
        for (const char *f : {"gpt2-small.json", "unet-batch8.json", "vgg16-batch32.json"})
            for (const char *s : {"store-all", "recompute-all"})
                QTest::addRow("%s %s", f, s) << QString(f) << 0 << QString(s) << 0;
    }

    void kindsAddUpToTheSimulatorsBytes() {
        QFETCH(QString, modelFile);
        QFETCH(int, layers);
        QFETCH(QString, strategy);
        QFETCH(int, every);
        const auto model =
            modelFile.isEmpty()
                ? testing::savedChain(layers, 3 << 20)
                : std::make_shared<const Model>(loadModelFile(qEnvironmentVariable("REMAT_SOURCE_DIR").toStdString() +
                                                              "/resources/models/" + modelFile.toStdString())
                                                    .model);
        StrategyParams params;
        if (every > 0)
            params.every = every;
        if (strategy == "budget")
            params.budgetBytes = 16 << 20; // above the plan's minimum, 13.5 MiB
        const auto timeline = testing::replayOn(model, strategy.toStdString(), params);
        const Summary summary = Simulator::summarize(*model, timeline->schedule());
        const MemoryBreakdown breakdown(*timeline);
        QCOMPARE(breakdown.steps(), timeline->steps());
        bool sawSaved = false;
        for (std::int64_t step = 0; step < timeline->steps(); ++step) {
            std::int64_t sum = 0;
            for (const std::int64_t b : breakdown.at(step)) {
                QVERIFY2(b >= 0, qPrintable(QString("negative bytes at step %1").arg(step)));
                sum += b;
            }
            QVERIFY2(sum == timeline->bytesAt(step),
                     qPrintable(QString("step %1: kinds add up to %2, the simulator holds %3")
                                    .arg(step)
                                    .arg(sum)
                                    .arg(timeline->bytesAt(step))));
            QCOMPARE(breakdown.stackedUpTo(step, MemoryKind::Workspace), sum);
            QCOMPARE(breakdown.at(step, MemoryKind::SavedInternals), timeline->savedBytesAt(step));
            sawSaved = sawSaved || breakdown.at(step, MemoryKind::SavedInternals) > 0;
        }
        QCOMPARE(sawSaved, model->hasSavedBytes());
        if (summary.peakStep >= 0) {
            QCOMPARE(breakdown.at(summary.peakStep, MemoryKind::SavedInternals), summary.peakSavedBytes);
            QCOMPARE(breakdown.at(summary.peakStep, MemoryKind::Workspace), summary.peakWorkspaceBytes);
        }
    }

    void stackedChartPaintsEachKindInItsBand_data() {
        QTest::addColumn<bool>("dark");
        QTest::addRow("light") << false;
        QTest::addRow("dark") << true;
    }

    void stackedChartPaintsEachKindInItsBand() {
        QFETCH(bool, dark);
        const auto model = testing::savedChain(6, 3 << 20);
        const auto timeline = testing::replayOn(model, "store-all");
        const Summary summary = Simulator::summarize(*model, timeline->schedule());
        render::MemoryChartPainter chart;
        chart.setSeries({{timeline, QStringLiteral("store-all"), summary.peakBytes, summary.peakStep}},
                        render::TimeAxis::Ops);
        const render::Palette palette = render::Palette::forDarkMode(dark);
        const QRectF rect(0, 0, 1200, 600);
        auto paint = [&](bool stacked) {
            chart.setStackByKind(stacked);
            QImage image(rect.size().toSize(), QImage::Format_ARGB32_Premultiplied);
            QPainter p(&image);
            chart.paint(p, rect, 0, palette);
            return image;
        };
        const QImage plain = paint(false), stacked = paint(true);
        const render::MemoryChartMapping m = chart.mapping(rect, QFontMetricsF(QFont()));
        // What each kind's translucent fill looks like over the background.
        auto composite = [&](MemoryKind kind) {
            QImage one(1, 1, QImage::Format_ARGB32_Premultiplied);
            one.fill(palette.background);
            QPainter p(&one);
            QColor c = render::kindColour(kind, palette);
            c.setAlpha(palette.isDark() ? 150 : 120);
            p.fillRect(QRect(0, 0, 1, 1), c);
            return one.pixelColor(0, 0);
        };
        auto distance = [](QColor a, QColor b) {
            return std::abs(a.red() - b.red()) + std::abs(a.green() - b.green()) + std::abs(a.blue() - b.blue());
        };
        const std::shared_ptr<const MemoryBreakdown> kinds = chart.breakdown();
        int checked = 0;
        for (std::int64_t step = 0; step < timeline->steps(); ++step) {
            const double x = m.timeToX(step + 0.5);
            double below = 0;
            for (const MemoryKind kind : render::kMemoryKinds) {
                const double top = static_cast<double>(kinds->stackedUpTo(step, kind));
                const double yTop = m.bytesToY(top), yBottom = m.bytesToY(below);
                below = top;
                if (yBottom - yTop < 8 || x < m.plot.left() + 260) // thin bands; the kinds' legend box
                    continue;
                const QPoint at(static_cast<int>(x), static_cast<int>((yTop + yBottom) / 2));
                const QColor pixel = stacked.pixelColor(at);
                QVERIFY(pixel != plain.pixelColor(at));
                for (const MemoryKind other : render::kMemoryKinds)
                    if (other != kind)
                        QVERIFY2(distance(pixel, composite(kind)) < distance(pixel, composite(other)),
                                 qPrintable(QString("step %1: the %2 band looks like %3")
                                                .arg(step)
                                                .arg(render::kindName(kind), render::kindName(other))));
                ++checked;
            }
        }
        QVERIFY(checked > 10);
    }
};

QTEST_MAIN(TestMemoryKinds)
#include "test_memory_kinds.moc"
