// The op-level planner (docs/planners.md, "Op level"): its optimum equals an
// exhaustive search whose every plan the simulator counts; its predicted peak
// is the simulator's; the op-level curve is never above the block-level one;
// plans that cannot run are refused with the node named.
#include "core/errors.h"
#include "core/model_io.h"
#include "core/op_plan.h"
#include "core/planners/op_exact.h"
#include "core/simulator.h"
#include "random_op_models.h"
#include "tests/common/sanitized_sample.h"

#include <QTest>

#include <optional>
#include <random>

using namespace remat;
using remat::test::OpModel;
using remat::test::randomOpModel;

namespace {

std::vector<std::int64_t> budgets(std::int64_t from, std::int64_t to) {
    std::vector<std::int64_t> out;
    for (std::int64_t b = from; b <= to; ++b)
        out.push_back(b);
    return out;
}

} // namespace

class OpExactTest : public QObject {
    Q_OBJECT
    // The planner's least peak and its plan at every budget from there to
    // store-all's: proven, and what exhaustive search finds.
    void provesEveryBudgetAsExhaustiveSearch(const OpModel &m, const OpPlanner &planner, unsigned seed) {
        const std::int64_t least = planner.minimumPeakBytes(), most = planner.storeAllPeakBytes();
        QVERIFY2(planner.minimumPeakProven(), qPrintable(QString("seed %1").arg(seed)));
        QVERIFY2(!exhaustiveOpPlan(m.model, m.graph, least - 1, false), qPrintable(QString("seed %1").arg(seed)));
        for (std::int64_t budget : budgets(least, most)) {
            const QString at = QString("seed %1 budget %2").arg(seed).arg(budget);
            const auto reference = exhaustiveOpPlan(m.model, m.graph, budget, false);
            QVERIFY2(reference, qPrintable(at));
            const auto solved = planner.plan(budget);
            QVERIFY2(solved && solved->exact, qPrintable(at));
            QVERIFY2(solved->recomputeCost == reference->recomputeCost,
                     qPrintable(at + QString(": %1, exhaustive search %2")
                                         .arg(solved->recomputeCost)
                                         .arg(reference->recomputeCost)));
            QCOMPARE(Simulator::summarize(m.model, opSchedule(m.model, m.graph, solved->keep, "")).peakBytes,
                     solved->predictedPeakBytes);
        }
    }

private slots:
    void statedSavesDecideWhatGradientsRead() {
        // 0 -> 1 (keeps nothing, an add) -> 2 (keeps its output, a softmax) -> 3 (keeps its input)
        std::vector<ForwardSpec> specs(4);
        for (int i = 1; i < 4; ++i) {
            specs[i].inputs = {i - 1};
            specs[i].savesGiven = true;
        }
        specs[2].savesOutput = true;
        specs[3].savedInputs = {2};
        const Model m = Model::fromForward(specs);
        const auto reads = [&](int i) {
            const auto r = m.reads(m.backwardNode(i));
            return std::vector<NodeId>(r.begin(), r.end());
        };
        QCOMPARE(reads(0), (std::vector<NodeId>{m.backwardNode(1)}));                   // the add kept nothing
        QCOMPARE(reads(1), (std::vector<NodeId>{m.forwardNode(2), m.backwardNode(2)})); // softmax's output
        QCOMPARE(reads(2), (std::vector<NodeId>{m.forwardNode(2), m.backwardNode(3)})); // the product's input
        QCOMPARE(reads(3), (std::vector<NodeId>{m.forwardNode(3)}));                    // the loss
        specs[3].savedInputs = {0};
        QVERIFY_THROWS_EXCEPTION(InvalidArgument, Model::fromForward(specs));
    }

    void modelFilesStateOpsAndSaves() {
        const std::string good = R"({"nodes": [{"name": "x", "bytes": 4},
            {"name": "mm", "bytes": 8, "module": "b", "op": "aten::mm", "saves": ["x"]},
            {"name": "add", "bytes": 8, "module": "b", "op": "aten::add", "saves": []},
            {"name": "soft", "bytes": 8, "module": "b", "op": "aten::_softmax", "saves": ["output"]}]})";
        const ModelFile f = parseModelJson(good, "ops.json");
        QCOMPARE(f.ops[1], std::string("aten::mm"));
        QVERIFY(f.model.savesInput(1, 0) && !f.model.savesInput(2, 1) && f.model.savesOutput(3));
        QCOMPARE(opGraph(f).groups.size(), std::size_t{2});
        const auto refused = [](const std::string &text, const std::string &fragment) {
            try {
                parseModelJson(text, "bad.json");
            } catch (const InvalidArgument &e) {
                return std::string(e.what()).find(fragment) != std::string::npos;
            }
            return false;
        };
        QVERIFY(refused(R"({"nodes": [{"name": "x", "bytes": 4}, {"name": "y", "bytes": 4, "saves": ["z"]}]})",
                        "/nodes/1/saves: \"z\" is not an input of \"y\""));
        QVERIFY(
            refused(R"({"nodes": [{"name": "x", "bytes": 4}, {"name": "y", "bytes": 4, "op": 3}]})", "/nodes/1/op"));
        QVERIFY(refused(R"({"nodes": [{"name": "x", "bytes": 4, "saves": []}, {"name": "y", "bytes": 4}]})",
                        "/nodes/0/saves"));
        // A block-level file is not op level: one line, naming what to do.
        QVERIFY_THROWS_EXCEPTION(InvalidArgument, opGraph(parseModelJson(R"({"nodes": [{"name": "x", "bytes": 4},
            {"name": "y", "bytes": 4, "module": "m"}]})",
                                                                         "blocks.json")));
    }

    void plannerEqualsExhaustiveSearch() {
        for (unsigned seed = 1; seed <= 60; ++seed) {
            const OpModel m = randomOpModel(seed % 3 == 0 ? 3 : 2, seed % 2 == 0 ? 4 : 3, seed);
            for (bool blockLevel : {false, true}) {
                OpPlannerOptions options;
                options.blockLevel = blockLevel;
                const OpPlanner planner(m.model, m.graph, options);
                QVERIFY(planner.exact());
                const std::int64_t least = planner.minimumPeakBytes(), most = planner.storeAllPeakBytes();
                QVERIFY2(!exhaustiveOpPlan(m.model, m.graph, least - 1, blockLevel),
                         qPrintable(QString("seed %1").arg(seed)));
                for (std::int64_t budget : budgets(least, most)) {
                    const auto dp = planner.plan(budget);
                    const auto reference = exhaustiveOpPlan(m.model, m.graph, budget, blockLevel);
                    QVERIFY2(dp && reference, qPrintable(QString("seed %1 budget %2").arg(seed).arg(budget)));
                    QCOMPARE(dp->recomputeCost, reference->recomputeCost);
                    const Summary counted = Simulator::summarize(m.model, opSchedule(m.model, m.graph, dp->keep, ""));
                    QCOMPARE(counted.peakBytes, dp->predictedPeakBytes);
                    QVERIFY(counted.peakBytes <= budget);
                }
            }
        }
    }

    // A tensor made before the blocks and read by every block (RoBERTa's
    // additive mask, Llama's rotary tables): its life, and that of what its
    // backward reads of later blocks, spans blocks a block's neighbourhood
    // does not see, so the search does not call its count exact there; the
    // op-level MILP, whose rows are the simulator's count, plans and proves.
    void aTensorEveryBlockReadsFromBeforeTheBlocks() {
        for (unsigned seed = 1; seed <= 80; ++seed) {
            if (!test::caseRuns(seed))
                continue;
            const OpModel m = randomOpModel(3 + seed % 3, seed % 4 == 0 ? 2 : 3, seed, true);
            OpPlannerOptions searchOnly;
            searchOnly.solverEffort = 0;
            const OpPlanner search(m.model, m.graph, searchOnly), planner(m.model, m.graph);
            QVERIFY(!search.exact());
            QVERIFY(search.inexactReason().find("reads") != std::string::npos);
            provesEveryBudgetAsExhaustiveSearch(m, planner, seed);
            if (QTest::currentTestFailed())
                return;
        }
    }

    // There the enumeration's plans only start the MILP: it searches with a
    // hundredth of the effort (as a search alone given that hundredth), and
    // every plan is still proven, by the MILP.
    void whereItCannotBeExactTheEnumerationOnlyStartsTheSolver() {
        int narrower = 0;
        for (unsigned seed = 1; seed <= 10; ++seed) {
            if (!test::caseRuns(seed))
                continue;
            const OpModel m = randomOpModel(3, 9 + static_cast<int>(seed % 3), seed, true);
            OpPlannerOptions seeded, searchOnly, hundredth;
            seeded.effort = searchOnly.effort = 200'000;
            searchOnly.solverEffort = hundredth.solverEffort = 0;
            hundredth.effort = seeded.effort / kSeedShareOfEffort;
            const OpPlanner planner(m.model, m.graph, seeded), alone(m.model, m.graph, searchOnly),
                share(m.model, m.graph, hundredth);
            QVERIFY(!alone.exact());
            QCOMPARE(planner.replayedOps(), share.replayedOps());
            narrower += planner.replayedOps() < alone.replayedOps();
            const std::int64_t least = planner.minimumPeakBytes(), most = planner.storeAllPeakBytes();
            for (int k = 0; k <= 6; ++k) {
                const std::int64_t budget = least + (most - least) * k / 6;
                const auto plan = planner.plan(budget);
                QVERIFY(plan);
                QVERIFY2(plan->exact, qPrintable(QString("seed %1 budget %2").arg(seed).arg(budget)));
                QCOMPARE(Simulator::summarize(m.model, opSchedule(m.model, m.graph, plan->keep, "")).peakBytes,
                         plan->predictedPeakBytes);
                QVERIFY(plan->predictedPeakBytes <= budget);
            }
        }
        QVERIFY2(narrower >= test::sampledCount(5), "the hundredth narrowed too few searches to show the rule");
    }

    // A tensor that skips a block (a mask every other layer reads, a long
    // skip from two blocks back, an encoder's output made between the blocks
    // and read by every later one) is in no single block's neighbourhood: the
    // op-level MILP plans the model whole, and its plans are the least that
    // exhaustive search finds, at every budget, counted as the simulator does.
    void aTensorThatSkipsABlock() {
        int wholeModel = 0;  // models no block's neighbourhood holds
        int madeBetween = 0; // of those, by an encoder's output made between the blocks
        for (unsigned seed = 1; seed <= 60; ++seed) {
            if (!test::caseRuns(seed))
                continue;
            const OpModel m = randomOpModel(3 + seed % 2, seed % 3 == 0 ? 2 : 3, seed, seed % 2 == 0, true);
            const OpPlanner planner(m.model, m.graph);
            QVERIFY(!planner.exact());
            wholeModel += planner.inexactReason().find("not searched one by one") != std::string::npos;
            madeBetween += planner.inexactReason().find("nothing in its group") != std::string::npos;
            provesEveryBudgetAsExhaustiveSearch(m, planner, seed);
            if (QTest::currentTestFailed())
                return;
        }
        QVERIFY2(wholeModel >= test::sampledCount(20) && madeBetween >= test::sampledCount(5),
                 qPrintable(QString("%1 of the models planned whole, %2 for a tensor made between the blocks")
                                .arg(wholeModel)
                                .arg(madeBetween)));
    }

    // Below the least peak, the refusal calls it the least only where it is
    // proven: not with the MILP off on a model planned whole.
    void aLeastPeakNotProvenIsNotCalledTheLeast() {
        const OpModel m = randomOpModel(4, 3, 2, true, true);
        OpPlannerOptions noSolver;
        noSolver.solverEffort = 0;
        const OpPlanner guess(m.model, m.graph, noSolver), solved(m.model, m.graph);
        QVERIFY(!guess.minimumPeakProven());
        QVERIFY(solved.minimumPeakProven());
        const std::string guessed = guess.noPlanMessage("1B"), proven = solved.noPlanMessage("1B");
        QVERIFY2(guessed.find("not proven the least") != std::string::npos, guessed.c_str());
        QVERIFY2(proven.find("any op-level plan reaches, ") != std::string::npos, proven.c_str());
        QVERIFY(!guess.plan(1) && !solved.plan(1));
    }

    void opCurveNeverAboveBlockCurve() {
        for (unsigned seed = 30; seed < 40; ++seed) {
            const OpModel m = randomOpModel(3, 4, seed);
            OpPlannerOptions blockOnly;
            blockOnly.blockLevel = true;
            const OpPlanner op(m.model, m.graph), block(m.model, m.graph, blockOnly);
            QVERIFY(op.minimumPeakBytes() <= block.minimumPeakBytes());
            QCOMPARE(op.storeAllPeakBytes(), block.storeAllPeakBytes());
            for (std::int64_t budget : budgets(op.minimumPeakBytes(), op.storeAllPeakBytes())) {
                const auto b = block.plan(budget);
                const auto o = op.plan(budget);
                QVERIFY(o);
                if (b)
                    QVERIFY(o->recomputeCost <= b->recomputeCost);
            }
        }
    }

    void namedPoliciesRunAndAreClosed() {
        const OpModel m = randomOpModel(3, 4, 7);
        for (const KeepSet &keep :
             {keepEverything(m.graph), keepBlockOutputs(m.graph), keepMatmuls(m.model, m.graph)}) {
            QCOMPARE(keepSetProblem(m.model, m.graph, keep), std::string());
            Simulator::summarize(m.model, opSchedule(m.model, m.graph, keep, ""));
        }
        QCOMPARE(recomputeCost(m.model, m.graph, keepEverything(m.graph)), 0.0);
    }

    void plansThatCannotRunAreRefused() {
        const OpModel m = randomOpModel(2, 3, 5);
        KeepSet keep = keepBlockOutputs(m.graph);
        keep[3] = 0; // the first block's output
        QVERIFY_THROWS_EXCEPTION(InvalidArgument, opSchedule(m.model, m.graph, keep, ""));
        QVERIFY(keepSetProblem(m.model, m.graph, keep).find("output of block block0") != std::string::npos);
        keep = keepBlockOutputs(m.graph);
        keep[7] = 0; // the head, outside any block
        QVERIFY(keepSetProblem(m.model, m.graph, keep).find("outside any block") != std::string::npos);
        QVERIFY(keepSetProblem(m.model, m.graph, KeepSet(3, 1)).find("model has 8") != std::string::npos);
    }

    void opsBeforeAndAfterTheBlocksAreOneGroupEach() {
        // A language model's shape: position ids (a constant) and two
        // embeddings summed before the blocks (node 1 feeds node 3, two nodes
        // on); the head, a copy of the labels (from the input) and the loss
        // after them.
        const std::vector<std::vector<int>> inputs{{},  {0}, {0},    {1}, {2, 3}, {4},     {5, 4},
                                                   {6}, {7}, {7, 8}, {9}, {0},    {10, 11}};
        std::vector<ForwardSpec> specs(inputs.size());
        for (std::size_t i = 0; i < specs.size(); ++i) {
            specs[i].bytes = 2 + static_cast<std::int64_t>(i % 3);
            specs[i].gradBytes = specs[i].bytes;
            specs[i].forwardCost = 1 + static_cast<double>(i % 2);
            specs[i].inputs = inputs[i];
            specs[i].savesGiven = true;
            if (i >= 5 && i <= 9)
                specs[i].savedInputs = {inputs[i][0]};
        }
        for (int i : {0, 1, 3, 11})
            specs[static_cast<std::size_t>(i)].gradBytes = 1; // no gradient flows into them
        const std::vector<std::string> modules{"", "", "", "", "", "b0", "b0", "b1", "b1", "b1", "", "", ""};
        const Model model = Model::fromForward(specs);
        const OpGraph graph = opGraph(model, modules, std::vector<std::string>(specs.size(), "aten::add"));
        QCOMPARE(graph.groups.size(), std::size_t{5});
        QCOMPARE(graph.groups[1].nodes, (std::vector<int>{1, 2, 3, 4}));
        QCOMPARE(graph.groups[4].nodes, (std::vector<int>{10, 11, 12}));
        QVERIFY(!graph.groups[1].selectable && !graph.groups[4].selectable);
        const OpPlanner planner(model, graph);
        QVERIFY(planner.minimumPeakBytes() < planner.storeAllPeakBytes());
        for (std::int64_t budget : budgets(planner.minimumPeakBytes(), planner.storeAllPeakBytes())) {
            const auto dp = planner.plan(budget);
            const auto reference = exhaustiveOpPlan(model, graph, budget, false);
            QVERIFY2(dp && reference, qPrintable(QString("budget %1").arg(budget)));
            QCOMPARE(dp->recomputeCost, reference->recomputeCost);
            QCOMPARE(Simulator::summarize(model, opSchedule(model, graph, dp->keep, "")).peakBytes,
                     dp->predictedPeakBytes);
        }
    }

    void shippedGpt2LayersAtOpLevel() {
        // The traced example: 12 layers of 24 op nodes; searched over 8 nodes
        // a layer here (the full search is bench/op_level.sh's).
        const ModelFile f = loadModelFile(std::string(qgetenv("REMAT_SOURCE_DIR").constData()) +
                                          "/resources/models/gpt2-layers-seq1024-ops-traced.json");
        const OpGraph graph = opGraph(f);
        QCOMPARE(graph.groups.size(), std::size_t{13});
        OpPlannerOptions options, blockOnly;
        options.maxEnumerated = 8;
        options.solverEffort = 0; // the enumeration's plans; the MILP's on these layers are test_op_milp's
        blockOnly.blockLevel = true;
        const OpPlanner op(f.model, graph, options), block(f.model, graph, blockOnly);
        const std::int64_t storeAll = op.storeAllPeakBytes();
        for (int k = 1; k <= 4; ++k) {
            const auto o = op.plan(storeAll * k / 5), b = block.plan(storeAll * k / 5);
            QVERIFY(o && b);
            QVERIFY(o->recomputeCost <= b->recomputeCost);
            QCOMPARE(Simulator::summarize(f.model, opSchedule(f.model, graph, o->keep, "")).peakBytes,
                     o->predictedPeakBytes);
        }
        // Keeping the matrix products halves the memory for a small part of the
        // compute per-block checkpointing pays.
        const KeepSet matmuls = keepMatmuls(f.model, graph);
        QVERIFY(Simulator::summarize(f.model, opSchedule(f.model, graph, matmuls, "")).peakBytes < storeAll * 6 / 10);
        QVERIFY(recomputeCost(f.model, graph, matmuls) * 20 < recomputeCost(f.model, graph, keepBlockOutputs(graph)));
    }

    void shippedGpt2SmallWithEmbeddingsAndLoss() {
        // The whole model as trained: token ids in, the embeddings before the
        // layers and the head and loss after them, each one always-kept group.
        const ModelFile f = loadModelFile(std::string(qgetenv("REMAT_SOURCE_DIR").constData()) +
                                          "/resources/models/gpt2-small-seq1024-ops-traced.json");
        const OpGraph graph = opGraph(f);
        QCOMPARE(graph.groups.size(), std::size_t{15}); // the input, the embeddings, 12 layers, the head and loss
        QCOMPARE(graph.groups[1].nodes.size(), std::size_t{6});
        QCOMPARE(graph.groups[14].nodes.size(), std::size_t{4});
        QVERIFY(!graph.groups[1].selectable && !graph.groups[14].selectable);
        OpPlannerOptions options;
        options.maxEnumerated = 8;
        options.solverEffort = 0;
        const OpPlanner op(f.model, graph, options);
        const auto half = op.plan(op.storeAllPeakBytes() / 2);
        QVERIFY(half);
        QCOMPARE(Simulator::summarize(f.model, opSchedule(f.model, graph, half->keep, "")).peakBytes,
                 half->predictedPeakBytes);
        QVERIFY(half->predictedPeakBytes <= op.storeAllPeakBytes() / 2);
    }

    // Beyond the enumeration the plan says so; the op-level MILP then
    // proves it, equal to exhaustive search.
    void aBlockTooLargeToSearchSaysSo() {
        const OpModel m = randomOpModel(2, 6, 9);
        OpPlannerOptions options;
        options.maxEnumerated = 3;
        options.solverEffort = 0;
        const OpPlanner planner(m.model, m.graph, options);
        QVERIFY(!planner.exact());
        QVERIFY(planner.inexactReason().find("block0") != std::string::npos);
        const auto plan = planner.plan(planner.storeAllPeakBytes());
        QVERIFY(plan && !plan->exact);
        QVERIFY(plan->proof(planner.inexactReason()).find("gap not bounded") != std::string::npos);
        options.solverEffort = kDefaultOpSolverEffort;
        const OpPlanner solved(m.model, m.graph, options);
        QVERIFY(!solved.exact());
        const std::int64_t least = solved.minimumPeakBytes();
        QVERIFY(solved.minimumPeakProven());
        QVERIFY(!exhaustiveOpPlan(m.model, m.graph, least - 1));
        for (std::int64_t budget : budgets(least, solved.storeAllPeakBytes())) {
            const auto p = solved.plan(budget);
            QVERIFY(p && p->exact);
            QCOMPARE(p->recomputeCost, exhaustiveOpPlan(m.model, m.graph, budget)->recomputeCost);
            QVERIFY(p->proof(solved.inexactReason()).find("optimal (gap 0)") == 0);
        }
    }

    // The search is bounded by work, never by the clock: on a machine whose
    // clock runs an hour per read (a slow sanitizer build, a busy laptop)
    // the same model gives the same plans, the clock never read, whether the
    // effort lets every keep set be searched or narrows the search.
    void samePlanOnASlowMachine_data() {
        QTest::addColumn<unsigned>("seed");
        QTest::addColumn<qint64>("effort");
        for (unsigned seed : {3u, 4u, 11u})
            for (qint64 effort : {qint64{2000}, qint64{20000}, qint64{kDefaultOpEffort}})
                QTest::addRow("seed %u effort %lld", seed, static_cast<long long>(effort)) << seed << effort;
    }
    void samePlanOnASlowMachine() {
        QFETCH(unsigned, seed);
        QFETCH(qint64, effort);
        const OpModel m = randomOpModel(3, 9, seed);
        int reads = 0;
        OpPlannerOptions here, slow;
        here.effort = slow.effort = effort;
        here.solverEffort = slow.solverEffort = 0; // the enumeration's own plans
        slow.clock = [&reads] { return 3600.0 * ++reads; };
        const OpPlanner a(m.model, m.graph, here), b(m.model, m.graph, slow);
        QCOMPARE(reads, 0);
        QCOMPARE(a.exact(), effort == kDefaultOpEffort); // the small efforts narrow the search
        QCOMPARE(a.exact(), b.exact());
        QCOMPARE(a.inexactReason(), b.inexactReason());
        QVERIFY(!b.cutByClock());
        QCOMPARE(a.replayedOps(), b.replayedOps());
        for (std::int64_t budget : budgets(a.minimumPeakBytes(), a.storeAllPeakBytes())) {
            const auto pa = a.plan(budget), pb = b.plan(budget);
            QVERIFY(pa && pb);
            QVERIFY(pa->keep == pb->keep);
            QVERIFY(!pb->cutByClock);
        }
    }

    // The time limit, only when asked: on the slow machine it cuts the
    // search, and the plan says it is not reproducible; on a machine that
    // keeps up it changes nothing.
    void theClockCutsOnlyWhenAskedAndSaysSo() {
        const OpModel m = randomOpModel(2, 9, 4);
        OpPlannerOptions limited;
        limited.solverEffort = 0;
        limited.timeLimitSeconds = 60;
        limited.clock = [t = 0.0]() mutable { return t += 3600; };
        const OpPlanner cut(m.model, m.graph, limited);
        QVERIFY(!cut.exact() && cut.cutByClock());
        QVERIFY2(cut.inexactReason().find("(the time limit, 60 s on the wall clock)") != std::string::npos,
                 cut.inexactReason().c_str());
        const auto plan = cut.plan(cut.storeAllPeakBytes());
        QVERIFY(plan && plan->cutByClock && !plan->exact);
        limited.clock = [] { return 0.0; };
        const OpPlanner kept(m.model, m.graph, limited), plain(m.model, m.graph);
        QVERIFY(kept.exact() && !kept.cutByClock());
        QVERIFY(kept.plan(kept.minimumPeakBytes())->keep == plain.plan(plain.minimumPeakBytes())->keep);
    }

    // Cancel (the studio's) stops the search wherever it is: counting keep
    // sets or replaying them.
    void cancelStopsTheSearch() {
        const OpModel m = randomOpModel(3, 9, 5);
        for (int after : {0, 1, 3}) {
            int asked = 0;
            OpPlannerOptions options;
            options.cancelled = [&asked, after] { return ++asked > after; };
            QVERIFY_THROWS_EXCEPTION(Cancelled, OpPlanner(m.model, m.graph, options));
        }
    }

    // The effort bounds the replays, counted: never more simulator ops than
    // it allows (or than the block-level choices, replayed in any case); more
    // effort never gives a worse plan; a narrowed search says so, naming the
    // effort.
    void effortBoundsTheReplays_data() {
        QTest::addColumn<unsigned>("seed");
        for (unsigned seed = 1; seed <= 12; ++seed)
            QTest::addRow("seed %u", seed) << seed;
    }
    void effortBoundsTheReplays() {
        QFETCH(unsigned, seed);
        const OpModel m = randomOpModel(seed % 3 == 0 ? 3 : 2, 8 + static_cast<int>(seed % 3), seed);
        OpPlannerOptions blockOnly;
        blockOnly.blockLevel = true;
        const OpPlanner floor(m.model, m.graph, blockOnly), full(m.model, m.graph);
        QVERIFY(full.exact());
        std::optional<OpPlanner> previous;
        bool narrowed = false;
        for (std::int64_t effort : {std::int64_t{1}, floor.replayedOps(), std::int64_t{1500}, std::int64_t{4000},
                                    std::int64_t{12000}, full.replayedOps() * 4}) {
            OpPlannerOptions options;
            options.effort = effort;
            options.solverEffort = 0;
            const OpPlanner planner(m.model, m.graph, options);
            QVERIFY2(planner.replayedOps() <= std::max(effort, floor.replayedOps()),
                     qPrintable(QString("effort %1: %2 ops").arg(effort).arg(planner.replayedOps())));
            QVERIFY(planner.replayedKeepSets() >= floor.replayedKeepSets());
            QVERIFY(planner.replayedKeepSets() <= full.replayedKeepSets());
            narrowed = narrowed || !planner.exact();
            if (!planner.exact())
                QVERIFY2(planner.inexactReason().find("(the effort limit, " + effortText(effort) + " replayed ops)") !=
                             std::string::npos,
                         planner.inexactReason().c_str());
            for (std::int64_t budget : budgets(full.minimumPeakBytes(), full.storeAllPeakBytes())) {
                const auto p = planner.plan(budget), best = full.plan(budget);
                if (!p)
                    continue;
                QVERIFY(p->recomputeCost >= best->recomputeCost);
                QCOMPARE(Simulator::summarize(m.model, opSchedule(m.model, m.graph, p->keep, "")).peakBytes,
                         p->predictedPeakBytes);
                if (previous) {
                    const auto before = previous->plan(budget);
                    QVERIFY(!before || p->recomputeCost <= before->recomputeCost);
                }
            }
            previous.emplace(planner);
        }
        QVERIFY(narrowed && previous->exact());
    }
};

QTEST_APPLESS_MAIN(OpExactTest)
#include "test_op_exact.moc"
