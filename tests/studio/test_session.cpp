// The studio's session with no window at all (a QCoreApplication: no widget
// can exist): a scenario's panes and the simulator's runs of them, panes
// added, removed and edited with the signals a view builds itself from, the
// link checked before anything changes, model files all or nothing, stale
// background results dropped, Cancel, and a session saved to and restored
// from a settings file.
#include "app/render/op_block_layout.h"
#include "app/studio/player.h"
#include "app/studio/resource_files.h"
#include "app/studio/session.h"
#include "app/studio/settings.h"
#include "core/op_plan.h"
#include "core/strategy_registry.h"
#include "tests/common/op_models.h"

#include <QCoreApplication>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace remat;
using namespace remat::studio;

namespace {

QString example(const char *file) {
    return resourceDirectory(QStringLiteral("models")) + QLatin1Char('/') + QLatin1String(file);
}

PaneConfig config(const std::string &strategy) {
    PaneConfig c;
    c.strategy = strategy;
    return c;
}

// Every pane has its run (a pane planned off the GUI thread has none until its job has started and finished).
bool allRunsThere(const Session &session) {
    for (int i = 0; i < session.paneCount(); ++i)
        if (!session.run(i))
            return false;
    return !session.isSimulating();
}

// The pane's run is the simulator's: the same peak as planning and replaying its config here.
void checkRunIsTheSimulators(const Session &session, int index) {
    QVERIFY(session.run(index));
    const PaneRun direct = simulatePane(session.model(), session.paneConfig(index));
    QCOMPARE(session.run(index)->summary.peakNodes, direct.summary.peakNodes);
    QCOMPARE(session.run(index)->timeline->schedule().ops.size(), direct.timeline->schedule().ops.size());
    QCOMPARE(session.run(index)->model, session.model());
}

// `session` saved to a settings file (less the key `dropped`) and restored into `restored`.
bool savedAndRestored(const Session &session, Session &restored, const char *dropped = nullptr) {
    QTemporaryDir dir;
    QSettings file(dir.filePath("session.ini"), QSettings::IniFormat);
    saveSession(session, file);
    if (dropped)
        file.remove(QLatin1String(dropped));
    return restoreSession(restored, file);
}

} // namespace

class TestSession : public QObject {
    Q_OBJECT
private slots:
    void aScenarioGivesItsPanesAndTheirRuns() {
        Player player;
        Session session(player);
        QSignalSpy added(&session, &Session::paneAdded);
        QSignalSpy runs(&session, &Session::runsChanged);
        const Scenario seed = builtinScenarios().front();
        session.loadScenario(seed);
        QCOMPARE(session.layers(), seed.layers);
        QCOMPARE(session.paneCount(), static_cast<int>(seed.panes.size()));
        QCOMPARE(added.count(), session.paneCount());
        QVERIFY(runs.count() >= 1);
        for (int i = 0; i < session.paneCount(); ++i) {
            QCOMPARE(session.paneConfig(i).strategy, seed.panes[static_cast<std::size_t>(i)].strategy);
            checkRunIsTheSimulators(session, i);
            QCOMPARE(session.trackOf(i), i);
        }
        // The player plays exactly these runs, each on its pane's track.
        QCOMPARE(player.trackCount(), session.paneCount());
        for (const double fraction : {0.3, 1.0}) {
            player.seekTime(fraction * player.endTime());
            for (int i = 0; i < session.paneCount(); ++i)
                QCOMPARE(player.stepOf(session.trackOf(i)),
                         render::stepAtTime(*session.run(i)->timeline, player.time(), player.axis()));
        }
        QVERIFY(player.stepOf(0) != player.stepOf(1)); // store-all has fewer steps: the tracks differ
    }

    // The runtime scenario: dtr with both heuristics beside the budget planner,
    // all within 12 nodes; the runtime's decisions come with its runs, and its
    // heuristic survives a save and a restore.
    void theRuntimeScenarioRunsWithinItsBudget() {
        Player player;
        Session session(player);
        const std::vector<Scenario> all = builtinScenarios();
        const auto runtime =
            std::find_if(all.begin(), all.end(), [](const Scenario &s) { return s.id == QStringLiteral("runtime"); });
        QVERIFY(runtime != all.end());
        session.loadScenario(*runtime);
        QCOMPARE(session.paneCount(), 3);
        QTRY_VERIFY(allRunsThere(session)); // the budget planner plans off the GUI thread
        for (int i = 0; i < session.paneCount(); ++i) {
            checkRunIsTheSimulators(session, i);
            QVERIFY(session.run(i)->summary.peakNodes <= 12);
        }
        QVERIFY(!session.run(0)->timeline->schedule().events.empty());
        QVERIFY(session.run(2)->timeline->schedule().events.empty()); // a plan decides nothing at run time
        QCOMPARE(session.paneConfig(1).params.heuristic.value_or(""), std::string("cost-per-byte"));

        Player otherPlayer;
        Session restored(otherPlayer);
        QVERIFY(savedAndRestored(session, restored));
        QTRY_VERIFY(allRunsThere(restored));
        QCOMPARE(restored.paneConfig(1).params.heuristic.value_or(""), std::string("cost-per-byte"));
        QCOMPARE(restored.run(1)->summary.cost, session.run(1)->summary.cost);
    }

    void panesComeAndGoAndTheLastOneStays() {
        Player player;
        Session session(player);
        session.loadScenario(builtinScenarios().front()); // store-all, recompute-all, periodic
        QSignalSpy added(&session, &Session::paneAdded);
        QSignalSpy removed(&session, &Session::paneRemoved);
        QSignalSpy said(&session, &Session::message);
        QVERIFY(session.addPane(config("revolve")));
        QCOMPARE(added.count(), 1);
        QCOMPARE(added.at(0).at(0).toInt(), 3);
        checkRunIsTheSimulators(session, 3);
        QVERIFY(!session.addPane(config("store-all"))); // a fifth is refused, and said
        QCOMPARE(session.paneCount(), Session::kMaxPanes);
        QCOMPARE(said.count(), 1);
        QVERIFY(said.at(0).at(0).toString().contains(QString::number(Session::kMaxPanes)));

        const auto second = session.run(1);
        session.removePane(0);
        QCOMPARE(removed.count(), 1);
        QCOMPARE(removed.at(0).at(0).toInt(), 0);
        QCOMPARE(session.paneConfig(0).strategy, std::string("recompute-all"));
        QCOMPARE(session.run(0), second); // moved along, not re-simulated
        QCOMPARE(session.trackOf(0), 0);
        QCOMPARE(player.trackCount(), 3);
        while (session.paneCount() > 1)
            session.removePane(session.paneCount() - 1);
        session.removePane(0); // the last pane stays
        QCOMPARE(session.paneCount(), 1);
        session.removePane(7); // out of range: nothing
        QCOMPARE(session.paneCount(), 1);
    }

    void editingAPaneResimulatesThatPaneAlone() {
        Player player;
        Session session(player);
        session.loadScenario(builtinScenarios().front());
        const auto first = session.run(0);
        QSignalSpy configs(&session, &Session::paneConfigChanged);
        QSignalSpy states(&session, &Session::paneStateChanged);
        PaneConfig periodic = config("periodic");
        periodic.params.every = 2;
        session.setPaneConfig(2, periodic);
        QCOMPARE(configs.count(), 1);
        QCOMPARE(configs.at(0).at(0).toInt(), 2);
        QCOMPARE(states.count(), 1);
        QCOMPARE(session.run(0), first);
        QCOMPARE(*session.run(2)->config.params.every, 2);
        checkRunIsTheSimulators(session, 2);

        // A click on a_3 of recompute-all keeps it as a checkpoint, and says what that did.
        QSignalSpy said(&session, &Session::message);
        session.toggleCheckpoint(1, session.model()->forwardNode(3));
        QCOMPARE(session.paneConfig(1).strategy, std::string("checkpoints"));
        const std::vector<int> &kept = *session.paneConfig(1).params.checkpoints;
        QVERIFY(std::find(kept.begin(), kept.end(), 3) != kept.end());
        QCOMPARE(said.count(), 1);
        QVERIFY2(said.at(0).at(0).toString().contains("a_3"), qPrintable(said.at(0).at(0).toString()));
        // The input is no checkpoint to toggle: said, nothing changed.
        const PaneConfig before = session.paneConfig(0);
        session.toggleCheckpoint(0, session.model()->forwardNode(0));
        QCOMPARE(session.paneConfig(0).strategy, before.strategy);
        QVERIFY(said.last().at(0).toString().contains("a_0"));
    }

    void theLinkIsCheckedBeforeAnythingChanges() {
        Player player;
        Session session(player);
        session.loadScenario(builtinScenarios().front());
        const auto run = session.run(0);
        QSignalSpy linkChanged(&session, &Session::linkChanged);
        LinkSettings bad = LinkSettings::defaults();
        bad.machine.link = "fast";
        const QString refused = session.setLink(bad);
        QVERIFY(!refused.isEmpty());
        QVERIFY2(refused.contains("fast"), qPrintable(refused));
        QVERIFY(!session.link().on());
        QCOMPARE(linkChanged.count(), 0);
        QCOMPARE(session.run(0), run);

        QCOMPARE(session.setLink(LinkSettings::defaults()), QString());
        QVERIFY(linkChanged.count() >= 1);
        QCOMPARE(session.link(), LinkSettings::defaults());
        for (int i = 0; i < session.paneCount(); ++i) {
            QVERIFY(session.run(i)->timeline->timed()); // every pane on the link's two streams
            checkRunIsTheSimulators(session, i);
        }
        // Off again: untimed, as before.
        QCOMPARE(session.setLink({}), QString());
        QVERIFY(!session.run(0)->timeline->timed());
    }

    void anOffloadStrategyWithoutALinkGetsTheDefault() {
        Player player;
        Session session(player);
        session.loadScenario(builtinScenarios().front());
        QSignalSpy said(&session, &Session::message);
        QVERIFY(session.addPane(config("offload-all")));
        QCOMPARE(session.link(), LinkSettings::defaults());
        QVERIFY(said.count() >= 1);
        QVERIFY(said.last().at(0).toString().contains("default"));
        QTRY_VERIFY(!session.isSimulating());
        QVERIFY(session.run(3));
        QVERIFY(session.run(3)->timeline->timed());
    }

    void aModelFileOpensInEveryPaneOrNotAtAll() {
        Player player;
        Session session(player);
        session.loadScenario(builtinScenarios().front());
        const auto chain = session.model();

        QTemporaryDir dir;
        const QString broken = dir.filePath("broken.json");
        QFile file(broken);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("{\"format\": \"remat-model\", \"layers\": [");
        file.close();
        QSignalSpy modelChanged(&session, &Session::modelChanged);
        const QString error = session.openModelFile(broken);
        QVERIFY(!error.isEmpty());
        QCOMPARE(modelChanged.count(), 0);
        QCOMPARE(session.model(), chain);
        QVERIFY(session.isChain());

        QCOMPARE(session.openModelFile(example("unet-batch8.json")), QString());
        QCOMPARE(modelChanged.count(), 1);
        QVERIFY(!session.isChain());
        QVERIFY(session.modelName().contains("U-Net"));
        QCOMPARE(session.modelFile(), QFileInfo(example("unet-batch8.json")).absoluteFilePath());
        QCOMPARE(session.layers(), session.model()->layers());
        QTRY_VERIFY_WITH_TIMEOUT(allRunsThere(session), 20000);
        for (int i = 0; i < session.paneCount(); ++i) {
            // A strategy that plans only chains gave way to one that plans the U-Net's graph.
            QVERIFY(StrategyRegistry::builtin().find(session.paneConfig(i).strategy)->worksOnGraphs());
            checkRunIsTheSimulators(session, i);
        }
        // A new n returns to a uniform chain.
        session.setLayers(12);
        QVERIFY(session.isChain());
        QCOMPARE(session.modelFile(), QString());
        QCOMPARE(session.model()->layers(), 12);
    }

    // Opened from File > Open or the command line, a graph or op-level model
    // gets panes that mean something for it, not the chain trio.
    void opLevelAndGraphModelsOpenWithTheirOwnPanes_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QStringList>("strategies");
        QTest::newRow("graph") << "unet-batch8.json" << QStringList{"store-all", "budget", "dtr"};
        QTest::newRow("op level") << "gpt2-2layers-seq1024-ops.json"
                                  << QStringList{"store-all", "per-block", "save-matmuls", "op-budget"};
    }
    void opLevelAndGraphModelsOpenWithTheirOwnPanes() {
        QFETCH(QString, file);
        QFETCH(QStringList, strategies);
        Player player;
        Session session(player);
        session.loadScenario(builtinScenarios().front());
        QCOMPARE(session.openModelFile(example(qPrintable(file))), QString());
        session.useStarterPanes();
        QCOMPARE(session.paneCount(), int(strategies.size()));
        for (int i = 0; i < session.paneCount(); ++i)
            QCOMPARE(QString::fromStdString(session.paneConfig(i).strategy), strategies[i]);
        const bool opLevel = session.model()->isOpLevel();
        const int planned = strategies.indexOf(opLevel ? "op-budget" : "budget");
        // The op-level search takes minutes under the sanitizers; it is tested on its own
        // (test_op_exact): here its budget is checked, the other panes' runs waited for.
        auto othersThere = [&] {
            for (int i = 0; i < session.paneCount(); ++i)
                if (!(opLevel && i == planned) && (session.paneBusy(i) || !session.run(i)))
                    return false;
            return true;
        };
        QTRY_VERIFY_WITH_TIMEOUT(opLevel ? othersThere() : allRunsThere(session), 60000);
        const std::int64_t budget = *session.paneConfig(planned).params.budgetBytes;
        const std::int64_t storeAll = session.run(0)->summary.peakBytes;
        // Halfway between the cheap end (per-block, recompute-all) and store-all's peak.
        QVERIFY(budget < storeAll);
        if (opLevel) {
            QCOMPARE(budget, session.run(1)->summary.peakBytes + (storeAll - session.run(1)->summary.peakBytes) / 2);
            session.cancelSimulation();
        } else {
            QVERIFY(session.run(planned)->summary.peakBytes <= budget);
            QCOMPARE(*session.paneConfig(2).params.budgetBytes, budget);
            QVERIFY(session.run(2)->summary.peakBytes <= budget);
            // The planner starts from dtr's schedule: it never costs more.
            QVERIFY(session.run(planned)->summary.cost <= session.run(2)->summary.cost);
        }
        for (int i = 0; i < session.paneCount(); ++i)
            if (!(opLevel && i == planned))
                checkRunIsTheSimulators(session, i);
        // A bare number is refused on a model whose sizes are bytes, naming both readings.
        const QString refused = session.planForBudget(QStringLiteral("5000000"));
        QVERIFY2(refused.contains("bare number") && refused.contains("5000000 B") && refused.contains("4.77 MiB"),
                 qPrintable(refused));
        // A chain keeps its panes.
        const int before = session.paneCount();
        session.setLayers(12);
        session.useStarterPanes();
        QCOMPARE(session.paneCount(), before);
    }

    void anOpLevelPlanKeepsWhatTheSimulatorHolds() {
        Player player;
        Session session(player);
        session.loadScenario(builtinScenarios().front());
        // Asked of a model that is not op level: one line, nothing added.
        const int before = session.paneCount();
        const QString refused = session.addOpLevelPlan("save-matmuls");
        QVERIFY2(refused.contains("op-level models only"), qPrintable(refused));
        QCOMPARE(session.paneCount(), before);

        QCOMPARE(session.openModelFile(example("gpt2-2layers-seq1024-ops.json")), QString());
        QVERIFY(session.model()->isOpLevel());
        QVERIFY(session.addOpLevelPlan("op-budget", QStringLiteral("lots")).contains("op-level plan takes a budget"));
        QVERIFY(session.addOpLevelPlan("save-matmuls").isEmpty());
        const int index = session.paneCount() - 1;
        QTRY_VERIFY_WITH_TIMEOUT(!session.isSimulating() && session.run(index), 20000);
        checkRunIsTheSimulators(session, index);
        // At the end of the forward pass the simulator holds, in each
        // checkpointed block, exactly the tensors the policy keeps; nothing
        // it re-runs.
        const Model &model = *session.model();
        const OpGraph graph = opGraph(model);
        const KeepSet keep = keepMatmuls(model, graph);
        const Timeline &timeline = *session.run(index)->timeline;
        const StepState state = timeline.stateAt(render::forwardPassEnd(timeline));
        int checkpointed = 0;
        for (std::size_t g = 0; g < graph.groups.size(); ++g) {
            if (!graph.groups[g].selectable || storesGroup(graph, keep, static_cast<int>(g)))
                continue;
            ++checkpointed;
            for (int i : graph.groups[g].nodes)
                QVERIFY2(state.resident[model.forwardNode(i)] == keep[static_cast<std::size_t>(i)],
                         qPrintable(QString::fromStdString(model.label(i))));
        }
        QCOMPARE(checkpointed, 2);

        // A block opens into its ops and closes again; a new model closes it.
        QSignalSpy opened(&session, &Session::openedBlockChanged);
        session.setOpenedBlock(1);
        QCOMPARE(session.openedBlock(), 1);
        session.setOpenedBlock(1);
        QCOMPARE(session.openedBlock(), -1);
        QSignalSpy said(&session, &Session::message);
        session.setOpenedBlock(2); // the model has blocks 0 and 1
        QCOMPARE(session.openedBlock(), -1);
        QVERIFY(said.last().first().toString().contains("does not exist"));
        session.setOpenedBlock(0);
        QCOMPARE(opened.count(), 3);

        // The budget plan of an op-level model is the op-level planner's (on
        // two GPT-2 blocks, whose exact search takes a moment under the
        // sanitizers too).
        QTemporaryDir dir;
        QFile blocks(dir.filePath(QStringLiteral("two-blocks.json")));
        QVERIFY(blocks.open(QIODevice::WriteOnly) && blocks.write(test::twoGpt2BlocksAtOpLevel()) > 0);
        blocks.close();
        QCOMPARE(session.openModelFile(blocks.fileName()), QString());
        while (session.paneCount() >= Session::kMaxPanes)
            session.removePane(0);
        QVERIFY(session.planForBudget(QStringLiteral("1.2 GiB")).isEmpty());
        const int planned = session.paneCount() - 1;
        QCOMPARE(session.paneConfig(planned).strategy, std::string("op-budget"));
        QTRY_VERIFY_WITH_TIMEOUT(!session.isSimulating() && session.run(planned), 60000);
        QVERIFY(session.run(planned)->summary.peakBytes <= (std::int64_t{12} << 30) / 10);
        session.setLayers(8);
        QCOMPARE(session.openedBlock(), -1);
        session.setOpenedBlock(0); // a chain has no blocks: said, not opened
        QCOMPARE(session.openedBlock(), -1);
        QVERIFY(said.last().first().toString().contains("not at op level"));
    }

    // The current pane (the one the Blocks strip shows): the right-most after
    // a scenario or a new pane, kept on the same pane while others go, handed
    // to its neighbour when it goes itself, cycled round, saved and restored.
    void theCurrentPaneFollowsThePanes() {
        Player player;
        Session session(player);
        QSignalSpy changed(&session, &Session::currentPaneChanged);
        session.loadScenario(builtinScenarios().front()); // store-all, recompute-all, periodic
        QCOMPARE(session.currentPane(), 2);
        session.setCurrentPane(0);
        QCOMPARE(session.currentPane(), 0);
        QCOMPARE(changed.last().first().toInt(), 0);
        const int before = changed.count();
        session.setCurrentPane(0);  // no change, no signal
        session.setCurrentPane(3);  // no such pane: ignored
        session.setCurrentPane(-1); // ignored too
        QCOMPARE(session.currentPane(), 0);
        QCOMPARE(changed.count(), before);

        session.cycleCurrentPane(-1); // round the start to the right-most
        QCOMPARE(session.currentPane(), 2);
        session.cycleCurrentPane(1); // round the end to the first
        QCOMPARE(session.currentPane(), 0);
        session.cycleCurrentPane(1);
        QCOMPARE(session.currentPane(), 1);

        QVERIFY(session.addPane(config("revolve"))); // a new pane is the one the user wants to see
        QCOMPARE(session.currentPane(), 3);
        session.setCurrentPane(2); // periodic
        session.removePane(0);     // a pane before it goes: periodic stays current, one to the left
        QCOMPARE(session.currentPane(), 1);
        QCOMPARE(session.paneConfig(session.currentPane()).strategy, std::string("periodic"));
        QCOMPARE(changed.last().first().toInt(), 1);
        session.removePane(2); // a pane after it goes: nothing changes
        QCOMPARE(session.currentPane(), 1);
        session.removePane(1); // the current pane goes: the one in its place (here the new right-most)
        QCOMPARE(session.currentPane(), 0);
        QCOMPARE(session.paneConfig(0).strategy, std::string("recompute-all"));

        // Saved and restored with the panes.
        session.loadScenario(builtinScenarios().front());
        session.setCurrentPane(1);
        Player otherPlayer;
        Session restored(otherPlayer);
        QVERIFY(savedAndRestored(session, restored));
        QCOMPARE(restored.currentPane(), 1);
        // Settings without it (an older version's) give the default.
        Player thirdPlayer;
        Session older(thirdPlayer);
        QVERIFY(savedAndRestored(session, older, "currentPane"));
        QCOMPARE(older.currentPane(), older.paneCount() - 1);
    }

    void aSupersededBackgroundResultIsDropped() {
        Player player;
        Session session(player);
        session.loadScenario(builtinScenarios().front());
        QSignalSpy finished(&session, &Session::simulationFinished);
        // The budget planner always plans off the GUI thread.
        QCOMPARE(session.planForBudget("9 nodes"), QString());
        QCOMPARE(session.paneCount(), 4);
        QVERIFY(session.paneBusy(3));
        QVERIFY(!session.run(3));
        QVERIFY(session.paneStatus(3).contains("budget"));
        QCOMPARE(session.trackOf(3), -1);
        // Changed before the plan arrives: the plan is dropped, the pane shows what was asked last.
        session.setPaneConfig(3, config("store-all"));
        QVERIFY(!session.paneBusy(3));
        checkRunIsTheSimulators(session, 3);
        QVERIFY(finished.wait(20000) || finished.count() == 1);
        QCOMPARE(session.paneConfig(3).strategy, std::string("store-all"));
        QCOMPARE(session.run(3)->config.strategy, std::string("store-all"));
        QCOMPARE(player.trackCount(), 4);

        // A budget that does not read is refused before any pane is added.
        QVERIFY(session.planForBudget("lots").contains("lots"));
        QCOMPARE(session.paneCount(), 4);
    }

    void cancelLeavesTheWaitingPanesSayingSo() {
        Player player;
        Session session(player);
        session.loadScenario(builtinScenarios().front());
        QSignalSpy finished(&session, &Session::simulationFinished);
        QCOMPARE(session.planForBudget("9 nodes"), QString());
        QVERIFY(session.paneBusy(3));
        session.cancelSimulation();
        QVERIFY(!session.paneBusy(3));
        QVERIFY(session.paneStatus(3).contains("cancelled"));
        QVERIFY(finished.wait(20000) || finished.count() == 1);
        QVERIFY(!session.run(3)); // whatever the planner managed is not shown
        QVERIFY(session.paneStatus(3).contains("cancelled"));
    }

    void aSessionIsSavedAndRestored() {
        QTemporaryDir dir;
        const QString path = dir.filePath("session.ini");
        PaneConfig periodic = config("periodic");
        periodic.params.every = 3;
        PaneConfig listed = config("checkpoints");
        listed.params.checkpoints = std::vector<int>{4, 9};
        {
            Player player;
            Session session(player);
            Scenario scenario;
            scenario.layers = 20;
            scenario.panes = {periodic, listed};
            session.loadScenario(scenario);
            QCOMPARE(session.setLink(LinkSettings::defaults()), QString());
            session.setSyncByTime(false);
            session.setSpeed(7);
            QSettings settings(path, QSettings::IniFormat);
            saveSession(session, settings);
        }
        Player player;
        Session restored(player);
        QSignalSpy speed(&restored, &Session::speedChanged);
        QSettings settings(path, QSettings::IniFormat);
        QString modelError;
        QVERIFY(restoreSession(restored, settings, &modelError));
        QCOMPARE(modelError, QString());
        QCOMPARE(restored.layers(), 20);
        QCOMPARE(restored.paneCount(), 2);
        QCOMPARE(restored.paneConfig(0).strategy, std::string("periodic"));
        QCOMPARE(*restored.paneConfig(0).params.every, 3);
        QCOMPARE(*restored.paneConfig(1).params.checkpoints, (std::vector<int>{4, 9}));
        QCOMPARE(restored.link(), LinkSettings::defaults());
        QVERIFY(!restored.syncByTime());
        QCOMPARE(player.axis(), render::TimeAxis::Ops);
        QCOMPARE(restored.speed(), 7.0);
        QCOMPARE(speed.count(), 1);
        for (int i = 0; i < restored.paneCount(); ++i)
            checkRunIsTheSimulators(restored, i);

        // A model file is remembered; one that has gone since leaves the chain and says why.
        QCOMPARE(restored.openModelFile(example("mlp-uniform.json")), QString());
        saveSession(restored, settings);
        {
            Player again;
            Session withFile(again);
            QVERIFY(restoreSession(withFile, settings));
            QCOMPARE(withFile.modelFile(), restored.modelFile());
            QCOMPARE(withFile.modelName(), restored.modelName());
        }
        settings.setValue("model/file", dir.filePath("gone.json"));
        Player third;
        Session withoutFile(third);
        QVERIFY(restoreSession(withoutFile, settings, &modelError));
        QVERIFY2(modelError.contains("gone.json"), qPrintable(modelError));
        QVERIFY(withoutFile.isChain());

        // Settings of another version are not a session: nothing changes.
        QSettings other(dir.filePath("other.ini"), QSettings::IniFormat);
        other.setValue("version", 99);
        other.setValue("model/layers", 5);
        Player fourth;
        Session untouched(fourth);
        QVERIFY(!restoreSession(untouched, other));
        QCOMPARE(untouched.paneCount(), 0);
        QCOMPARE(untouched.layers(), 16);
    }
};

int main(int argc, char **argv) {
    QCoreApplication app(argc, argv); // no widgets: the session needs none
    TestSession test;
    return QTest::qExec(&test, argc, argv);
}

#include "test_session.moc"
