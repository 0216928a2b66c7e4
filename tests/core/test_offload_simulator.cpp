// Offloading in the simulator (docs/model.md, "Offloading to host"): every
// rule a transfer breaks is refused with its op index and a message naming
// the node; the two streams are timed as documented (the hand-checked
// timeline of docs/model.md is checked here number by number); the timeline
// carries what a player animates (times, transfers, stalls, places).
#include "core/errors.h"
#include "core/simulator.h"
#include "core/strategy_registry.h"
#include "tests/common/schedule_text.h"

#include <QtTest>
#include <cmath>
#include <limits>

using namespace remat;

namespace {

std::vector<Op> ops(const Model &m, const QString &text) {
    return test::opsFromText(m, text);
}

Schedule scheduleOf(const Model &m, const QString &text) {
    Schedule s;
    s.ops = ops(m, text);
    return s;
}

// 1-byte nodes, costs in seconds (forward 1, backward 2), a 1 B/s link: a
// transfer takes as many seconds as the node has bytes.
Machine unitMachine(double bandwidth = 1) {
    Machine m;
    m.link.bytesPerSecond = bandwidth;
    m.secondsPerCost = 1;
    return m;
}

Machine infiniteLink() {
    return unitMachine(std::numeric_limits<double>::infinity());
}

// The chain of the hand-checked timeline in docs/model.md: n = 4, 1.5 MB
// a node, forward 1 ms, backward 2 ms, a 1 GB/s link (a transfer takes 1.5 ms).
struct DocExample {
    std::shared_ptr<const Model> model;
    Machine machine;
};
DocExample docExample() {
    ChainSpec spec;
    spec.nodeBytes = 1'500'000;
    spec.forwardCost = 0.001;
    spec.backwardCost = 0.002;
    Model m = Model::chain(4, spec);
    m.setCostUnit("s");
    Machine machine;
    machine.link.bytesPerSecond = 1e9;
    machine.secondsPerCost = 1;
    return {std::make_shared<const Model>(std::move(m)), machine};
}

Schedule plan(const Model &m, const char *strategy, const StrategyParams &params = {}) {
    return StrategyRegistry::builtin().get(strategy).makeSchedule(m, params);
}

// offload-all on that chain, timed.
Replay docReplay() {
    const DocExample ex = docExample();
    StrategyParams params;
    params.machine = ex.machine;
    return Simulator::replay(ex.model, std::make_shared<const Schedule>(plan(*ex.model, "offload-all", params)),
                             ex.machine);
}

bool near(double a, double b) {
    return std::fabs(a - b) <= 1e-12 * std::max(1.0, std::fabs(b));
}

} // namespace

class TestOffloadSimulator : public QObject {
    Q_OBJECT
private slots:
    void rejectsBrokenTransfers_data() {
        QTest::addColumn<QString>("schedule");
        QTest::addColumn<double>("bandwidth"); // 0 with `timed`: a link of 0 B/s
        QTest::addColumn<bool>("timed");
        QTest::addColumn<qint64>("opIndex");
        QTest::addColumn<QString>("message");
        QTest::newRow("no link") << "c a_1, o a_1" << 1.0 << false << qint64(1)
                                 << "op 1 (offload a_1): a transfer needs a link between device and host";
        QTest::newRow("link of 0 B/s") << "c a_1, o a_1" << 0.0 << true << qint64(1)
                                       << "op 1 (offload a_1): the link carries 0 B/s";
        QTest::newRow("the input") << "o a_0" << 1.0 << true << qint64(0)
                                   << "op 0 (offload a_0): only activations a_1..a_2 move";
        QTest::newRow("a gradient") << "c a_1, c a_2, c b_2, o b_2" << 1.0 << true << qint64(3)
                                    << "op 3 (offload b_2): only activations";
        QTest::newRow("offload of a node not computed")
            << "o a_1" << 1.0 << true << qint64(0) << "op 0 (offload a_1): a_1 is not on the device";
        QTest::newRow("offload twice") << "c a_1, o a_1, o a_1" << 1.0 << true << qint64(2)
                                       << "op 2 (offload a_1): a_1 already has a host copy (offloaded at op 1)";
        QTest::newRow("offload of a node on host") << "c a_1, o a_1, c a_2, f a_1, o a_1" << 1.0 << true << qint64(4)
                                                   << "op 4 (offload a_1): a_1 is already on host (offloaded at op 1)";
        QTest::newRow("prefetch without an offload")
            << "c a_1, p a_1" << 1.0 << true << qint64(1)
            << "op 1 (prefetch a_1): a_1 has no host copy: a prefetch needs an earlier offload of a_1";
        QTest::newRow("prefetch while on the device")
            << "c a_1, o a_1, p a_1" << 1.0 << true << qint64(2) << "op 2 (prefetch a_1): a_1 is still on the device";
        QTest::newRow("prefetch twice") << "c a_1, o a_1, c a_2, f a_1, p a_1, p a_1" << 1.0 << true << qint64(5)
                                        << "op 5 (prefetch a_1): a_1 is already being prefetched";
        QTest::newRow("read while on host")
            << "c a_1, o a_1, f a_1, c a_2" << 1.0 << true << qint64(3)
            << "op 3 (compute a_2): needs a_1, which is on host (offloaded at op 1): prefetch it first";
        QTest::newRow("recompute while on host")
            << "c a_1, c a_2, o a_1, f a_1, c a_1" << 1.0 << true << qint64(4)
            << "op 4 (compute a_1): a_1 is on host (offloaded at op 2): prefetch it back rather than computing it";
        QTest::newRow("free while on host") << "c a_1, o a_1, f a_1, f a_1" << 1.0 << true << qint64(3)
                                            << "op 3 (free a_1): a_1 is on host, not on the device (offloaded at op 1";
        QTest::newRow("left on host") << "c a_1, c a_2, c b_2, c b_1, o a_1, f a_1, c b_0" << 1.0 << true << qint64(-1)
                                      << "incomplete schedule: a_1 still has a host copy at the end of the step "
                                         "(offloaded at op 4); every offload needs a prefetch";
    }
    void rejectsBrokenTransfers() {
        QFETCH(QString, schedule);
        QFETCH(double, bandwidth);
        QFETCH(bool, timed);
        QFETCH(qint64, opIndex);
        QFETCH(QString, message);
        const Model m = Model::chain(2);
        const Schedule s = scheduleOf(m, schedule);
        try {
            if (timed)
                Simulator::summarize(m, s, unitMachine(bandwidth));
            else
                Simulator::summarize(m, s);
            QFAIL("expected InvalidSchedule");
        } catch (const InvalidSchedule &e) {
            QVERIFY2(QString(e.what()).contains(message), e.what());
            QCOMPARE(qint64(e.opIndex()), opIndex);
        }
    }

    // A recording re-run of a layer would rewrite a node whose copy is on the link.
    void rejectsARecordingRunOfANodeWithAHostCopy() {
        ChainSpec spec;
        spec.savedBytes = 2;
        const Model m = Model::chain(2, spec);
        try {
            Simulator::summarize(m, scheduleOf(m, "c a_1, o a_1, r a_1"), unitMachine());
            QFAIL("expected InvalidSchedule");
        } catch (const InvalidSchedule &e) {
            QCOMPARE(qint64(e.opIndex()), qint64(2));
            QVERIFY2(QString(e.what()).contains("a_1 has a host copy"), e.what());
        }
    }

    // Budgets: the first op that holds more than the machine allows is named.
    void rejectsWhatTheBudgetsDoNotHold_data() {
        QTest::addColumn<qint64>("device");
        QTest::addColumn<qint64>("host");
        QTest::addColumn<qint64>("opIndex");
        QTest::addColumn<QString>("message");
        // offload-all at n = 4: a_1 and a_2 go to host, the device peaks at 5 nodes.
        QTest::newRow("device") << qint64(4) << qint64(-1) << qint64(-2)
                                << "the device holds 5 B (5 bytes), over the device budget 4 B";
        QTest::newRow("host") << qint64(-1) << qint64(1) << qint64(-2)
                              << "the host holds 2 B (2 bytes), over the host budget 1 B";
    }
    void rejectsWhatTheBudgetsDoNotHold() {
        QFETCH(qint64, device);
        QFETCH(qint64, host);
        QFETCH(QString, message);
        const Model m = Model::chain(4);
        Machine machine = unitMachine();
        StrategyParams params;
        params.machine = machine;
        const Schedule s = plan(m, "offload-all", params);
        const Summary fits = Simulator::summarize(m, s, machine);
        QCOMPARE(fits.peakBytes, std::int64_t(5));
        QCOMPARE(fits.peakHostBytes, std::int64_t(2));
        if (device > 0)
            machine.deviceBudgetBytes = device;
        if (host > 0)
            machine.hostBudgetBytes = host;
        try {
            Simulator::summarize(m, s, machine);
            QFAIL("expected InvalidSchedule");
        } catch (const InvalidSchedule &e) {
            QVERIFY2(QString(e.what()).contains(message), e.what());
            // The op named is the first that holds too much.
            QVERIFY(e.opIndex() >= 0);
            machine.deviceBudgetBytes.reset();
            machine.hostBudgetBytes.reset();
            const Replay r =
                Simulator::replay(std::make_shared<const Model>(m), std::make_shared<const Schedule>(s), machine);
            for (std::int64_t t = 0; t < e.opIndex(); ++t) {
                QVERIFY(device < 0 || r.timeline.bytesAt(t) <= device);
                QVERIFY(host < 0 || r.timeline.hostBytesAt(t) <= host);
            }
            QVERIFY(device < 0 || r.timeline.bytesAt(e.opIndex()) > device);
            QVERIFY(host < 0 || r.timeline.hostBytesAt(e.opIndex()) > host);
        }
    }

    // docs/model.md's hand-checked timeline, number by number.
    void docsTimelineIsTheSimulators() {
        const Replay r = docReplay();
        const Timeline &tl = r.timeline;
        const auto &model = tl.model();
        // op, start and end on the compute stream (ms), device and host bytes (MB).
        struct Row {
            const char *op;
            double start, end, device, host;
        };
        const Row expected[] = {
            {"compute a_1", 0, 1, 3, 0},      {"offload a_1", 1, 1, 3, 1.5},   {"compute a_2", 1, 2, 4.5, 1.5},
            {"free a_1", 2.5, 2.5, 3, 1.5},   {"offload a_2", 2.5, 2.5, 3, 3}, {"compute a_3", 2.5, 3.5, 4.5, 3},
            {"free a_2", 4, 4, 3, 3},         {"compute a_4", 4, 5, 4.5, 3},   {"compute b_4", 5, 7, 6, 3},
            {"free a_4", 7, 7, 4.5, 3},       {"prefetch a_2", 7, 7, 6, 3},    {"compute b_3", 7, 9, 7.5, 3},
            {"free a_3", 9, 9, 6, 3},         {"free b_4", 9, 9, 4.5, 3},      {"prefetch a_1", 9, 9, 6, 3},
            {"compute b_2", 9, 11, 7.5, 1.5}, {"free a_2", 11, 11, 6, 1.5},    {"free b_3", 11, 11, 4.5, 1.5},
            {"compute b_1", 11, 13, 6, 0},    {"free a_1", 13, 13, 4.5, 0},    {"free b_2", 13, 13, 3, 0},
            {"compute b_0", 13, 15, 4.5, 0},  {"free b_1", 15, 15, 3, 0},
        };
        QCOMPARE(tl.steps(), std::int64_t(std::size(expected)));
        for (std::int64_t t = 0; t < tl.steps(); ++t) {
            const Row &e = expected[t];
            QCOMPARE(QString::fromStdString(describe(model, tl.op(t))), QString(e.op));
            QVERIFY2(near(tl.startTime(t), e.start * 1e-3) && near(tl.endTime(t), e.end * 1e-3),
                     qPrintable(QString("op %1: %2 .. %3").arg(t).arg(tl.startTime(t)).arg(tl.endTime(t))));
            QCOMPARE(tl.bytesAt(t), std::int64_t(std::llround(e.device * 1e6)));
            QCOMPARE(tl.hostBytesAt(t), std::int64_t(std::llround(e.host * 1e6)));
        }
        // The copy stream: four transfers of 1.5 ms, one after the other.
        const double transfers[][3] = {{1, 1, 2.5}, {2.5, 2.5, 4}, {7, 7, 8.5}, {9, 9, 10.5}}; // issued, start, end
        QCOMPARE(tl.transfers().size(), std::size_t(4));
        for (std::size_t k = 0; k < 4; ++k) {
            QVERIFY(near(tl.transfers()[k].issued, transfers[k][0] * 1e-3));
            QVERIFY(near(tl.transfers()[k].start, transfers[k][1] * 1e-3));
            QVERIFY(near(tl.transfers()[k].end, transfers[k][2] * 1e-3));
        }
        // Two stalls of 0.5 ms in the forward pass, where freeing a_1 and a_2 waits for their copies.
        QCOMPARE(tl.stalls().size(), std::size_t(2));
        QCOMPARE(tl.stalls()[0].step, std::int64_t(3));
        QVERIFY(near(tl.stalls()[0].from, 2e-3) && near(tl.stalls()[0].to, 2.5e-3));
        QCOMPARE(tl.stalls()[0].transfer, 0);
        QCOMPARE(tl.stalls()[1].step, std::int64_t(6));
        QCOMPARE(tl.transfers()[0].waitedAt, std::int64_t(3));
        QCOMPARE(tl.transfers()[2].waitedAt, std::int64_t(15)); // compute b_2 reads the prefetched a_2
        QVERIFY(near(r.summary.computeSeconds, 14e-3));
        QVERIFY(near(r.summary.stallSeconds, 1e-3));
        QVERIFY(near(r.summary.makespanSeconds, 15e-3));
        QVERIFY(near(tl.makespan(), 15e-3));
        QCOMPARE(r.summary.transferBytes, std::int64_t(4 * 1'500'000));
        QCOMPARE(r.summary.offloads, std::int64_t(2));
        QCOMPARE(r.summary.prefetches, std::int64_t(2));
        QCOMPARE(r.summary.peakBytes, std::int64_t(7'500'000));
        QCOMPARE(r.summary.peakHostBytes, std::int64_t(3'000'000));
    }

    // What a player asks of the two streams at any time.
    void playerQuestionsOnTheDocsTimeline() {
        const Replay r = docReplay();
        const Timeline &tl = r.timeline;
        const auto &model = tl.model();
        QVERIFY(tl.timed());
        // 1.5 ms: compute a_2 runs while a_1 is on the link, a third of the way.
        QCOMPARE(tl.computeAt(1.5e-3), std::int64_t(2));
        QCOMPARE(tl.transferAt(1.5e-3), 0);
        QVERIFY(near(tl.transferProgress(0, 1.5e-3), 1.0 / 3));
        // 2.2 ms: the compute stream stalls (free a_1 waits), the link still copies a_1.
        QCOMPARE(tl.computeAt(2.2e-3), std::int64_t(-1));
        QCOMPARE(tl.transferAt(2.2e-3), 0);
        QCOMPARE(tl.stepAtTime(2.2e-3), std::int64_t(2));
        // 4.5 ms: compute a_4 runs, the link is idle.
        QCOMPARE(tl.transferAt(4.5e-3), -1);
        QCOMPARE(tl.computeAt(4.5e-3), std::int64_t(7));
        // Places after the ops, in schedule order.
        const NodeId a1 = model.forwardNode(1), a2 = model.forwardNode(2);
        QCOMPARE(tl.stateAt(1).placeOf(a1), Place::ToHost);
        QCOMPARE(tl.stateAt(1).transferOf(a1), 0);
        QCOMPARE(tl.stateAt(3).placeOf(a1), Place::Host);
        QCOMPARE(tl.stateAt(10).placeOf(a2), Place::ToDevice);
        QCOMPARE(tl.stateAt(10).transferOf(a2), 2);
        QCOMPARE(tl.stateAt(14).placeOf(a2), Place::ToDevice);
        QCOMPARE(tl.stateAt(15).placeOf(a2), Place::Device); // b_2 read it: the host copy went
        QCOMPARE(tl.stateAt(15).placeOf(model.forwardNode(3)), Place::Nowhere);
        QCOMPARE(tl.stateAt(0).placeOf(model.inputNode()), Place::Device);
    }

    // Snapshots carry the host copies: stateAt far from the start agrees with walking.
    void timedStateAtMatchesStepByStep() {
        // a_1 sent to host and back a thousand times: several snapshots' worth of transfers.
        const auto m = std::make_shared<const Model>(Model::chain(2));
        auto s = std::make_shared<Schedule>();
        s->ops = ops(*m, "c a_1");
        for (int k = 0; k < 1000; ++k)
            for (const Op op : ops(*m, "o a_1, f a_1, p a_1"))
                s->ops.push_back(op);
        for (const Op op : ops(*m, "c a_2, c b_2, f a_2, c b_1, f a_1, f b_2, c b_0, f b_1"))
            s->ops.push_back(op);
        const Replay r = Simulator::replay(m, s, unitMachine(0.5));
        QCOMPARE(r.summary.offloads, std::int64_t(1000));
        const Timeline &tl = r.timeline;
        QVERIFY(tl.steps() > 2 * tl.snapshotInterval());
        StepState walk = tl.stateAt(-1);
        for (std::int64_t t = 0; t < tl.steps(); ++t) {
            tl.advance(walk);
            if (t % 97 != 0 && t != tl.steps() - 1)
                continue;
            const StepState at = tl.stateAt(t);
            QCOMPARE(at.resident, walk.resident);
            QVERIFY(at.host == walk.host);
            QCOMPARE(at.lastTransfer, walk.lastTransfer);
            QCOMPARE(at.transfersIssued, walk.transfersIssued);
        }
        // The link runs its transfers one after the other, in issue order.
        const auto &x = tl.transfers();
        for (std::size_t k = 1; k < x.size(); ++k)
            QVERIFY(x[k].start >= x[k - 1].end && x[k].start >= x[k].issued);
        double stalls = 0;
        for (const Stall &st : tl.stalls())
            stalls += st.to - st.from;
        QVERIFY(near(stalls, r.summary.stallSeconds));
        QVERIFY(near(r.summary.makespanSeconds, r.summary.computeSeconds + r.summary.stallSeconds));
    }

    // offload-all on an instant link: store-all's time, and a device peak of
    // a_0, the two nodes b_i reads (a_i, b_{i+1}), b_i itself and one layer
    // in flight (a_{i-1}, prefetched while b_i runs): 5 nodes for n >= 3.
    void offloadAllOnAnInstantLinkIsStoreAllInFiveNodes() {
        for (int n = 1; n <= 40; ++n) {
            const Model m = Model::chain(n);
            StrategyParams params;
            params.machine = infiniteLink();
            const Summary offload = Simulator::summarize(m, plan(m, "offload-all", params), infiniteLink());
            const Summary storeAll = Simulator::summarize(m, plan(m, "store-all"), infiniteLink());
            QCOMPARE(offload.makespanSeconds, storeAll.makespanSeconds);
            QCOMPARE(offload.stallSeconds, 0.0);
            QCOMPARE(offload.cost, storeAll.cost);
            if (n >= 3) {
                QCOMPARE(offload.peakBytes, std::int64_t(5));
                QCOMPARE(offload.offloads, std::int64_t(n - 2)); // a_1..a_{n-2}
                QCOMPARE(offload.peakHostBytes, std::int64_t(n - 2));
            } else {
                QCOMPARE(offload.peakBytes, storeAll.peakBytes); // nothing worth moving
                QCOMPARE(offload.offloads, std::int64_t(0));
            }
        }
    }

    // Untimed timelines answer the same questions on the cost clock.
    void untimedTimelineUsesTheCostClock() {
        const auto m = std::make_shared<const Model>(Model::chain(5));
        const auto s = std::make_shared<const Schedule>(plan(*m, "periodic"));
        const Replay r = Simulator::replay(m, s);
        const Timeline &tl = r.timeline;
        QVERIFY(!tl.timed());
        QVERIFY(tl.transfers().empty() && tl.stalls().empty());
        QCOMPARE(tl.makespan(), tl.totalCost());
        for (std::int64_t t = 0; t < tl.steps(); ++t) {
            QCOMPARE(tl.endTime(t), tl.costUntil(t));
            const Op op = tl.op(t);
            QCOMPARE(tl.endTime(t) - tl.startTime(t), op.kind == OpKind::Compute ? m->cost(op.node) : 0.0);
            QCOMPARE(tl.hostBytesAt(t), std::int64_t(0));
        }
        QCOMPARE(tl.stepAtTime(3.5), tl.stepAtCost(3.5));
        QCOMPARE(tl.stateAt(0).placeOf(m->forwardNode(1)), Place::Device);
        // Timing a schedule without transfers changes none of its counts.
        const Summary timed = Simulator::summarize(*m, *s, unitMachine());
        QCOMPARE(timed.peakBytes, r.summary.peakBytes);
        QCOMPARE(timed.cost, r.summary.cost);
        QCOMPARE(timed.makespanSeconds, r.summary.cost);
        QCOMPARE(timed.stallSeconds, 0.0);
    }

    void refusesAMachineWithoutATimeScale() {
        const Model m = Model::chain(2);
        Machine machine = unitMachine();
        machine.secondsPerCost = 0;
        QVERIFY_THROWS_EXCEPTION(InvalidArgument, Simulator::summarize(m, plan(m, "store-all"), machine));
    }
};

QTEST_GUILESS_MAIN(TestOffloadSimulator)
#include "test_offload_simulator.moc"
