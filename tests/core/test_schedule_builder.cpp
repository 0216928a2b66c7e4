// insertFrees must release every node as early as possible and no earlier:
// after each op, a resident node is one that will still be read before it is
// computed again (or a_0, b_0).
#include "core/schedule_builder.h"
#include "core/simulator.h"

#include <QtTest>
#include <random>

using namespace remat;

namespace {

// True when `node` is read by some compute op after position `after`, before
// being computed again.
bool readLater(const Model &m, const std::vector<Op> &ops, std::size_t after, NodeId node) {
    for (std::size_t t = after + 1; t < ops.size(); ++t) {
        if (ops[t].kind != OpKind::Compute)
            continue;
        if (ops[t].node == node)
            return false;
        for (NodeId r : m.reads(ops[t].node))
            if (r == node)
                return true;
    }
    return false;
}

// A random but valid compute order on a chain: the backward sweep, with random
// recomputation from a_0 or from a random earlier resident checkpoint.
std::vector<NodeId> randomOrder(const Model &m, std::mt19937 &rng) {
    const int n = m.layers();
    std::vector<NodeId> order;
    for (int i = 1; i <= n; ++i)
        order.push_back(m.forwardNode(i));
    order.push_back(m.backwardNode(n));
    for (int j = n - 1; j >= 0; --j) {
        if (std::uniform_int_distribution<int>(0, 1)(rng))
            for (int i = 1; i <= j; ++i)
                order.push_back(m.forwardNode(i)); // recompute a_1..a_j
        order.push_back(m.backwardNode(j));
    }
    return order;
}

} // namespace

class TestScheduleBuilder : public QObject {
    Q_OBJECT
private slots:
    void freesAsEarlyAsPossible() {
        std::mt19937 rng(7);
        for (int n = 1; n <= 30; ++n) {
            const Model m = Model::chain(n);
            std::vector<NodeId> order = randomOrder(m, rng);
            // A recompute is only valid if the node was released; the random
            // order may ask to recompute a node still held. Keep orders whose
            // schedules validate, which is most of them.
            Schedule s;
            s.ops = insertFrees(m, order);
            try {
                Simulator::summarize(m, s);
            } catch (const std::exception &) {
                continue;
            }
            std::vector<std::uint8_t> resident(m.nodeCount(), 0);
            resident[0] = 1;
            for (std::size_t t = 0; t < s.ops.size(); ++t) {
                resident[s.ops[t].node] = s.ops[t].kind == OpKind::Compute;
                // Check only at the end of each compute op's block of frees.
                if (t + 1 < s.ops.size() && s.ops[t + 1].kind == OpKind::Free)
                    continue;
                for (NodeId id = 0; id < NodeId(m.nodeCount()); ++id) {
                    if (!resident[id] || id == m.inputNode() || id == m.inputGradient())
                        continue;
                    QVERIFY2(readLater(m, s.ops, t, id),
                             qPrintable(QString("n=%1: %2 held after op %3 but never read again")
                                            .arg(n)
                                            .arg(QString::fromStdString(m.name(id)))
                                            .arg(t)));
                }
            }
        }
    }

    void keepsInputAndResult() {
        const Model m = Model::chain(3);
        std::vector<NodeId> order;
        for (int i = 1; i <= 3; ++i)
            order.push_back(m.forwardNode(i));
        for (int i = 3; i >= 0; --i)
            order.push_back(m.backwardNode(i));
        const std::vector<Op> ops = insertFrees(m, order);
        for (const Op &op : ops) {
            QVERIFY(!(op.kind == OpKind::Free && op.node == m.inputNode()));
            QVERIFY(!(op.kind == OpKind::Free && op.node == m.inputGradient()));
        }
        // Every other node is freed exactly once.
        int frees = 0;
        for (const Op &op : ops)
            frees += op.kind == OpKind::Free;
        QCOMPARE(frees, m.nodeCount() - 2);
    }

    void releasesAnOutputNobodyReads() {
        const Model m = Model::chain(2);
        // a_1 computed, then computed again: the first copy is read by nobody
        // (the recompute makes it dead), so it must be freed right away.
        const std::vector<Op> ops = insertFrees(m, {m.forwardNode(1), m.forwardNode(1), m.forwardNode(2),
                                                    m.backwardNode(2), m.backwardNode(1), m.backwardNode(0)});
        QCOMPARE(ops[0], Op::compute(m.forwardNode(1)));
        QCOMPARE(ops[1], Op::free(m.forwardNode(1)));
    }
};

QTEST_GUILESS_MAIN(TestScheduleBuilder)
#include "test_schedule_builder.moc"
