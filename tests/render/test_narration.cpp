// The narration explains every op in words that match the schedule: which
// node is computed or freed, from what, and why a recompute happens.
#include "app/render/narration.h"
#include "app/render/node_appearance.h"
#include "core/simulator.h"
#include "core/strategy_registry.h"

#include <QtTest>

using namespace remat;

namespace {
std::shared_ptr<const Timeline> replay(const std::string &strategy, int n, const StrategyParams &params = {}) {
    auto model = std::make_shared<const Model>(Model::chain(n));
    auto schedule =
        std::make_shared<const Schedule>(StrategyRegistry::builtin().get(strategy).makeSchedule(*model, params));
    return std::make_shared<const Timeline>(Simulator::replay(model, schedule).timeline);
}
bool startsWith(const std::string &s, const std::string &prefix) {
    return s.rfind(prefix, 0) == 0;
}
bool contains(const std::string &s, const std::string &part) {
    return s.find(part) != std::string::npos;
}
} // namespace

class TestNarration : public QObject {
    Q_OBJECT
private slots:
    void everyOpIsExplained_data() {
        QTest::addColumn<QString>("strategy");
        for (const char *s : {"store-all", "recompute-all", "periodic"})
            QTest::newRow(s) << QString(s);
    }

    void everyOpIsExplained() {
        QFETCH(QString, strategy);
        const auto tl = replay(strategy.toStdString(), 16);
        const Model &model = tl->model();
        const auto mask = render::checkpointMask(*tl);
        StepState state = tl->stateAt(-1);
        QVERIFY(contains(render::narrate(*tl, mask, state), "only the input a_0"));
        while (state.step + 1 < tl->steps()) {
            tl->advance(state);
            const Op op = tl->op(state.step);
            const std::string text = render::narrate(*tl, mask, state);
            const std::string name = model.name(op.node);
            QVERIFY2(contains(text, name), text.c_str());
            if (op.kind == OpKind::Free)
                QVERIFY2(startsWith(text, "Freeing " + name), text.c_str());
            else if (model.isBackward(op.node))
                QVERIFY2(contains(text, "omputing " + name + " from "), text.c_str());
            else if (state.computeCount[op.node] == 1)
                QVERIFY2(startsWith(text, "Forward pass: computing " + name), text.c_str());
            else
                QVERIFY2(startsWith(text, "Recomputing " + name) &&
                             contains(text, "which was dropped after the forward pass"),
                         text.c_str());
        }
        QVERIFY(contains(render::narrate(*tl, mask, state), "Done"));
    }

    void recomputeNamesTheBackwardStepThatNeedsIt() {
        // periodic, k = 4 at n = 16: a_15 is recomputed from a_14 for b_15.
        const auto tl = replay("periodic", 16);
        const auto mask = render::checkpointMask(*tl);
        StepState state = tl->stateAt(-1);
        std::string a15, a13;
        while (state.step + 1 < tl->steps()) {
            tl->advance(state);
            const Op op = tl->op(state.step);
            if (op.kind == OpKind::Compute && op.node == 15 && state.computeCount[15] == 2)
                a15 = render::narrate(*tl, mask, state);
            if (op.kind == OpKind::Compute && op.node == 13 && state.computeCount[13] == 2)
                a13 = render::narrate(*tl, mask, state);
        }
        QCOMPARE(QString::fromStdString(a15),
                 QString("Recomputing a_15 from a_14: the next backward step, b_15 from a_15 and b_16, needs a_15, "
                         "which was dropped after the forward pass."));
        QVERIFY2(startsWith(a13, "Recomputing a_13 from checkpoint a_12 on the way to a_15"), a13.c_str());
    }

    void whyResidentForExactlyTheResidentNodes() {
        const auto tl = replay("periodic", 16);
        const auto mask = render::checkpointMask(*tl);
        const Model &model = tl->model();
        for (const std::int64_t step : {std::int64_t{5}, tl->steps() / 2, tl->steps() - 1}) {
            const StepState state = tl->stateAt(step);
            for (NodeId id = 0; id < NodeId(model.nodeCount()); ++id)
                QCOMPARE(render::whyResident(*tl, mask, state, id).empty(), state.resident[id] == 0);
        }
        // In the forward pass a checkpoint says so.
        const StepState forward = tl->stateAt(12);
        QVERIFY(forward.resident[4]);
        QVERIFY(contains(render::whyResident(*tl, mask, forward, 4), "checkpoint"));
    }
};

QTEST_GUILESS_MAIN(TestNarration)
#include "test_narration.moc"
