// The stage search's memory bound (core/planners/stage_pressure.h): what a
// state holds beyond a later stage's room is charged at the least cost per
// byte, only for what a stage after that one reads, never for what the caller
// already charges; and freeing an item never raises the bound by more than
// the item's own cost, which the search relies on to cut a branch at the most
// it may keep.
#include "core/planners/stage_pressure.h"

#include <QTest>

#include <random>

using namespace remat::planners;

namespace {

constexpr StageMask bit(int p) { return StageMask{1} << p; }

// Three forward nodes (positions 1..3) and their gradients (4..6); the
// gradient at 4 reads nodes 2 and 3, at 5 nodes 1 and 2, at 6 node 1. Node
// costs 1, 2, 4; outputs 10, 20, 10 bytes; node 2 has 40 bytes of internals
// read by its gradient (position 5).
StagePressureBound::Positions threeNodes(std::int64_t capacity) {
    StagePressureBound::Positions in;
    in.forwardNodes = 3;
    in.positions = 7;
    in.capacity = capacity;
    in.weight = {0, 10, 20, 10, 1, 1, 1};
    in.saved = {0, 0, 40, 0, 0, 0, 0};
    in.workspace.assign(7, 0);
    in.base.assign(7, 0);
    in.cost = {0, 1, 2, 4, 0, 0, 0};
    in.reads = {0, 0, bit(1), bit(2), bit(2) | bit(3), bit(1) | bit(2), bit(1)};
    in.savedNeed = {0, 0, 0, 0, 0, bit(2), 0};
    in.futureReads.assign(8, 0);
    in.futureSaved.assign(8, 0);
    for (int t = 6; t >= 1; --t) {
        in.futureReads[t] = in.futureReads[t + 1] | in.reads[t];
        in.futureSaved[t] = in.futureSaved[t + 1] | in.savedNeed[t];
    }
    return in;
}

} // namespace

class StagePressureTest : public QObject {
    Q_OBJECT
private slots:
    void chargesWhatDoesNotFitAtItsCostPerByte_data() {
        QTest::addColumn<qint64>("capacity");
        QTest::addColumn<double>("expected");
        // At the gradient of node 3 (position 4) the stage holds nodes 2 and
        // 3 and its own output (31 bytes); a later stage reads node 1 (10
        // bytes) and node 2's internals (40 bytes). Node 1 frees 10 bytes for
        // 1 (0.1 a byte), the internals 40 for 2 (0.05 a byte): the
        // internals go first. Node 2's output is read at position 4 itself,
        // so freeing it gives nothing back there.
        QTest::newRow("everything fits") << qint64(81) << 0.0;
        QTest::newRow("20 bytes over: half the internals") << qint64(61) << 1.0;
        QTest::newRow("45 bytes over: the internals and half of node 1") << qint64(36) << 2.5;
        QTest::newRow("more over than there is to free: both") << qint64(30) << 3.0;
    }
    void chargesWhatDoesNotFitAtItsCostPerByte() {
        QFETCH(qint64, capacity);
        QFETCH(double, expected);
        const StagePressureBound bound(threeNodes(capacity));
        QCOMPARE(bound.least(4, bit(1) | bit(2) | bit(3), bit(2), 0), expected);
    }

    void chargesNothingTheCallerCharges() {
        const StagePressureBound bound(threeNodes(41));
        QCOMPARE(bound.least(4, bit(1) | bit(2) | bit(3), bit(2), 0), 2.0);
        // Node 2 already computed again: its internals come back with it.
        QCOMPARE(bound.least(4, bit(1) | bit(2) | bit(3), bit(2), bit(2)), 0.0);
        // Nothing held: nothing to free.
        QCOMPARE(bound.least(4, 0, 0, 0), 0.0);
    }

    void onlyStagesFromTheStateOnCount() {
        const StagePressureBound bound(threeNodes(36));
        // After the gradient of node 3 no stage is over its room.
        QCOMPARE(bound.least(5, bit(1) | bit(2), bit(2), 0), 0.0);
    }

    // On random positions: freeing one item raises the bound by no more than
    // that item's cost falls out of it (the caller then charges the item).
    void freeingAnItemNeverRaisesTheBoundByMoreThanItsCost() {
        std::mt19937 random(7);
        for (int trial = 0; trial < 2000; ++trial) {
            const int n = 2 + static_cast<int>(random() % 6);
            StagePressureBound::Positions in;
            in.forwardNodes = n;
            in.positions = 2 * n + 1;
            in.capacity = 20 + random() % 200;
            const auto V = static_cast<std::size_t>(in.positions);
            in.weight.assign(V, 0);
            in.saved.assign(V, 0);
            in.workspace.assign(V, 0);
            in.base.assign(V, 0);
            in.cost.assign(V, 0);
            in.reads.assign(V, 0);
            in.savedNeed.assign(V, 0);
            for (std::size_t p = 1; p < V; ++p) {
                in.weight[p] = 1 + random() % 40;
                in.workspace[p] = random() % 10;
                for (int q = 1; q <= n && q < static_cast<int>(p); ++q)
                    if (random() % 3 == 0)
                        in.reads[p] |= bit(q);
            }
            for (int p = 1; p <= n; ++p) {
                in.cost[static_cast<std::size_t>(p)] = 1 + random() % 9;
                if (random() % 2)
                    in.saved[static_cast<std::size_t>(p)] = random() % 60;
                in.savedNeed[static_cast<std::size_t>(2 * n + 1 - p)] = in.saved[static_cast<std::size_t>(p)] ? bit(p) : 0;
            }
            in.futureReads.assign(V + 1, 0);
            in.futureSaved.assign(V + 1, 0);
            for (std::size_t t = V - 1; t >= 1; --t) {
                in.futureReads[t] = in.futureReads[t + 1] | in.reads[t];
                in.futureSaved[t] = in.futureSaved[t + 1] | in.savedNeed[t];
            }
            const StagePressureBound bound(in);
            const StageMask all = (bit(n + 1) - 1) & ~StageMask{1};
            const StageMask resident = random() & all, held = random() & all, must = random() & all & ~resident;
            const int t = 1 + static_cast<int>(random() % static_cast<unsigned>(in.positions - 1));
            const double before = bound.least(t, resident, held, must);
            for (int p = 1; p <= n; ++p) {
                if (!((resident | held) & bit(p)) || (must & bit(p)))
                    continue;
                const double after = bound.least(t, resident & ~bit(p), held & ~bit(p), must | bit(p));
                QVERIFY2(after + in.cost[static_cast<std::size_t>(p)] >= before - 1e-9,
                         qPrintable(QString("trial %1, node %2: %3 + %4 < %5")
                                        .arg(trial)
                                        .arg(p)
                                        .arg(after)
                                        .arg(in.cost[static_cast<std::size_t>(p)])
                                        .arg(before)));
            }
        }
    }
};

QTEST_APPLESS_MAIN(StagePressureTest)
#include "test_stage_pressure.moc"
