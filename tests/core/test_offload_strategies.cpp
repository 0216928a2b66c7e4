// Every strategy with and without a link: the ones that move activations
// refuse to plan without one (saying what to give); every schedule, timed on
// a link or not, is valid, and a schedule that moves nothing runs exactly its
// compute. offload-all keeps store-all's compute on chains and graphs, and
// "all" picks the offload strategies only when a link can carry them.
#include "tests/planners/random_models.h"

#include "core/comparison.h"
#include "core/errors.h"
#include "core/planners/dtr_runtime.h"
#include "core/simulator.h"
#include "core/strategy_registry.h"
#include "core/torch_plan.h"

#include <QtTest>
#include <limits>

using namespace remat;

namespace {

Machine machineWith(double bandwidth) {
    Machine m;
    m.link.bytesPerSecond = bandwidth;
    m.link.latencySeconds = 0.25;
    m.secondsPerCost = 1;
    return m;
}

// Parameters each strategy accepts on `model`.
StrategyParams paramsFor(const Strategy &s, const Model &model) {
    StrategyParams p;
    const std::string_view name = s.name();
    if (name == "checkpoints")
        p.checkpoints = model.layers() > 2 ? std::vector<int>{1, model.layers() - 1} : std::vector<int>{};
    else if (name == "revolve")
        p.checkpointSlots = 3;
    else if (name == "budget" || name == "offload-budget")
        p.budgetBytes =
            Simulator::summarize(model, StrategyRegistry::builtin().get("store-all").makeSchedule(model, {})).peakBytes;
    else if (name == "dtr") // the runtime within a budget it always runs in (it evicts on most of these models)
        p.budgetBytes = planners::dtrAssuredBudget(model, false);
    return p;
}

std::vector<std::pair<QString, Model>> models() {
    std::vector<std::pair<QString, Model>> out;
    for (int n : {1, 2, 3, 7, 16})
        out.emplace_back(QString("uniform n=%1").arg(n), Model::chain(n));
    for (unsigned seed : {3u, 8u})
        out.emplace_back(QString("random chain %1").arg(seed), test::randomChain(6, seed));
    out.emplace_back("chain with internals", test::randomChainWithSaved(5, 4));
    out.emplace_back("graph", test::randomGraph(7, 5));
    return out;
}

} // namespace

class TestOffloadStrategies : public QObject {
    Q_OBJECT
private slots:
    void everyStrategyWithAndWithoutALink_data() {
        QTest::addColumn<QString>("strategy");
        for (const Strategy *s : StrategyRegistry::builtin().all())
            QTest::newRow(std::string(s->name()).c_str()) << QString::fromStdString(std::string(s->name()));
    }
    void everyStrategyWithAndWithoutALink() {
        QFETCH(QString, strategy);
        const Strategy &s = StrategyRegistry::builtin().get(strategy.toStdString());
        for (const auto &[label, model] : models()) {
            if ((!model.isChain() && !s.worksOnGraphs()) || (s.needsOpLevel() && !model.isOpLevel()))
                continue;
            StrategyParams params = paramsFor(s, model);
            if (s.usesLink()) {
                try {
                    s.makeSchedule(model, params);
                    QFAIL(qPrintable(label + ": planned without a link"));
                } catch (const InvalidArgument &e) {
                    QVERIFY2(QString(e.what()).contains("--link"), e.what());
                }
            } else {
                const Schedule plain = s.makeSchedule(model, params);
                QVERIFY(!hasTransfers(plain));
                const Summary untimed = Simulator::summarize(model, plain);
                // Timed, a schedule that moves nothing runs exactly its compute.
                const Summary timed = Simulator::summarize(model, plain, machineWith(2));
                QCOMPARE(timed.peakBytes, untimed.peakBytes);
                QCOMPARE(timed.makespanSeconds, untimed.cost);
                QCOMPARE(timed.stallSeconds, 0.0);
            }
            for (double bandwidth : {0.5, 2.0, std::numeric_limits<double>::infinity()}) {
                params.machine = machineWith(bandwidth);
                const Schedule linked = s.makeSchedule(model, params);
                const Summary sum = Simulator::summarize(model, linked, *params.machine); // throws if invalid
                QCOMPARE(sum.backwardOps, std::int64_t(model.forwardCount()));
                QVERIFY2(sum.makespanSeconds >= sum.computeSeconds - 1e-9, qPrintable(label));
                QVERIFY(std::abs(sum.makespanSeconds - sum.computeSeconds - sum.stallSeconds) <= 1e-9);
                if (!s.usesLink())
                    QVERIFY(!hasTransfers(linked));
            }
        }
    }

    // save_on_cpu moves activations, never adds compute: on any graph and any
    // link, offload-all computes what store-all computes, and on an instant
    // link with no latency it takes exactly as long.
    void offloadAllKeepsStoreAllsCompute() {
        for (const auto &[label, model] : models()) {
            StrategyParams params;
            params.machine = machineWith(std::numeric_limits<double>::infinity());
            params.machine->link.latencySeconds = 0;
            const Summary offload = Simulator::summarize(
                model, StrategyRegistry::builtin().get("offload-all").makeSchedule(model, params), *params.machine);
            const Summary storeAll = Simulator::summarize(
                model, StrategyRegistry::builtin().get("store-all").makeSchedule(model, {}), *params.machine);
            QCOMPARE(offload.cost, storeAll.cost);
            QCOMPARE(offload.recomputations, std::int64_t(0));
            QCOMPARE(offload.makespanSeconds, storeAll.makespanSeconds);
            QVERIFY2(offload.peakBytes <= storeAll.peakBytes, qPrintable(label));
        }
    }

    // torch.utils.checkpoint recomputes and never moves a tensor to host:
    // a plan that offloads is not appliable there, and says why.
    void torchCheckpointCannotRunAnOffloadPlan() {
        const Model model = Model::chain(6);
        StrategyParams params;
        params.machine = machineWith(2);
        const Schedule s = StrategyRegistry::builtin().get("offload-all").makeSchedule(model, params);
        std::vector<std::vector<std::string>> modules(static_cast<std::size_t>(model.forwardCount()));
        for (int i = 1; i < model.forwardCount(); ++i)
            modules[static_cast<std::size_t>(i)] = {"layers." + std::to_string(i)};
        const TorchPlan plan = torchPlan(model, s, modules, std::vector<bool>(modules.size(), true));
        QVERIFY(!plan.appliable);
        QVERIFY2(QString::fromStdString(plan.reason).contains("offloads a_1 to host"), plan.reason.c_str());
    }

    void allPicksOffloadStrategiesOnlyWithALink_data() {
        QTest::addColumn<double>("bandwidth"); // < 0: no machine
        QTest::addColumn<bool>("budget");
        QTest::addColumn<QStringList>("offloading");
        QTest::newRow("no link") << -1.0 << true << QStringList{};
        QTest::newRow("0 B/s") << 0.0 << true << QStringList{};
        QTest::newRow("a link") << 1e9 << false << QStringList{"offload-all"};
        QTest::newRow("a link and a budget") << 1e9 << true << QStringList{"offload-all", "offload-budget"};
    }
    void allPicksOffloadStrategiesOnlyWithALink() {
        QFETCH(double, bandwidth);
        QFETCH(bool, budget);
        QFETCH(QStringList, offloading);
        StrategyParams params;
        if (bandwidth >= 0)
            params.machine = machineWith(bandwidth);
        if (budget)
            params.budgetBytes = 1 << 20;
        QStringList picked;
        for (const Strategy *s : selectStrategies("all", params))
            if (s->usesLink())
                picked << QString::fromStdString(std::string(s->name()));
        QCOMPARE(picked, offloading);
    }
};

QTEST_GUILESS_MAIN(TestOffloadStrategies)
#include "test_offload_strategies.moc"
