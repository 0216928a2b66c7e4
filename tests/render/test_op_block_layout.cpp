// The Blocks panel's coordinate math without a window: blocks share the
// strip, the opened block's ops sit in rows below it inside the rectangle,
// a point finds its block; and each op's fate (kept, re-run) read from the
// one Schedule and the simulator is the policy's keep set.
#include "app/render/op_block_layout.h"
#include "core/model_io.h"
#include "core/simulator.h"
#include "core/strategy_registry.h"

#include <QtTest>

using namespace remat;
using namespace remat::render;

class TestOpBlockLayout : public QObject {
    Q_OBJECT
private slots:
    void blocksShareTheStripAndOpsFitBelow() {
        const QRectF rect(10, 20, 1000, 400);
        const OpBlockLayout l = OpBlockLayout::make(rect, 12, 3, 24, 40);
        QCOMPARE(l.blocks.size(), std::size_t(12));
        QCOMPARE(l.opened, 3);
        QCOMPARE(l.blocks.front().left(), rect.left());
        QVERIFY(qAbs(l.blocks.back().right() - rect.right()) < 1e-9);
        for (std::size_t b = 1; b < l.blocks.size(); ++b) {
            QVERIFY(l.blocks[b].left() >= l.blocks[b - 1].right()); // no overlap
            QCOMPARE(l.blocks[b].width(), l.blocks[0].width());
        }
        QCOMPARE(l.ops.size(), std::size_t(24));
        QCOMPARE(l.columns, 6); // 150-pixel cells at least in 1000 pixels
        for (std::size_t i = 0; i < l.ops.size(); ++i) {
            QVERIFY(rect.adjusted(-1e-6, -1e-6, 1e-6, 1e-6).contains(l.ops[i]));
            QVERIFY(l.ops[i].top() > l.blocks[0].bottom());
            QVERIFY(l.ops[i].width() >= OpBlockLayout::kOpWidth);
            for (std::size_t j = 0; j < i; ++j)
                QVERIFY(!l.ops[i].intersects(l.ops[j]));
        }
        // Forward order reads left to right, then the next row.
        QVERIFY(l.ops[1].left() > l.ops[0].left());
        QVERIFY(l.ops[6].top() > l.ops[5].top());
        QCOMPARE(l.blockAt(l.blocks[7].center()), 7);
        QCOMPARE(l.blockAt(QPointF(5, 5)), -1);
        QCOMPARE(l.blockAt(l.ops[0].center()), -1);
        // Nothing opened, or nothing to lay out: no cells, no crash.
        QVERIFY(OpBlockLayout::make(rect, 12, -1, 24, 40).ops.empty());
        QVERIFY(OpBlockLayout::make(rect, 12, 12, 24, 40).ops.empty());
        QVERIFY(OpBlockLayout::make(rect, 0, 0, 24, 40).blocks.empty());
        // A narrow panel still gives every op a cell of one column.
        QCOMPARE(OpBlockLayout::make(QRectF(0, 0, 90, 400), 2, 0, 5, 30).columns, 1);
    }

    void keptOpsAreWhatTheSimulatorHolds() {
        auto model =
            std::make_shared<const Model>(loadModelFile(qEnvironmentVariable("REMAT_SOURCE_DIR").toStdString() +
                                                        "/resources/models/gpt2-2layers-seq1024-ops.json")
                                              .model);
        const OpGraph graph = opGraph(*model);
        QCOMPARE(selectableBlocks(graph).size(), std::size_t(2));
        const std::vector<std::pair<const char *, KeepSet>> policies{
            {"save-matmuls", keepMatmuls(*model, graph)},
            {"attention-core", keepAllButAttentionCore(*model, graph)},
            {"per-block", keepBlockOutputs(graph)}};
        for (const auto &[name, keep] : policies) {
            const Schedule s = StrategyRegistry::builtin().get(name).makeSchedule(*model, {});
            const auto replay = Simulator::replay(model, std::make_shared<const Schedule>(s));
            const std::vector<OpFate> fates = opFates(replay.timeline);
            const StepState end = replay.timeline.stateAt(forwardPassEnd(replay.timeline));
            int rerun = 0;
            for (int g : selectableBlocks(graph)) {
                if (storesGroup(graph, keep, g))
                    continue;
                // In a checkpointed block the policy's kept tensors are held
                // through the forward pass and every other op is re-run.
                for (int i : graph.groups[static_cast<std::size_t>(g)].nodes) {
                    const OpFate fate = fates[static_cast<std::size_t>(i)];
                    const bool kept = keep[static_cast<std::size_t>(i)] != 0;
                    QVERIFY2(fate == (kept ? OpFate::Kept : OpFate::Rerun),
                             qPrintable(QString("%1: %2").arg(name, QString::fromStdString(model->label(i)))));
                    QCOMPARE(end.resident[model->forwardNode(i)] != 0, kept);
                    rerun += !kept;
                }
            }
            QVERIFY2(rerun > 0, name);
        }
    }
};

QTEST_GUILESS_MAIN(TestOpBlockLayout)
#include "test_op_block_layout.moc"
