// The memory chart's breakdown by kind is the simulator's memory cut into
// parts: at every step the kinds add up to Timeline::bytesAt, the saved
// internals are Timeline::savedBytesAt, and at the peak they match the
// simulator's own peak breakdown.
#include "app/render/memory_kinds.h"
#include "core/model_io.h"
#include "tests/render/saved_models.h"

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
            params.budgetBytes = 12 << 20;
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
};

QTEST_GUILESS_MAIN(TestMemoryKinds)
#include "test_memory_kinds.moc"
