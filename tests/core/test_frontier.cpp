// The trade-off curve (core/frontier.h): least compute for every peak, with
// the named strategies on the same axes. Every point is a counted schedule.
#include "core/errors.h"
#include "core/frontier.h"
#include "core/model_io.h"
#include "core/simulator.h"
#include "core/strategy_registry.h"

#include <QTest>
#include <atomic>
#include <limits>
#include <mutex>
#include <vector>

using namespace remat;

namespace {

std::string examplePath(const char *name) {
    return std::string(qgetenv("REMAT_SOURCE_DIR").constData()) + "/resources/models/" + name;
}

// A graph with skip connections, planned by the MILP and the exact search.
constexpr const char *GRAPH_MODEL = "nanogpt-2emb-layers4-d256-seq256-batch4-traced.json";

Model chainWithInternals(int n, std::int64_t output, std::int64_t saved) {
    ChainSpec spec;
    spec.nodeBytes = output;
    spec.savedBytes = saved;
    return Model::chain(n, spec);
}

} // namespace

class FrontierTest : public QObject {
    Q_OBJECT
private slots:
    void curveIsMonotoneAndEndsAtStoreAll_data() {
        QTest::addColumn<QString>("file"); // empty: a chain of 24 layers, 1 MiB out, 17 MiB saved
        // Budgets sampled: fewer on ResNet-18, where each is a MILP solved twice (the curve, then the rebuild).
        QTest::addColumn<int>("samples");
        QTest::newRow("24-layer chain with internals") << QString() << 12;
        QTest::newRow("abstract chain") << QString("mlp-uniform.json") << 12;
        QTest::newRow("gpt2 blocks") << QString("gpt2-small.json") << 12;
        QTest::newRow("gpt2 block ops") << QString("gpt2-block-ops.json") << 12;
        QTest::newRow("roberta") << QString("roberta-base-seq512.json") << 12;
        QTest::newRow("resnet18") << QString("resnet18-batch32.json") << 6;
    }
    void curveIsMonotoneAndEndsAtStoreAll() {
        QFETCH(QString, file);
        QFETCH(int, samples);
        const Model model = file.isEmpty() ? chainWithInternals(24, 1 << 20, 17 << 20)
                                           : loadModelFile(examplePath(qPrintable(file))).model;
        FrontierOptions options;
        options.samples = samples;
        const Frontier f = computeFrontier(model, options);
        const Summary storeAll =
            Simulator::summarize(model, StrategyRegistry::builtin().get("store-all").makeSchedule(model, {}));
        QVERIFY(!f.curve.empty());
        QCOMPARE(f.storeAllBytes, storeAll.peakBytes);
        QCOMPARE(f.curve.back().cost, storeAll.cost);
        QVERIFY(f.curve.back().peakBytes <= storeAll.peakBytes);
        QCOMPARE(f.minimumBytes, f.curve.front().peakBytes);
        for (std::size_t k = 1; k < f.curve.size(); ++k) {
            QVERIFY2(f.curve[k].peakBytes > f.curve[k - 1].peakBytes, "peaks increase along the curve");
            QVERIFY2(f.curve[k].cost < f.curve[k - 1].cost, "more memory never costs more compute");
        }
        // Every named strategy lies on or above the curve at its own peak.
        QVERIFY(f.named.size() >= 3);
        for (const NamedPoint &p : f.named) {
            QVERIFY2(frontierCostAt(f, p.peakBytes) <= p.cost * (1 + 1e-12), p.label.c_str());
            // Its schedule is the one counted.
            const Summary s = Simulator::summarize(model, p.schedule);
            QCOMPARE(s.peakBytes, p.peakBytes);
            QCOMPARE(s.cost, p.cost);
        }
        // Budget points rebuild from their budget to the same counted schedule.
        for (const FrontierPoint &p : f.curve) {
            if (!p.label.empty())
                continue;
            StrategyParams params;
            params.budgetBytes = p.budgetBytes;
            params.memorySteps = options.memorySteps;
            const Summary s =
                Simulator::summarize(model, StrategyRegistry::builtin().get("budget").makeSchedule(model, params));
            QCOMPARE(s.peakBytes, p.peakBytes);
            QCOMPARE(s.cost, p.cost);
        }
        QCOMPARE(frontierCostAt(f, f.curve.front().peakBytes - 1), std::numeric_limits<double>::infinity());
    }

    // The op-level GPT-2 block names Megatron's selective recomputation; it
    // keeps everything but the attention core, so it needs less memory than
    // store-all and less compute than recomputing whole segments (auto).
    void selectiveRecomputationOnTheOpLevelBlock() {
        const Model model = loadModelFile(examplePath("gpt2-block-ops.json")).model;
        FrontierOptions options;
        options.samples = 4;
        const Frontier f = computeFrontier(model, options);
        const NamedPoint *selective = nullptr, *autoPlan = nullptr;
        for (const auto &p : f.named) {
            if (p.label.find("selective") != std::string::npos)
                selective = &p;
            if (p.label == "auto")
                autoPlan = &p;
        }
        QVERIFY(selective && autoPlan);
        QVERIFY(selective->peakBytes < f.storeAllBytes);
        QVERIFY(selective->cost < autoPlan->cost);
        // Only the scores and softmax run twice: their forward cost is the whole overhead.
        const Summary s = Simulator::summarize(model, selective->schedule);
        QCOMPARE(s.recomputations, std::int64_t(2));
        QVERIFY(!selective->schedule.checkpoints.empty());
        for (int c : selective->schedule.checkpoints)
            QVERIFY2(model.label(c) != "scores" && model.label(c) != "softmax", model.label(c).c_str());
    }

    // The sweep plans several budgets at once (core/budget_sweep.h): the
    // same curve, point for point, on one core as on several, with the
    // solver and the exact search running beside each other; the progress
    // only rises, to 1.
    void sameCurveOnAnyNumberOfCores() {
        const Model model = loadModelFile(examplePath(GRAPH_MODEL)).model;
        FrontierOptions one;
        one.samples = 6;
        one.threads = 1;
        FrontierOptions several = one;
        several.threads = 3;
        std::mutex seenMutex;
        std::vector<double> seen;
        several.progress = [&](double f) {
            const std::lock_guard<std::mutex> lock(seenMutex);
            seen.push_back(f);
        };
        const Frontier a = computeFrontier(model, one), b = computeFrontier(model, several);
        QCOMPARE(b.curve.size(), a.curve.size());
        for (std::size_t k = 0; k < a.curve.size(); ++k) {
            QCOMPARE(b.curve[k].budgetBytes, a.curve[k].budgetBytes);
            QCOMPARE(b.curve[k].label, a.curve[k].label);
            QCOMPARE(b.curve[k].peakBytes, a.curve[k].peakBytes);
            QCOMPARE(b.curve[k].cost, a.curve[k].cost);
            QCOMPARE(b.curve[k].description, a.curve[k].description);
        }
        QCOMPARE(b.dtrCurve.size(), a.dtrCurve.size());
        QVERIFY(!seen.empty());
        for (std::size_t k = 1; k < seen.size(); ++k)
            QVERIFY2(seen[k] >= seen[k - 1], "progress never goes back");
        QCOMPARE(seen.back(), 1.0);
    }

    void cancelStopsTheSweep() {
        const Model model = loadModelFile(examplePath(GRAPH_MODEL)).model;
        FrontierOptions options;
        options.samples = 8;
        options.threads = 2;
        std::atomic<bool> stop{false};
        options.progress = [&](double f) {
            if (f > 0)
                stop = true; // as soon as the first budget has moved
        };
        options.cancelled = [&] { return stop.load(); };
        QVERIFY_THROWS_EXCEPTION(Cancelled, computeFrontier(model, options));
    }

    void refusesAThreadCountOutOfRange() {
        for (int threads : {-1, 257}) {
            FrontierOptions options;
            options.samples = 2;
            options.threads = threads;
            QVERIFY_THROWS_EXCEPTION(InvalidArgument, computeFrontier(chainWithInternals(8, 1, 3), options));
        }
    }

    void cancelStops() {
        FrontierOptions options;
        options.cancelled = [] { return true; };
        QVERIFY_THROWS_EXCEPTION(Cancelled, computeFrontier(chainWithInternals(8, 1, 3), options));
    }
};

QTEST_GUILESS_MAIN(FrontierTest)
#include "test_frontier.moc"
