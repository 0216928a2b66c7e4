// Tools > Trade-off curve: the opened model's least compute for every peak,
// computed off the GUI thread, drawn, and exported as PNG and CSV that agree
// with `remat plan --frontier` (the same core/frontier.h).
#include "app/render/palette.h"
#include "app/studio/frontier_view.h"
#include "app/studio/main_window.h"
#include "tests/common/op_models.h"
#include "tests/studio/studio_test_main.h"

#include "core/model.h"
#include "core/model_io.h"
#include "core/op_frontier.h"
#include "core/strategy_registry.h"

#include <QAction>
#include <QFile>
#include <QHash>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace remat;
using namespace remat::studio;

class TestFrontierView : public QObject {
    Q_OBJECT
private slots:
    void computesDrawsAndExports() {
        ChainSpec spec;
        spec.nodeBytes = 1 << 20;
        spec.savedBytes = 17 << 20;
        auto model = std::make_shared<const Model>(Model::chain(12, spec));
        FrontierDialog dialog(model, QStringLiteral("12 layers with internals"));
        QSignalSpy done(&dialog, &FrontierDialog::computed);
        QVERIFY(done.wait(60000));
        QVERIFY2(done.first().first().toBool(), qPrintable(dialog.statusText()));
        const auto &f = dialog.chart()->frontier();
        QVERIFY(f && f->curve.size() >= 2);
        // More memory never costs more compute, and the curve ends at store-all's cost.
        for (std::size_t i = 1; i < f->curve.size(); ++i) {
            QVERIFY(f->curve[i].peakBytes > f->curve[i - 1].peakBytes);
            QVERIFY(f->curve[i].cost < f->curve[i - 1].cost);
        }
        QCOMPARE(f->curve.back().cost, f->storeAllCost);

        QTemporaryDir dir;
        const QString png = dir.filePath(QStringLiteral("curve.png"));
        const QString csv = dir.filePath(QStringLiteral("curve.csv"));
        QVERIFY(dialog.exportPng(png, QSize(800, 500)));
        QImage image(png);
        QCOMPARE(image.size(), QSize(800, 500));
        // The staircase is drawn in the first series colour somewhere.
        const QColor curveColour = render::Palette::light().paneColour(0);
        bool sawCurve = false;
        for (int y = 0; y < image.height() && !sawCurve; ++y)
            for (int x = 0; x < image.width() && !sawCurve; ++x)
                sawCurve = image.pixelColor(x, y) == curveColour;
        QVERIFY(sawCurve);
        QVERIFY(dialog.exportCsv(csv));
        QFile file(csv);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QStringList lines = QString::fromUtf8(file.readAll()).split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.first(), QStringLiteral("kind,label,peak_bytes,peak_saved_bytes,cost,overhead_vs_store_all,"
                                               "budget_bytes"));
        QCOMPARE(lines.size(), 1 + static_cast<int>(f->curve.size() + f->named.size() + f->dtrCurve.size()));
        QVERIFY(!f->dtrCurve.empty()); // the runtime's curve beside the planner's
        // A path that cannot be written is reported, not a crash.
        QVERIFY(!dialog.exportCsv(dir.filePath(QStringLiteral("no/such/dir/curve.csv"))));
        QVERIFY(dialog.statusText().contains("Could not write"));
    }

    void anOpLevelModelShowsBothCurves() {
        const QByteArray file = test::twoGpt2BlocksAtOpLevel();
        QVERIFY(!file.isEmpty());
        const auto model = std::make_shared<const Model>(parseModelJson(file.toStdString(), "two-blocks.json").model);
        QVERIFY(model->isOpLevel());
        FrontierDialog dialog(model, QStringLiteral("two GPT-2 blocks at op level"));
        QSignalSpy done(&dialog, &FrontierDialog::computed);
        QVERIFY(done.wait(120000));
        QVERIFY2(done.first().first().toBool(), qPrintable(dialog.statusText()));
        const auto &f = dialog.chart()->frontier();
        QVERIFY(f && f->curve.size() >= 2 && f->blockCurve.size() >= 2);
        QVERIFY(dialog.statusText().contains("whole blocks"));
        // Keeping single tensors never costs more than keeping whole blocks, at any peak.
        for (const FrontierPoint &b : f->blockCurve)
            QVERIFY(frontierCostAt(*f, b.peakBytes) <= b.cost);
        // Both curves reach store-all's cost; the block-level one starts no lower.
        QCOMPARE(f->curve.back().cost, f->storeAllCost);
        QCOMPARE(f->blockCurve.back().cost, f->storeAllCost);
        QVERIFY(f->curve.front().peakBytes <= f->blockCurve.front().peakBytes);
        // The named policies are the registry's op-level strategies, counted as a pane counts them.
        QCOMPARE(f->named.size(), std::size_t(4));
        for (const NamedPoint &p : f->named) {
            const Schedule s = StrategyRegistry::builtin().get(p.strategy).makeSchedule(*model, {});
            QCOMPARE(Simulator::summarize(*model, s).peakBytes, p.peakBytes);
        }
        // A point of the op-level curve is a plan whose simulated peak is the one drawn.
        const FrontierPoint &mid = f->curve[f->curve.size() / 2];
        StrategyParams params;
        params.budgetBytes = mid.budgetBytes;
        const Schedule planned = StrategyRegistry::builtin().get("op-budget").makeSchedule(*model, params);
        const Summary counted = Simulator::summarize(*model, planned);
        // The op-budget strategy's plan at the point's budget is the point:
        // both searches are bounded by replayed ops, not by the clock, so a
        // slow sanitizer build draws the same curve as any other.
        QCOMPARE(counted.peakBytes, mid.peakBytes);
        QCOMPARE(counted.cost, mid.cost);
        QVERIFY(counted.peakBytes <= mid.budgetBytes);
        // The picture has both staircases: the dashed block-level one in the muted colour.
        QTemporaryDir dir;
        const QString png = dir.filePath(QStringLiteral("op.png"));
        QVERIFY(dialog.exportPng(png, QSize(800, 500)));
        const QImage image(png);
        const QColor muted = render::Palette::light().mutedText;
        int mutedPixels = 0;
        for (int y = 0; y < image.height(); ++y)
            for (int x = 0; x < image.width(); ++x)
                mutedPixels += image.pixelColor(x, y) == muted;
        QVERIFY(mutedPixels > 100);
    }

    void cancelStopsThePlanner() {
        auto model = std::make_shared<const Model>(Model::chain(400));
        FrontierDialog dialog(model, QStringLiteral("400 layers"));
        QSignalSpy done(&dialog, &FrontierDialog::computed);
        dialog.reject(); // Cancel while computing
        QVERIFY(done.wait(60000));
        QVERIFY(!done.first().first().toBool());
        QVERIFY2(dialog.statusText().contains("Cancelled"), qPrintable(dialog.statusText()));
    }

    void toolsMenuOffersIt() {
        MainWindow window(remat::testing::freshWindow());
        QAction *action = window.findChild<QAction *>(QStringLiteral("tradeOffCurve"));
        QVERIFY(action);
        QCOMPARE(action->shortcut(), QKeySequence(QStringLiteral("Ctrl+T")));
    }
};

int main(int argc, char **argv) {
    TestFrontierView test;
    return remat::testing::runStudioTest(test, "test_frontier_view", argc, argv);
}
#include "test_frontier_view.moc"
