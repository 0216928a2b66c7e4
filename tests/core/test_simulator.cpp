// The simulator is the judge of every schedule: it must reject each kind of
// invalid schedule with the op index, the op and the node, and count valid ones
// exactly as docs/model.md defines.
#include "core/errors.h"
#include "core/simulator.h"
#include "tests/common/schedule_text.h"

#include <QtTest>

using namespace remat;

namespace {

// "c a_1, f a_0, c b_2" as ops on `m` (c = compute, f = free).
std::vector<Op> ops(const Model &m, const QString &text) {
    return test::opsFromText(m, text);
}

// Store-all for n = 2 written by hand from docs/model.md.
const char *kStoreAll2 = "c a_1, c a_2, c b_2, f a_2, c b_1, f a_1, f b_2, c b_0, f b_1";

} // namespace

class TestSimulator : public QObject {
    Q_OBJECT
private slots:
    void countsAHandWrittenSchedule() {
        ChainSpec spec;
        spec.nodeBytes = 10;
        spec.backwardWorkspace = 3;
        const Model m = Model::chain(2, spec);
        Schedule s;
        s.ops = ops(m, kStoreAll2);
        const Summary sum = Simulator::summarize(m, s);
        // Peak: a_0 a_1 a_2 b_2 resident while b_2 is computed (+ its workspace).
        QCOMPARE(sum.peakNodes, std::int64_t(4));
        QCOMPARE(sum.peakBytes, std::int64_t(4 * 10 + 3));
        QCOMPARE(sum.peakStep, std::int64_t(2));
        QCOMPARE(sum.forwardEvaluations, std::int64_t(2));
        QCOMPARE(sum.recomputations, std::int64_t(0));
        QCOMPARE(sum.backwardOps, std::int64_t(3));
        QCOMPARE(sum.ops, std::int64_t(9));
        QCOMPARE(sum.cost, 2 * 1.0 + 3 * 2.0);
    }

    void countsRecomputations() {
        const Model m = Model::chain(2);
        Schedule s;
        // Drop a_1 after the forward pass, recompute it for b_1.
        s.ops = ops(m, "c a_1, c a_2, f a_1, c b_2, f a_2, c a_1, c b_1, f a_1, f b_2, c b_0, f b_1");
        const Summary sum = Simulator::summarize(m, s);
        QCOMPARE(sum.forwardEvaluations, std::int64_t(3));
        QCOMPARE(sum.recomputations, std::int64_t(1));
        // While b_1 is computed: a_0, a_1 (recomputed), b_2 and b_1.
        QCOMPARE(sum.peakNodes, std::int64_t(4));
    }

    void rejectsInvalidSchedules_data() {
        QTest::addColumn<QString>("schedule");
        QTest::addColumn<qint64>("opIndex");
        QTest::addColumn<QString>("message");
        QTest::newRow("read of a missing node")
            << "c a_1, f a_1, c a_2" << qint64(2) << "op 2 (compute a_2): needs a_1, which is not resident";
        QTest::newRow("gradient needs a dropped activation") << "c a_1, c a_2, f a_1, c b_2, f a_2, c b_1" << qint64(5)
                                                             << "op 5 (compute b_1): needs a_1, which is not resident";
        QTest::newRow("double free") << "c a_1, f a_1, f a_1" << qint64(2)
                                     << "op 2 (free a_1): a_1 is not resident (freed twice)";
        QTest::newRow("free of a node never computed")
            << "f a_2" << qint64(0) << "op 0 (free a_2): a_2 was never computed";
        QTest::newRow("compute of a resident node")
            << "c a_1, c a_1" << qint64(1) << "op 1 (compute a_1): a_1 is already resident";
        QTest::newRow("compute the input") << "c a_0" << qint64(0) << "a_0 is the input batch";
        QTest::newRow("free the input") << "c a_1, f a_0" << qint64(1) << "op 1 (free a_0): a_0 is the input batch";
        QTest::newRow("gradient twice") << "c a_1, c a_2, c b_2, f b_2, c b_2" << qint64(4)
                                        << "op 4 (compute b_2): b_2 was already computed";
        QTest::newRow("free the result") << "c a_1, c a_2, c b_2, c b_1, c b_0, f b_0" << qint64(5)
                                         << "b_0 is the result";
        QTest::newRow("incomplete") << "c a_1, c a_2, c b_2" << qint64(-1)
                                    << "incomplete schedule: b_1 is never computed";
        QTest::newRow("empty") << "" << qint64(-1) << "incomplete schedule: b_2 is never computed";
    }
    void rejectsInvalidSchedules() {
        QFETCH(QString, schedule);
        QFETCH(qint64, opIndex);
        QFETCH(QString, message);
        const Model m = Model::chain(2);
        Schedule s;
        s.ops = ops(m, schedule);
        try {
            Simulator::summarize(m, s);
            QFAIL("expected InvalidSchedule");
        } catch (const InvalidSchedule &e) {
            QVERIFY2(QString(e.what()).contains(message), e.what());
            QCOMPARE(qint64(e.opIndex()), opIndex);
        }
    }

    void rejectsUnknownNodes() {
        const Model m = Model::chain(2);
        Schedule s;
        s.ops = {Op::compute(99)};
        try {
            Simulator::summarize(m, s);
            QFAIL("expected InvalidSchedule");
        } catch (const InvalidSchedule &e) {
            QVERIFY2(QString(e.what()).contains("node #99"), e.what());
            QVERIFY2(QString(e.what()).contains("no such node"), e.what());
        }
    }

    // summarize and replay are one loop; they must agree.
    void replayAgreesWithSummarize() {
        const auto m = std::make_shared<const Model>(Model::chain(2));
        auto s = std::make_shared<Schedule>();
        s->ops = ops(*m, kStoreAll2);
        const Summary a = Simulator::summarize(*m, *s);
        const Replay r = Simulator::replay(m, s);
        QCOMPARE(r.summary.peakBytes, a.peakBytes);
        QCOMPARE(r.summary.cost, a.cost);
        QCOMPARE(r.timeline.steps(), a.ops);
        std::int64_t peak = 0;
        for (std::int64_t t = 0; t < r.timeline.steps(); ++t)
            peak = std::max(peak, r.timeline.bytesAt(t));
        QCOMPARE(peak, a.peakBytes);
    }
};

QTEST_GUILESS_MAIN(TestSimulator)
#include "test_simulator.moc"
