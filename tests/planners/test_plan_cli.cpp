// `remat plan` and the planner options of `remat simulate` as users run them,
// and bad model files: exit status 2, one line on stderr naming the file and
// the line or JSON pointer, nothing on stdout.
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include "tests/common/cli_checks.h"
#include "tests/common/run_process.h"

namespace {
using Result = remat::test::ProcessResult;

QString example(const char *name) {
    return qEnvironmentVariable("REMAT_SOURCE_DIR") + "/resources/models/" + name;
}
} // namespace

class TestPlanCli : public QObject {
    Q_OBJECT
private slots:
    void planPrintsCheckpointsAndCostAgainstStoreAll() {
        const Result r =
            remat::test::runRemat({"plan", "--model", example("vgg16-batch32.json"), "--budget", "1.2GiB"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.err.isEmpty());
        for (const char *word :
             {"checkpoints kept from the forward pass", "budget", "store-all", "against store-all", "GFLOP"})
            QVERIFY2(r.out.contains(word), word);
    }

    void planJsonRespectsTheBudget_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("budget");
        QTest::newRow("vgg16") << "vgg16-batch32.json"
                               << "1.2GiB";
        QTest::newRow("gpt2") << "gpt2-small.json"
                              << "4GiB";
        QTest::newRow("mlp") << "mlp-uniform.json"
                             << "40MiB";
        QTest::newRow("resnet") << "resnet18-batch32.json"
                                << "500MiB"; // above the 386 MiB least peak (batch norm keeps its input)
        QTest::newRow("unet") << "unet-batch8.json"
                              << "1.3GiB";
    }
    void planJsonRespectsTheBudget() {
        QFETCH(QString, file);
        QFETCH(QString, budget);
        const Result r =
            remat::test::runRemat({"plan", "--model", example(qPrintable(file)), "--budget", budget, "--json"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject doc = QJsonDocument::fromJson(r.out).object();
        const QJsonObject plan = doc["plan"].toObject();
        const QJsonObject b = doc["budget"].toObject();
        if (b.contains("bytes"))
            QVERIFY(plan["peak_bytes"].toDouble() <= b["bytes"].toDouble());
        else
            QVERIFY(plan["peak_nodes"].toInt() <= b["nodes"].toInt());
        QVERIFY(plan["cost"].toDouble() >= doc["store_all"].toObject()["cost"].toDouble());
        QCOMPARE(plan["checkpoints"].toArray().size(), plan["checkpoint_names"].toArray().size());
    }

    // A segment's inner node read by the segment's next node alone is named in
    // internal_outputs (remat_torch.apply hands the model's code a stand-in
    // for it); one with a second reader, or the segment's last, is not.
    void applySegmentsNameTheirInternalOutputs() {
        QTemporaryDir dir;
        const QByteArray nodes = R"("nodes": [{"name": "input", "bytes": 100},
            {"name": "a", "module": "a", "chained": true, "bytes": 100, "saved_bytes": 1000},
            {"name": "b", "module": "b", "chained": true, "bytes": 100, "saved_bytes": 1000},
            {"name": "c", "module": "c", "chained": true, "bytes": 100, "saved_bytes": 1000},
            {"name": "d", "module": ["d", "d_act"], "chained": true, "bytes": 100, "saved_bytes": 1000},
            {"name": "e", "module": "e", "chained": true, "bytes": 100, "saved_bytes": 1000}])";
        const QByteArray skip = R"(, "edges": [["input", "a"], ["a", "b"], ["b", "c"], ["c", "d"], ["d", "e"],
            ["a", "d"]])";
        const QList<QPair<QByteArray, QStringList>> cases = {{"{" + nodes + "}", {"a", "b", "c"}},
                                                             {"{" + nodes + skip + "}", {"b", "c"}}};
        for (const auto &[text, internal] : cases) {
            const QString path = dir.filePath("model.json");
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
            f.write(text);
            f.close();
            const Result r = remat::test::runRemat(
                {"plan", "--model", path, "--strategy", "checkpoints", "--checkpoints", "4", "--json"});
            QCOMPARE(r.exitCode, 0);
            const QJsonArray segments =
                QJsonDocument::fromJson(r.out).object()["apply"].toObject()["segments"].toArray();
            QCOMPARE(segments.size(), 1);
            const QJsonObject segment = segments[0].toObject();
            QCOMPARE(segment["modules"].toArray().size(), 5);
            QStringList names;
            for (const QJsonValue &v : segment["internal_outputs"].toArray())
                names.push_back(v.toString());
            QCOMPARE(names, internal);
        }
    }

    // On a graph the plan says what was proven of it, and a larger effort
    // never gives a dearer plan.
    void graphPlansStateTheirProof() {
        const QStringList base{"plan", "--model", example("unet-batch8.json"), "--budget", "1GiB", "--json"};
        const Result quick = remat::test::runRemat(base + QStringList{"--effort", "0"});
        const Result more = remat::test::runRemat(base + QStringList{"--effort", "30"});
        QCOMPARE(quick.exitCode, 0);
        QCOMPARE(more.exitCode, 0);
        const QJsonObject a = QJsonDocument::fromJson(quick.out).object()["plan"].toObject();
        const QJsonObject b = QJsonDocument::fromJson(more.out).object()["plan"].toObject();
        for (const QJsonObject &p : {a, b}) {
            const QString d = p["description"].toString();
            QVERIFY2(d.contains("graph MILP: optimal (gap 0)") || d.contains("% of the least (proven bound)"),
                     qPrintable(d));
            QVERIFY(p["peak_bytes"].toDouble() <= 1024.0 * 1024 * 1024);
        }
        QVERIFY(b["cost"].toDouble() <= a["cost"].toDouble() + 1e-9);
    }

    // --effort reaches every point of a graph's curve (and its least budget).
    void frontierTakesTheGraphEffort() {
        const Result r = remat::test::runRemat({"plan", "--model",
                                                example("nanogpt-2emb-layers4-d256-seq256-batch4-traced.json"),
                                                "--frontier", "--samples", "3", "--effort", "0", "--search-work", "0",
                                                "--json"});
        QCOMPARE(r.exitCode, 0);
        int solved = 0;
        for (const auto &value : QJsonDocument::fromJson(r.out).object()["curve"].toArray()) {
            const QString d = value.toObject()["description"].toString();
            if (!d.contains("graph MILP"))
                continue;
            ++solved;
            QVERIFY2(d.contains("(0 branch-and-bound nodes"), qPrintable(d));
        }
        QVERIFY(solved > 0);
    }

    // On a small graph the default search is a deep one (1000 nodes, strong
    // branching from 100 on): it proves the least budget of the traced
    // nanoGPT graph, which 10 nodes leave open; without strong branching 5,000
    // nodes left it 18.93 % open.
    void aDeepSearchProvesTheLeastBudget() {
        const QString model = example("nanogpt-2emb-layers4-d256-seq256-batch4-traced.json");
        const Result deep =
            remat::test::runRemat({"plan", "--model", model, "--budget", "96.02MiB", "--search-work", "0"});
        QCOMPARE(deep.exitCode, 0);
        QVERIFY2(deep.out.contains("graph MILP: optimal (gap 0)"), deep.out.constData());
        const Result shallow = remat::test::runRemat(
            {"plan", "--model", model, "--budget", "96.02MiB", "--effort", "10", "--search-work", "0"});
        QCOMPARE(shallow.exitCode, 0);
        QVERIFY2(shallow.out.contains("graph MILP: within"), shallow.out.constData());
        // The exact stage search proves it too, from the 10-node search's plan, and says so.
        const Result searched = remat::test::runRemat(
            {"plan", "--model", model, "--budget", "96.02MiB", "--effort", "10", "--search-work", "1e8"});
        QCOMPARE(searched.exitCode, 0);
        QVERIFY2(searched.out.contains("graph planner: optimal (gap 0), proven by the exact stage search ("),
                 searched.out.constData());
    }

    // A search that stops short still raises the bound: the plan says whose
    // bound it states and that the search stopped.
    void aStoppedSearchSaysWhoseBoundItStates() {
        const QString model = example("resnet18-batch32.json");
        const Result r =
            remat::test::runRemat({"plan", "--model", model, "--budget", "400MiB", "--search-work", "200000"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("graph planner: within ") &&
                     r.out.contains("by the MILP and the exact stage search, which stopped at its work bound (200000"),
                 r.out.constData());
    }

    // --search-work: out of range, on a chain or at op level, one line and exit 2.
    void searchWorkIsChecked() {
        const QString graph = example("resnet18-batch32.json");
        for (const QStringList &args :
             {QStringList{"plan", "--model", graph, "--budget", "500MiB", "--search-work", "-1"},
              QStringList{"plan", "--model", graph, "--budget", "500MiB", "--search-work", "2e11"},
              QStringList{"plan", "--model", graph, "--budget", "500MiB", "--search-work", "many"},
              QStringList{"plan", "--model", example("gpt2-small.json"), "--budget", "2GiB", "--search-work", "10"},
              QStringList{"plan", "--model", example("gpt2-block-ops.json"), "--granularity", "op", "--budget",
                          "1GiB", "--search-work", "10"}}) {
            remat::test::checkRefused(args, "--search-work");
        }
    }

    // remat plan --frontier: the curve falls as memory grows, ends at
    // store-all, and the named strategies sit on or above it.
    void frontierJsonAndCsv() {
        const Result r = remat::test::runRemat(
            {"plan", "--model", example("gpt2-small.json"), "--frontier", "--samples", "8", "--json"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject doc = QJsonDocument::fromJson(r.out).object();
        const QJsonArray curve = doc["curve"].toArray();
        QVERIFY(curve.size() >= 2);
        for (qsizetype k = 1; k < curve.size(); ++k) {
            QVERIFY(curve[k].toObject()["peak_bytes"].toDouble() > curve[k - 1].toObject()["peak_bytes"].toDouble());
            QVERIFY(curve[k].toObject()["cost"].toDouble() < curve[k - 1].toObject()["cost"].toDouble());
        }
        QCOMPARE(curve.last().toObject()["cost"].toDouble(), doc["store_all"].toObject()["cost"].toDouble());
        QStringList labels;
        for (const auto &v : doc["named"].toArray()) {
            labels << v.toObject()["label"].toString();
            QVERIFY(v.toObject()["above_curve"].toDouble() >= 0);
        }
        for (const char *name : {"store-all", "periodic", "revolve", "per-layer checkpointing"})
            QVERIFY2(labels.contains(name), name);

        const Result csv =
            remat::test::runRemat({"plan", "--model", example("gpt2-block-ops.json"), "--frontier", "--csv"});
        QCOMPARE(csv.exitCode, 0);
        QVERIFY(csv.out.startsWith("kind,label,peak_bytes,peak_saved_bytes,cost,overhead_vs_store_all,budget_bytes\n"));
        QVERIFY(csv.out.contains("\nnamed,selective (attention core),"));
        const Result table = remat::test::runRemat({"plan", "--model", example("gpt2-small.json"), "--frontier"});
        QCOMPARE(table.exitCode, 0);
        QVERIFY(table.out.contains("named strategies on the same axes"));
    }

    void simulateTakesThePlannersOptions() {
        const Result r =
            remat::test::runRemat({"simulate", "--n", "40", "--strategy", "recursive", "--slots", "4", "--json"});
        QCOMPARE(r.exitCode, 2); // recursive takes no --slots: refused by name
        QVERIFY2(r.err.contains("--slots applies to revolve and budget"), r.err.constData());
        QVERIFY(r.out.isEmpty());
        const Result ok =
            remat::test::runRemat({"simulate", "--n", "40", "--strategy", "revolve", "--slots", "4", "--json"});
        QCOMPARE(ok.exitCode, 0);
        const QJsonObject s = QJsonDocument::fromJson(ok.out).object()["strategies"].toArray()[0].toObject();
        // T(41, 4) = r l - beta(5, r-1) with r = 4: 4 * 41 - C(8, 5) = 108.
        QCOMPARE(s["forward_evaluations"].toInt(), 108);
        const Result budget =
            remat::test::runRemat({"simulate", "--n", "40", "--strategy", "budget", "--budget", "8", "--json"});
        QCOMPARE(budget.exitCode, 0);
        const QJsonObject b = QJsonDocument::fromJson(budget.out).object()["strategies"].toArray()[0].toObject();
        QVERIFY(b["peak_nodes"].toInt() <= 8);
        const Result graph =
            remat::test::runRemat({"simulate", "--model", example("resnet18-batch32.json"), "--strategy", "auto"});
        QCOMPARE(graph.exitCode, 0);
    }

    void refusalsAreOneLineWithExitStatus2_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("expected");
        QTest::newRow("below minimum") << QStringList{"plan", "--model", example("mlp-uniform.json"), "--budget",
                                                      "1MiB"}
                                       << "is below the minimum feasible";
        QTest::newRow("zero slots") << QStringList{"simulate", "--n", "10", "--strategy", "revolve", "--slots", "0"}
                                    << "--slots";
        QTest::newRow("chain only") << QStringList{"simulate", "--model", example("unet-batch8.json"), "--strategy",
                                                   "revolve"}
                                    << "skip connections";
        QTest::newRow("bad budget") << QStringList{"plan", "--model", example("mlp-uniform.json"), "--budget", "lots"}
                                    << "--budget";
        QTest::newRow("frontier with a budget")
            << QStringList{"plan", "--model", example("mlp-uniform.json"), "--frontier", "--budget", "7"}
            << "leave out --budget";
        QTest::newRow("frontier samples")
            << QStringList{"plan", "--model", example("mlp-uniform.json"), "--frontier", "--samples", "1"}
            << "--samples must be an integer from 2 to 1000, got '1'";
        QTest::newRow("plan csv without frontier")
            << QStringList{"plan", "--model", example("mlp-uniform.json"), "--budget", "7", "--csv"}
            << "CSV with --frontier only";
        QTest::newRow("bare number on a sized model")
            << QStringList{"plan", "--model", example("resnet18-batch32.json"), "--budget", "5000000"}
            << "--budget 5000000 is a bare number, and this model's sizes are bytes: write 5000000B or 4.77 MiB";
        QTest::newRow("effort on a chain")
            << QStringList{"plan", "--model", example("mlp-uniform.json"), "--budget", "40MiB", "--effort", "5"}
            << "this model is a chain, planned exactly by dynamic programming";
        QTest::newRow("effort on a chain's frontier")
            << QStringList{"plan", "--model", example("mlp-uniform.json"), "--frontier", "--effort", "5"}
            << "this model is a chain, planned exactly by dynamic programming";
        QTest::newRow("bad effort")
            << QStringList{"plan", "--model", example("unet-batch8.json"), "--budget", "1GiB", "--effort", "-3"}
            << "--effort must be a whole number of branch-and-bound nodes from 0 to 1e8, such as 200, got '-3'";
        QTest::newRow("below every graph plan")
            << QStringList{"plan", "--model", example("resnet18-batch32.json"), "--budget", "100MiB"}
            << "is below every plan the graph planner finds; the least peak of a plan is";
        QTest::newRow("missing file") << QStringList{"plan", "--model", "/nonexistent.json", "--budget", "1GiB"}
                                      << "/nonexistent.json: cannot read";
    }
    void refusalsAreOneLineWithExitStatus2() {
        QFETCH(QStringList, args);
        QFETCH(QString, expected);
        const Result r = remat::test::runRemat(args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.out.isEmpty());
        QVERIFY2(r.err.contains(expected.toUtf8()), r.err.constData());
        QCOMPARE(r.err.count('\n'), 1);
    }

    void badModelFilesNameFileAndPlace_data() {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("expected");
        QTest::newRow("syntax") << QByteArray(
                                       "{\n  \"nodes\": [\n    {\"name\": \"in\", \"bytes\": 4},\n    {\"name\": "
                                       "\"l\" \"bytes\": 4}\n  ]\n}\n")
                                << "bad.json: line 4, column";
        QTest::newRow("pointer") << QByteArray(R"({"nodes": [{"name": "in", "bytes": 4}, {"name": "l", "bytes": -3}]})")
                                 << "bad.json: /nodes/1/bytes: expected a size";
        // Crashed (stack overflow) and gave "internal error", exit 1, before.
        QTest::newRow("deep nesting") << "{\"nodes\": " + QByteArray(100000, '[') + QByteArray(100000, ']') + "}"
                                      << "bad.json: line 1, column 74: nested more than 64 levels deep";
        QTest::newRow("number overflow")
            << QByteArray(R"({"nodes": [{"name": "in", "bytes": 4}, {"name": "l", "bytes": 1e400}]})")
            << "bad.json: line 1, column 63: number 1e400 is out of range";
    }
    void badModelFilesNameFileAndPlace() {
        QFETCH(QByteArray, text);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        const QString path = dir.filePath("bad.json");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(text);
        f.close();
        for (const QStringList &args :
             {QStringList{"plan", "--model", path, "--budget", "1GiB"}, QStringList{"simulate", "--model", path}}) {
            const Result r = remat::test::runRemat(args);
            QCOMPARE(r.exitCode, 2);
            QVERIFY(r.out.isEmpty());
            QVERIFY2(r.err.contains(expected.toUtf8()), r.err.constData());
            QCOMPARE(r.err.count('\n'), 1);
        }
    }
};

QTEST_GUILESS_MAIN(TestPlanCli)
#include "test_plan_cli.moc"
