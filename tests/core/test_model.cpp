// The model's structure is what every schedule is checked against: the reads
// of each node must be exactly those of docs/model.md.
#include "core/errors.h"
#include "core/model.h"

#include <QtTest>
#include <algorithm>

using namespace remat;

namespace {
QStringList names(const Model &m, std::span<const NodeId> ids) {
    QStringList out;
    for (NodeId id : ids)
        out << QString::fromStdString(m.name(id));
    out.sort();
    return out;
}
} // namespace

class TestModel : public QObject {
    Q_OBJECT
private slots:
    void chainReads_data() {
        QTest::addColumn<int>("n");
        QTest::addColumn<QString>("node");
        QTest::addColumn<QStringList>("reads");
        QTest::newRow("a_1 from a_0") << 5 << "a_1" << QStringList{"a_0"};
        QTest::newRow("a_5 from a_4") << 5 << "a_5" << QStringList{"a_4"};
        QTest::newRow("b_n from a_n (loss)") << 5 << "b_5" << QStringList{"a_5"};
        QTest::newRow("b_3 from b_4 and a_3") << 5 << "b_3" << QStringList{"a_3", "b_4"};
        QTest::newRow("b_0 from b_1 and a_0") << 5 << "b_0" << QStringList{"a_0", "b_1"};
        QTest::newRow("n = 1: b_0") << 1 << "b_0" << QStringList{"a_0", "b_1"};
    }
    void chainReads() {
        QFETCH(int, n);
        QFETCH(QString, node);
        QFETCH(QStringList, reads);
        const Model m = Model::chain(n);
        const int index = node.mid(2).toInt();
        const NodeId id = node.startsWith('a') ? m.forwardNode(index) : m.backwardNode(index);
        QCOMPARE(QString::fromStdString(m.name(id)), node);
        QCOMPARE(names(m, m.reads(id)), reads);
    }

    void chainSizesAndCosts() {
        ChainSpec spec;
        spec.nodeBytes = 4096;
        spec.forwardCost = 1.5;
        spec.backwardCost = 3;
        spec.forwardWorkspace = 100;
        const Model m = Model::chain(7, spec);
        QCOMPARE(m.layers(), 7);
        QCOMPARE(m.nodeCount(), 16);
        QVERIFY(m.isChain());
        QCOMPARE(m.cost(m.forwardNode(0)), 0.0); // the input is given, never computed
        QCOMPARE(m.cost(m.forwardNode(3)), 1.5);
        QCOMPARE(m.cost(m.backwardNode(3)), 3.0);
        QCOMPARE(m.workspace(m.forwardNode(2)), std::int64_t(100));
        for (NodeId id = 0; id < 16; ++id)
            QCOMPARE(m.bytes(id), std::int64_t(4096));
    }

    void chainRejectsBadSize_data() {
        QTest::addColumn<int>("n");
        QTest::newRow("zero") << 0;
        QTest::newRow("negative") << -3;
        QTest::newRow("too large") << Model::kMaxLayers + 1;
    }
    void chainRejectsBadSize() {
        QFETCH(int, n);
        try {
            Model::chain(n);
            QFAIL("expected InvalidArgument");
        } catch (const InvalidArgument &e) {
            QVERIFY2(QString(e.what()).contains(QString::number(n)), e.what());
        }
    }

    // A residual block: a_2 = f(a_1) and a_3 = g(a_2, a_1). The gradient of a_1
    // needs the gradients of both consumers.
    void dagReads() {
        std::vector<ForwardSpec> specs(4);
        specs[1].inputs = {0};
        specs[2].inputs = {1};
        specs[3].inputs = {2, 1};
        const Model m = Model::fromForward(specs);
        QVERIFY(!m.isChain());
        QCOMPARE(names(m, m.reads(m.forwardNode(3))), (QStringList{"a_1", "a_2"}));
        QCOMPARE(names(m, m.reads(m.backwardNode(1))), (QStringList{"a_1", "b_2", "b_3"}));
        QCOMPARE(names(m, m.reads(m.backwardNode(3))), (QStringList{"a_3"}));
        QCOMPARE(int(m.consumers(1).size()), 2);
    }

    void dagRejectsBadGraphs_data() {
        QTest::addColumn<QList<QList<int>>>("inputs");
        QTest::addColumn<QString>("message");
        QTest::newRow("forward edge") << QList<QList<int>>{{}, {0}, {3}, {2}} << "must be an earlier node";
        QTest::newRow("input with inputs") << QList<QList<int>>{{1}, {0}} << "input node cannot have inputs";
        QTest::newRow("orphan") << QList<QList<int>>{{}, {}, {1}} << "needs at least one input";
        QTest::newRow("duplicate input") << QList<QList<int>>{{}, {0, 0}} << "listed twice";
        QTest::newRow("dead end") << QList<QList<int>>{{}, {0}, {0}} << "feeds no later node";
        QTest::newRow("too small") << QList<QList<int>>{{}} << "at least one layer";
    }
    void dagRejectsBadGraphs() {
        QFETCH(QList<QList<int>>, inputs);
        QFETCH(QString, message);
        std::vector<ForwardSpec> specs(inputs.size());
        for (qsizetype i = 0; i < inputs.size(); ++i)
            specs[i].inputs.assign(inputs[i].begin(), inputs[i].end());
        try {
            Model::fromForward(specs);
            QFAIL("expected InvalidArgument");
        } catch (const InvalidArgument &e) {
            QVERIFY2(QString(e.what()).contains(message), e.what());
        }
    }

    void rejectsNegativeSizes() {
        std::vector<ForwardSpec> specs(2);
        specs[1].inputs = {0};
        specs[1].bytes = 0;
        QVERIFY_THROWS_EXCEPTION(InvalidArgument, Model::fromForward(specs));
        specs[1].bytes = 8;
        specs[1].forwardCost = -1;
        QVERIFY_THROWS_EXCEPTION(InvalidArgument, Model::fromForward(specs));
    }
};

QTEST_GUILESS_MAIN(TestModel)
#include "test_model.moc"
