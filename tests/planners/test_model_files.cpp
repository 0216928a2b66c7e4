// Model files: the examples load and plan; bad files are refused with the
// file, the line or JSON pointer, and what was expected.
#include "core/errors.h"
#include "core/model_io.h"
#include "core/planners/dag_plans.h"
#include "core/simulator.h"
#include "core/strategy_registry.h"

#include <QElapsedTimer>
#include <QTest>

using namespace remat;

namespace {

std::string examplePath(const char *name) {
    return std::string(qgetenv("REMAT_SOURCE_DIR").constData()) + "/resources/models/" + name;
}

Summary run(const std::string &strategy, const Model &model, StrategyParams params = {}) {
    return Simulator::summarize(model, StrategyRegistry::builtin().get(strategy).makeSchedule(model, params));
}

} // namespace

class ModelFilesTest : public QObject {
    Q_OBJECT
private slots:
    void examplesLoadAndPlan_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("layers");
        QTest::addColumn<bool>("chain");
        QTest::newRow("mlp") << "mlp-uniform.json" << 16 << true;
        QTest::newRow("vgg16") << "vgg16-batch32.json" << 21 << true;
        QTest::newRow("gpt2") << "gpt2-small.json" << 13 << true;
        QTest::newRow("gpt2 block ops") << "gpt2-block-ops.json" << 12 << false;
        QTest::newRow("roberta") << "roberta-base-seq512.json" << 12 << true;
        QTest::newRow("resnet18") << "resnet18-batch32.json" << 31 << false;
        QTest::newRow("unet") << "unet-batch8.json" << 31 << false;
        QTest::newRow("resnet50 traced") << "resnet50-batch32-traced.json" << 21 << true;
        QTest::newRow("vit-b16 traced") << "vit-b16-batch32-traced.json" << 16 << true;
        QTest::newRow("encoder traced") << "transformer-encoder-seq512-batch8-traced.json" << 12 << true;
        QTest::newRow("gpt2 traced") << "gpt2-small-seq512-batch4-traced.json" << 15 << true;
        QTest::newRow("roberta traced") << "roberta-base-seq512-batch2-traced.json" << 14 << true;
    }
    void examplesLoadAndPlan() {
        QFETCH(QString, file);
        QFETCH(int, layers);
        QFETCH(bool, chain);
        const ModelFile f = loadModelFile(examplePath(qPrintable(file)));
        QCOMPARE(f.model.layers(), layers);
        QCOMPARE(f.model.isChain(), chain);
        QVERIFY(!f.name.empty());
        QVERIFY2(f.source.size() > 100, "every example says where its sizes come from");
        const Summary storeAll = run("store-all", f.model);
        // Halfway between recompute-all's peak (always reachable) and store-all's.
        const Summary least = run("recompute-all", f.model);
        StrategyParams p;
        p.budgetBytes = (least.peakBytes + storeAll.peakBytes) / 2;
        const Summary planned = run("budget", f.model, p);
        QVERIFY(planned.peakBytes <= *p.budgetBytes);
        QVERIFY(planned.cost >= storeAll.cost);
        QCOMPARE(planned.backwardOps, storeAll.backwardOps);
    }

    // Korthikanti et al. 2022, eq. 1: a layer keeps s*b*h*(34 + 5*a*s/h) bytes
    // for its backward (16 bit, dropout masks at one byte), of which its input
    // (the previous block's output, 2*s*b*h) is the block node's bytes.
    void gpt2LayersFollowKorthikanti() {
        const ModelFile f = loadModelFile(examplePath("gpt2-small.json"));
        const std::int64_t s = 1024, b = 8, h = 768, a = 12;
        const std::int64_t perLayer = s * b * h * 34 + 5 * a * s * s * b;
        const std::int64_t blockInput = 2 * s * b * h;
        for (int i = 1; i <= 12; ++i) {
            QCOMPARE(f.model.bytes(f.model.forwardNode(i - 1)), blockInput); // block i-1's output feeds block i
            QCOMPARE(f.model.savedBytes(i) + blockInput, perLayer);
        }
    }

    // Store-all records all 12 blocks; per-block checkpointing (periodic
    // --every 1, seed 002's torch.utils.checkpoint around every layer) keeps
    // their inputs and re-runs one block at a time recording. Both peak at the
    // output gradient, where the difference is the 12 blocks' internals.
    void gpt2StoreAllAgainstPerBlockIsKorthikanti() {
        const ModelFile f = loadModelFile(examplePath("gpt2-small.json"));
        const std::int64_t s = 1024, b = 8, h = 768, a = 12, layers = 12;
        const std::int64_t korthikanti = s * b * h * 34 + 5 * a * s * s * b; // bytes per layer
        const std::int64_t blockInput = 2 * s * b * h;
        StrategyParams everyBlock;
        everyBlock.every = 1;
        const Summary storeAll = run("store-all", f.model);
        const Summary perBlock = run("periodic", f.model, everyBlock);
        QCOMPARE(storeAll.peakBytes - perBlock.peakBytes, layers * (korthikanti - blockInput));
        QCOMPARE(storeAll.peakSavedBytes - perBlock.peakSavedBytes, layers * (korthikanti - blockInput));
        QCOMPARE(perBlock.recomputations, layers); // each block once; the logits record at once
    }

    void vggActivationsShrinkWithDepth() {
        const ModelFile f = loadModelFile(examplePath("vgg16-batch32.json"));
        QCOMPARE(f.model.bytes(f.model.forwardNode(1)), std::int64_t(64) * 224 * 224 * 32 * 4);
        QVERIFY(f.model.bytes(f.model.forwardNode(18)) < f.model.bytes(f.model.forwardNode(2)) / 100);
    }

    // The documented U-Net case: `auto` finds bottlenecks only at full
    // resolution; the budget plan beats it on memory and compute at once.
    void unetAutoIsBeatenByTheBudgetPlan() {
        const ModelFile f = loadModelFile(examplePath("unet-batch8.json"));
        const Summary autoPlan = run("auto", f.model);
        StrategyParams p;
        p.budgetBytes = std::int64_t(13) * 1024 * 1024 * 1024 / 10; // 1.3 GiB
        const Summary better = run("budget", f.model, p);
        QVERIFY(better.peakBytes < autoPlan.peakBytes);
        QVERIFY(better.cost < autoPlan.cost);
        for (int point : planners::articulationPoints(f.model))
            QVERIFY2(f.model.label(point).find("1") != std::string::npos,
                     "U-Net bottlenecks lie only at the first (full-resolution) level");
    }

    void badFilesNameFileAndPlace_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected");
        QTest::newRow("syntax") << "{\n  \"nodes\": [\n    {\"name\": \"x\" \"bytes\": 1}\n  ]\n}"
                                << "m.json: line 3, column";
        QTest::newRow("not an object") << "[1, 2]"
                                       << "m.json: /: expected an object";
        QTest::newRow("no nodes") << "{}"
                                  << "m.json: /: missing \"nodes\"";
        QTest::newRow("one node") << R"({"nodes": [{"name": "in", "bytes": 4}]})"
                                  << "m.json: /nodes: expected an array of at least two";
        QTest::newRow("bad bytes") << R"({"nodes": [{"name": "in", "bytes": 4}, {"name": "l", "bytes": true}]})"
                                   << "m.json: /nodes/1/bytes: expected a size";
        QTest::newRow("bad unit text")
            << R"({"nodes": [{"name": "in", "bytes": 4}, {"name": "l", "bytes": "3 parsecs"}]})"
            << "m.json: /nodes/1/bytes: expected a size such as 4096 or \"2 MiB\"";
        QTest::newRow("negative cost")
            << R"({"nodes": [{"name": "in", "bytes": 4}, {"name": "l", "bytes": 4, "forward_cost": -1}]})"
            << "m.json: /nodes/1/forward_cost: expected a cost >= 0";
        QTest::newRow("typo") << R"({"nodes": [{"name": "in", "bytes": 4}, {"name": "l", "byts": 4}]})"
                              << "m.json: /nodes/1/byts: unknown key";
        QTest::newRow("duplicate name") << R"({"nodes": [{"name": "in", "bytes": 4}, {"name": "in", "bytes": 4}]})"
                                        << "m.json: /nodes/1/name: name \"in\" is already used by /nodes/0";
        QTest::newRow("unknown edge end")
            << R"({"nodes": [{"name": "in", "bytes": 4}, {"name": "l", "bytes": 4}], "edges": [["in", "m"]]})"
            << "m.json: /edges/0/1: no node is named \"m\"";
        QTest::newRow("backward edge")
            << R"({"nodes": [{"name": "in", "bytes": 4}, {"name": "l", "bytes": 4}], "edges": [["l", "in"]]})"
            << "m.json: /edges/0: edge \"l\" -> \"in\" goes backwards";
        QTest::newRow("dangling node")
            << R"({"nodes": [{"name": "in", "bytes": 4}, {"name": "x", "bytes": 4}, {"name": "l", "bytes": 4}], "edges": [["in", "x"], ["in", "l"]]})"
            << "m.json: /nodes/1: \"x\" feeds no later node";
        QTest::newRow("no input edge")
            << R"({"nodes": [{"name": "in", "bytes": 4}, {"name": "x", "bytes": 4}, {"name": "l", "bytes": 4}], "edges": [["in", "l"], ["x", "l"]]})"
            << "m.json: /nodes/1: no edge leads into \"x\"";
        QTest::newRow("bad module")
            << R"({"nodes": [{"name": "in", "bytes": 4}, {"name": "l", "bytes": 4, "module": 3}]})"
            << "m.json: /nodes/1/module: expected a module name such as \"layer1.0\" or an array of them, got 3";
        QTest::newRow("empty module name")
            << R"({"nodes": [{"name": "in", "bytes": 4}, {"name": "l", "bytes": 4, "module": ["a", ""]}]})"
            << "m.json: /nodes/1/module: expected non-empty module names";
        QTest::newRow("bad chained")
            << R"({"nodes": [{"name": "in", "bytes": 4}, {"name": "l", "bytes": 4, "chained": "yes"}]})"
            << "m.json: /nodes/1/chained: expected true or false";
        QTest::newRow("bad trace") << R"({"trace": "torch", "nodes": []})"
                                   << "m.json: /trace: expected an object";
        QTest::newRow("bad units") << R"({"units": {"bytes": "parsec"}, "nodes": []})"
                                   << "m.json: /units/bytes: expected a unit";
        QTest::newRow("wrong version") << R"({"version": 7, "nodes": []})"
                                       << "m.json: /version: this remat reads version 1";
        // Found by the fuzzer (tests/fuzz): nlohmann reported these without a place.
        QTest::newRow("number overflow")
            << "{\"nodes\": [{\"name\": \"in\", \"bytes\": 4},\n {\"name\": \"l\", \"bytes\": 1e400}]}"
            << "m.json: line 2, column 25: number 1e400 is out of range";
        QTest::newRow("integer overflow") << "{\"version\": 1" + QString(400, '0') + "}"
                                          << "m.json: line 1, column 13: number 1000000";
        QTest::newRow("deep nesting") << "{\"nodes\": " + QString(100000, '[') + QString(100000, ']') + "}"
                                      << "m.json: line 1, column 74: nested more than 64 levels deep";
        QTest::newRow("deep nesting, unclosed") << QString(100000, '{') << "m.json: line 1, column 65: nested more";
        QTest::newRow("brackets in strings do not count")
            << "{\"name\": \"" + QString(100, '[') + "\\\"\", \"nodes\": 3}"
            << "m.json: /nodes: expected an array";
    }
    // What remat_torch trace writes and remat plan --json hands to apply.
    void tracedKeysAreKept() {
        const ModelFile f = parseModelJson(
            R"({"trace": {"model": "torchvision:resnet18"}, "nodes": [{"name": "in", "bytes": 4},
                {"name": "a", "bytes": 4, "module": "conv1", "chained": true, "flops": 12},
                {"name": "b", "bytes": 4, "module": ["bn1", "relu"]}, {"name": "c", "bytes": 4}]})",
            "m.json");
        QCOMPARE(f.modules.size(), std::size_t(4));
        QVERIFY(f.modules[0].empty());
        QCOMPARE(f.modules[1], std::vector<std::string>{"conv1"});
        QCOMPARE(f.modules[2], (std::vector<std::string>{"bn1", "relu"}));
        QVERIFY(f.modules[3].empty());
        QCOMPARE(f.chained, (std::vector<bool>{false, true, false, false}));
        QCOMPARE(f.trace, std::string(R"({"model":"torchvision:resnet18"})"));
        const ModelFile plain = loadModelFile(examplePath("gpt2-small.json"));
        QVERIFY(plain.modules.empty() && plain.trace.empty());
    }

    void badFilesNameFileAndPlace() {
        QFETCH(QString, text);
        QFETCH(QString, expected);
        try {
            parseModelJson(text.toStdString(), "m.json");
            QFAIL("accepted a bad model file");
        } catch (const InvalidArgument &e) {
            QVERIFY2(QString(e.what()).startsWith(expected), e.what());
        }
    }

    // Found while reviewing the reader for hostile files: duplicate-edge
    // checks were quadratic in a node's inputs, so a file joining 200 000
    // nodes into one took minutes. Four times the nodes must take about four
    // times as long (not sixteen), whatever the build type.
    void manyInputsLoadInLinearTime() {
        const auto secondsFor = [](int nodes) {
            const std::string last = "n" + std::to_string(nodes - 1);
            std::string text = "{\"nodes\": [";
            for (int i = 0; i < nodes; ++i)
                text += (i ? "," : "") + std::string("{\"name\": \"n") + std::to_string(i) + "\", \"bytes\": 1}";
            text += "], \"edges\": [";
            for (int i = 1; i < nodes; ++i) // n0 feeds every node, every node feeds the last
                text += (i > 1 ? ",[\"n0\", \"n" : "[\"n0\", \"n") + std::to_string(i) + "\"]" +
                        (i + 1 < nodes ? ",[\"n" + std::to_string(i) + "\", \"" + last + "\"]" : "");
            text += "]}";
            QElapsedTimer clock;
            clock.start();
            const ModelFile f = parseModelJson(text, "wide.json");
            const double seconds = clock.nsecsElapsed() / 1e9;
            if (int(f.model.inputs(nodes - 1).size()) != nodes - 1)
                return -1.0;
            return seconds;
        };
        const double small = secondsFor(20000);
        const double large = secondsFor(80000);
        QVERIFY(small > 0 && large > 0);
        QVERIFY2(large < 8 * small + 0.05,
                 qPrintable(QString("%1 s for 20 000 nodes, %2 s for 80 000").arg(small).arg(large)));
    }

    void unitsScalePlainNumbers() {
        const ModelFile f = parseModelJson(
            R"({"units": {"bytes": "MiB"}, "nodes": [{"name": "in", "bytes": 2}, {"name": "l", "bytes": "512 KiB", "forward_cost": 3}]})",
            "u.json");
        QCOMPARE(f.model.bytes(0), std::int64_t(2) * 1024 * 1024);
        QCOMPARE(f.model.bytes(1), std::int64_t(512) * 1024);
        QCOMPARE(f.model.cost(f.model.backwardNode(1)), 6.0); // backward defaults to twice the forward
        QVERIFY(f.model.isChain());
    }

    void missingFileIsNamed() {
        try {
            loadModelFile("/nonexistent/model.json");
            QFAIL("no error");
        } catch (const InvalidArgument &e) {
            QVERIFY2(QString(e.what()).startsWith("/nonexistent/model.json: cannot read"), e.what());
        }
    }
};

QTEST_GUILESS_MAIN(ModelFilesTest)
#include "test_model_files.moc"
