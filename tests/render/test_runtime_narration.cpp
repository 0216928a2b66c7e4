// dtr's decisions on screen and in GIF frames: the narration and the
// eviction mark say what the runtime recorded (Schedule::events), with its
// own numbers, and nothing is marked for strategies that decide nothing.
#include "app/render/narration.h"
#include "app/render/node_appearance.h"
#include "app/render/runtime_narration.h"
#include "core/simulator.h"
#include "core/strategy_registry.h"
#include "core/units.h"

#include <QtTest>

using namespace remat;

namespace {
std::shared_ptr<const Timeline> replay(const std::string &strategy, const Model &m, const StrategyParams &params) {
    auto model = std::make_shared<const Model>(m);
    auto schedule =
        std::make_shared<const Schedule>(StrategyRegistry::builtin().get(strategy).makeSchedule(*model, params));
    return std::make_shared<const Timeline>(Simulator::replay(model, schedule).timeline);
}
StrategyParams nodes(std::int64_t n) {
    StrategyParams p;
    p.budgetNodes = n;
    return p;
}
bool contains(const std::string &s, const std::string &part) {
    return s.find(part) != std::string::npos;
}
// The first compute after op `t`.
std::int64_t nextCompute(const Timeline &tl, std::int64_t t) {
    while (tl.op(t).kind != OpKind::Compute)
        ++t;
    return t;
}
} // namespace

class TestRuntimeNarration : public QObject {
    Q_OBJECT
private slots:
    void evictionIsSaidWithItsCountedTerms_data() {
        QTest::addColumn<QString>("heuristic");
        QTest::newRow("h_DTR weighs idle time") << "dtr";
        QTest::newRow("c/m does not") << "cost-per-byte";
    }
    void evictionIsSaidWithItsCountedTerms() {
        QFETCH(QString, heuristic);
        StrategyParams params = nodes(5);
        params.heuristic = heuristic.toStdString();
        const auto tl = replay("dtr", Model::chain(8), params);
        const Model &model = tl->model();
        const auto &events = tl->schedule().events;
        const auto evict = std::find_if(events.begin(), events.end(),
                                        [](const RuntimeEvent &e) { return e.kind == RuntimeEvent::Kind::Evict; });
        QVERIFY(evict != events.end());
        const std::string weighed = model.name(evict->node) + " (cost " + formatCost(evict->cost) + ", size 1";
        const std::string terms = heuristic == "dtr" ? weighed + ", idle " + std::to_string(evict->idleOps) +
                                                           (evict->idleOps == 1 ? " op" : " ops") + ": lowest h_DTR)"
                                                     : weighed + ": lowest c/m)";
        const std::string full = "memory full at " + std::to_string(evict->heldNodes) + " nodes";
        const std::string expected = "evicted " + terms + ", " + full;
        // Shown with the compute it made room for (a cost-synced animation skips the free itself).
        const std::int64_t forOp = nextCompute(*tl, evict->op);
        const StepState state = tl->stateAt(forOp);
        QCOMPARE(QString::fromStdString(render::runtimeStatus(*tl, forOp)), QString::fromStdString(expected));
        const auto mask = render::checkpointMask(*tl);
        const std::string said = render::narrate(*tl, mask, state);
        QVERIFY2(said.rfind("Memory full at 5 nodes: evicted " + terms + ".", 0) == 0, said.c_str());
        QVERIFY2(contains(said, "Forward pass: computing " + model.name(tl->op(forOp).node)), said.c_str());
        // At the free itself, in the present tense.
        const std::string atFree = render::narrate(*tl, mask, tl->stateAt(evict->op));
        QVERIFY2(contains(atFree, "evicting " + model.name(evict->node)), atFree.c_str());

        // The evicted node is marked while that compute is shown; no other node is.
        for (NodeId id = 0; id < static_cast<NodeId>(model.nodeCount()); ++id)
            QCOMPARE(render::appearanceOf(*tl, mask, state, id).evicted, id == evict->node);
    }

    void rematerializationSaysForWhomAndHowDeep() {
        const auto tl = replay("dtr", Model::chain(8), nodes(5));
        const Model &model = tl->model();
        const auto mask = render::checkpointMask(*tl);
        int deep = 0;
        for (const RuntimeEvent &e : tl->schedule().events) {
            if (e.kind != RuntimeEvent::Kind::Rematerialize)
                continue;
            const std::string said = render::narrate(*tl, mask, tl->stateAt(e.op));
            QVERIFY2(contains(said, "Rematerializing " + model.name(e.node) + " on demand: " + model.name(e.neededBy) +
                                        " needs it"),
                     said.c_str());
            if (e.depth > 1) {
                ++deep;
                QVERIFY2(contains(said, "depth " + std::to_string(e.depth)), said.c_str());
                QVERIFY(contains(render::runtimeStatus(*tl, e.op), "(depth " + std::to_string(e.depth) + ")"));
            }
        }
        QVERIFY(deep > 0);
    }

    void plannedSchedulesShowNoDecisions() {
        const auto tl = replay("budget", Model::chain(8), nodes(5));
        const auto mask = render::checkpointMask(*tl);
        for (std::int64_t t = 0; t < tl->steps(); ++t) {
            QVERIFY(render::runtimeStatus(*tl, t).empty());
            QVERIFY(render::evictionsFor(*tl, t).empty());
        }
        const StepState end = tl->stateAt(tl->steps() - 1);
        for (NodeId id = 0; id < static_cast<NodeId>(tl->model().nodeCount()); ++id)
            QVERIFY(!render::appearanceOf(*tl, mask, end, id).evicted);
    }
};

QTEST_GUILESS_MAIN(TestRuntimeNarration)
#include "test_runtime_narration.moc"
