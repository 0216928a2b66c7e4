// Layers that save internals for their backward (docs/model.md, "Saved
// internals"): recording vs discarding runs, PyTorch's checkpoint semantics in
// every strategy, and the simulator's rules for them.
#include "core/errors.h"
#include "core/schedule_builder.h"
#include "core/simulator.h"
#include "core/strategy_registry.h"

#include <QtTest>

using namespace remat;

namespace {

constexpr std::int64_t MiB = 1 << 20;

Model transformerLikeChain(int n, std::int64_t output, std::int64_t saved) {
    ChainSpec spec;
    spec.nodeBytes = output;
    spec.savedBytes = saved;
    return Model::chain(n, spec);
}

Schedule plan(const Model &m, const char *strategy, const StrategyParams &params = {}) {
    return StrategyRegistry::builtin().get(strategy).makeSchedule(m, params);
}

int count(const Schedule &s, bool (*pred)(const Op &)) {
    return static_cast<int>(std::count_if(s.ops.begin(), s.ops.end(), pred));
}
bool isRecord(const Op &op) { return op.kind == OpKind::Compute && op.records; }
bool isFreeSaved(const Op &op) { return op.kind == OpKind::FreeSaved; }

StrategyParams every(int k) {
    StrategyParams p;
    p.every = k;
    return p;
}

} // namespace

class TestSavedInternals : public QObject {
    Q_OBJECT
private slots:
    // A 24-layer chain: 1 MiB outputs, 17 MiB internals per layer.
    void storeAllHoldsEveryLayersInternals() {
        const Model m = transformerLikeChain(24, MiB, 17 * MiB);
        const Summary s = Simulator::summarize(m, plan(m, "store-all"));
        QVERIFY2(s.peakBytes > 24 * 18 * MiB, qPrintable(QString::number(s.peakBytes)));
        QCOMPARE(s.peakSavedBytes, 24 * 17 * MiB);
        QCOMPARE(s.forwardEvaluations, std::int64_t(24));
    }

    void perLayerCheckpointingHoldsOneLayersInternals() {
        const Model m = transformerLikeChain(24, MiB, 17 * MiB);
        const Schedule sched = plan(m, "periodic", every(1));
        const Summary s = Simulator::summarize(m, sched);
        // The layer boundaries, one layer's internals, and a gradient or two.
        QVERIFY2(s.peakBytes >= 24 * MiB + 17 * MiB, qPrintable(QString::number(s.peakBytes)));
        QVERIFY2(s.peakBytes <= 24 * MiB + 17 * MiB + 4 * MiB, qPrintable(QString::number(s.peakBytes)));
        QCOMPARE(s.peakSavedBytes, 17 * MiB);
        // Each checkpointed layer runs twice (discarding, then recording before
        // its backward); the last segment (layer 24) runs once, recording.
        QCOMPARE(s.forwardEvaluations, std::int64_t(24 + 23));
        QCOMPARE(count(sched, isRecord), 24);
        QCOMPARE(count(sched, isFreeSaved), 24);
    }

    void withoutInternalsPerLayerIsStoreAll() {
        const Model m = Model::chain(24);
        const Summary perLayer = Simulator::summarize(m, plan(m, "periodic", every(1)));
        const Summary storeAll = Simulator::summarize(m, plan(m, "store-all"));
        QCOMPARE(perLayer.peakBytes, storeAll.peakBytes);
        QCOMPARE(perLayer.forwardEvaluations, storeAll.forwardEvaluations);
        QCOMPARE(perLayer.ops, storeAll.ops);
    }

    // Every strategy, on chains that save internals, makes schedules the
    // simulator accepts, and a model without internals never sees a recording
    // run or a free of internals.
    void everyStrategyHonoursInternals_data() {
        QTest::addColumn<QString>("strategy");
        for (const Strategy *s : StrategyRegistry::builtin().all())
            if (s->runsWithDefaults() || s->name() == "revolve")
                QTest::newRow(std::string(s->name()).c_str()) << QString::fromStdString(std::string(s->name()));
    }
    void everyStrategyHonoursInternals() {
        QFETCH(QString, strategy);
        for (int n = 1; n <= 40; ++n) {
            for (const std::int64_t saved : {std::int64_t(0), std::int64_t(3)}) {
                const Model m = transformerLikeChain(n, 2, saved);
                const Schedule s = plan(m, qPrintable(strategy));
                const Summary sum = Simulator::summarize(m, s); // throws if invalid
                QCOMPARE(sum.backwardOps, std::int64_t(n + 1));
                if (saved == 0) {
                    QCOMPARE(count(s, isRecord), 0);
                    QCOMPARE(count(s, isFreeSaved), 0);
                } else {
                    // Every layer's backward consumed internals recorded for it, once.
                    QCOMPARE(count(s, isRecord), n);
                    QCOMPARE(count(s, isFreeSaved), n);
                }
            }
        }
    }

    // With internals much larger than outputs, a checkpointed segment holds
    // the internals of one segment only: far below store-all.
    void segmentsBeatStoreAllWhenInternalsDominate_data() {
        QTest::addColumn<QString>("strategy");
        QTest::newRow("periodic") << "periodic";
        QTest::newRow("recompute-all") << "recompute-all";
        QTest::newRow("recursive") << "recursive";
    }
    void segmentsBeatStoreAllWhenInternalsDominate() {
        QFETCH(QString, strategy);
        const Model m = transformerLikeChain(16, MiB, 17 * MiB);
        const Summary storeAll = Simulator::summarize(m, plan(m, "store-all"));
        const Summary s = Simulator::summarize(m, plan(m, qPrintable(strategy)));
        QVERIFY(s.peakBytes < storeAll.peakBytes / 2);
        QVERIFY(s.peakSavedBytes < storeAll.peakSavedBytes / 2);
    }

    // A recording run of a resident output adds only the internals.
    void recordingAResidentOutputAddsOnlyInternals() {
        const Model m = transformerLikeChain(1, 10, 7);
        Schedule s;
        s.ops = {Op::compute(m.forwardNode(1)), Op::record(m.forwardNode(1)), Op::compute(m.backwardNode(1)),
                 Op::free(m.forwardNode(1)),    Op::compute(m.backwardNode(0)), Op::freeSaved(m.forwardNode(1)),
                 Op::free(m.backwardNode(1))};
        const Summary sum = Simulator::summarize(m, s);
        // a_0 a_1 s_1 b_1 while b_1 runs, then a_0 b_1 b_0 s_1 while b_0 runs.
        QCOMPARE(sum.peakBytes, std::int64_t(10 + 10 + 7 + 10));
        QCOMPARE(sum.peakSavedBytes, std::int64_t(7));
        QCOMPARE(sum.forwardEvaluations, std::int64_t(2));
        QCOMPARE(sum.recomputations, std::int64_t(1));
    }

    void rejectsMisuseOfInternals_data() {
        QTest::addColumn<int>("which");
        QTest::addColumn<QString>("message");
        QTest::newRow("backward without internals") << 0 << "op 4 (compute b_0): needs s_1";
        QTest::newRow("record twice") << 1 << "op 1 (record a_1): s_1";
        QTest::newRow("free internals not held") << 2 << "op 1 (free s_1): s_1";
        QTest::newRow("record a layer that saves nothing") << 3 << "layer 2 saves nothing";
    }
    void rejectsMisuseOfInternals() {
        QFETCH(int, which);
        QFETCH(QString, message);
        ForwardSpec in, l1, l2;
        l1.savedBytes = 5;
        l1.inputs = {0};
        l2.inputs = {1};
        const Model m = Model::fromForward({in, l1, l2});
        const NodeId a1 = m.forwardNode(1), a2 = m.forwardNode(2);
        Schedule s;
        switch (which) {
        case 0:
            s.ops = {Op::compute(a1), Op::compute(a2), Op::compute(m.backwardNode(2)), Op::compute(m.backwardNode(1)),
                     Op::compute(m.backwardNode(0))};
            break;
        case 1:
            s.ops = {Op::record(a1), Op::record(a1)};
            break;
        case 2:
            s.ops = {Op::compute(a1), Op::freeSaved(a1)};
            break;
        default:
            s.ops = {Op::record(a1), Op::record(a2)};
        }
        try {
            Simulator::summarize(m, s);
            QFAIL("accepted");
        } catch (const InvalidSchedule &e) {
            QVERIFY2(QString(e.what()).contains(message), e.what());
        }
    }

    // The ring lists what a plan keeps from the forward pass into the backward
    // pass: never more than the nodes resident at the peak.
    void budgetRingsOnlyWhatItKeeps() {
        const Model m = Model::chain(40);
        StrategyParams p;
        p.budgetNodes = 8;
        const Schedule s = plan(m, "budget", p);
        const Summary sum = Simulator::summarize(m, s);
        QVERIFY(std::int64_t(s.checkpoints.size()) <= sum.peakNodes);
        QCOMPARE(s.checkpoints, keptIntoBackward(m, s.ops));
    }

    void savedBytesValidated() {
        ChainSpec spec;
        spec.savedBytes = -1;
        QVERIFY_THROWS_EXCEPTION(InvalidArgument, Model::chain(3, spec));
        ForwardSpec in;
        in.savedBytes = 4;
        ForwardSpec l1;
        l1.inputs = {0};
        QVERIFY_THROWS_EXCEPTION(InvalidArgument, Model::fromForward({in, l1}));
    }
};

QTEST_APPLESS_MAIN(TestSavedInternals)
#include "test_saved_internals.moc"
