// `remat plan --granularity op` as users run it: the same model file and
// budget give the same plan on every run, bounded by --effort (replayed ops,
// never the clock); --time-limit, only when given, flags the plans it cuts as
// not reproducible; bad --effort values are refused with one line, exit 2.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include "tests/common/cli_checks.h"
#include "tests/common/run_process.h"

namespace {

using Result = remat::test::ProcessResult;

QString modelPath() {
    return qEnvironmentVariable("REMAT_SOURCE_DIR") + "/resources/models/gpt2-2layers-seq1024-ops.json";
}

QJsonObject planJson(const QStringList &extra) {
    const Result r = remat::test::runRemat(
        QStringList{"plan", "--model", modelPath(), "--granularity", "op", "--budget", "300MiB", "--json"} + extra);
    if (r.exitCode != 0)
        qWarning("%s", r.err.constData());
    return QJsonDocument::fromJson(r.out).object();
}

} // namespace

class TestOpPlanCli : public QObject {
    Q_OBJECT
private slots:
    void theEffortBoundsTheSearchAndThePlanRepeats() {
        const QJsonObject first = planJson({"--effort", "2e6"}), second = planJson({"--effort", "2000000"});
        const QJsonObject plan = first["plan"].toObject();
        QCOMPARE(plan["effort"].toInteger(), qint64{2'000'000});
        QVERIFY(plan["replayed_ops"].toInteger() > 0);
        QVERIFY(plan["replayed_ops"].toInteger() <= plan["effort"].toInteger());
        QCOMPARE(plan["reproducible"].toBool(), true);
        // 2e6 ops are too few to enumerate 23 nodes a block: the op-level MILP
        // plans from there, and proves its plan.
        QCOMPARE(plan["exact"].toBool(), true);
        QVERIFY2(plan["solver"].toString().contains("(the effort limit, 2e6 replayed ops)"),
                 qPrintable(plan["solver"].toString()));
        QVERIFY2(plan["solver"].toString().startsWith("optimal (gap 0) (op-level MILP"),
                 qPrintable(plan["solver"].toString()));
        QCOMPARE(second["plan"].toObject()["replayed_ops"], plan["replayed_ops"]);
        QCOMPARE(second["selective"], first["selective"]);
        // A larger effort enumerates more nodes; both plans are proven, so they cost the same.
        const QJsonObject wider = planJson({"--effort", "6e6"})["plan"].toObject();
        QVERIFY(wider["replayed_ops"].toInteger() > plan["replayed_ops"].toInteger());
        QCOMPARE(wider["recompute_cost"].toDouble(), plan["recompute_cost"].toDouble()); // both proven
    }

    // Each point of the op-level curve says what was proven of it and what
    // its plan peaks at; the whole curve is one JSON document on stdout
    // (the solver's own log never lands there).
    void frontierPointsSayWhatWasProven() {
        const QStringList args{"plan", "--model", modelPath(), "--granularity", "op", "--frontier", "--samples", "3",
                               "--effort", "1000", "--solver-nodes", "200"};
        const Result json = remat::test::runRemat(args + QStringList{"--json"});
        QCOMPARE(json.exitCode, 0);
        QJsonParseError error;
        const QJsonDocument doc = QJsonDocument::fromJson(json.out, &error);
        QVERIFY2(error.error == QJsonParseError::NoError, json.out.left(200).constData());
        const QJsonArray curve = doc.object()["curve"].toArray();
        QCOMPARE(curve.size(), 3);
        for (const auto &value : curve) {
            const QJsonObject point = value.toObject();
            const QString proof = point["op_level_proof"].toString();
            QVERIFY2(proof == "optimal (gap 0)" || proof.startsWith("within "), qPrintable(proof));
            QVERIFY(point["op_level_peak_bytes"].toInteger() > 0);
            QVERIFY(point["op_level_peak_bytes"].toInteger() <= point["budget_bytes"].toInteger());
        }
        // The top of the curve keeps everything: PyTorch's run of it is what
        // `plan --budget` reports for store-all, which holds the step's output
        // and gradient beyond the plan's own count.
        const QJsonObject top = curve.last().toObject();
        QCOMPARE(top["op_level_recompute"].toDouble(), 0.0);
        const qint64 storeAllInPyTorch = planJson({})["store_all"].toObject()["peak_bytes"].toInteger();
        QCOMPARE(top["op_level_pytorch_peak_bytes"].toInteger(), storeAllInPyTorch);
        QVERIFY(storeAllInPyTorch > top["budget_bytes"].toInteger());
        const Result text = remat::test::runRemat(args);
        QCOMPARE(text.exitCode, 0);
        QVERIFY2(text.out.contains("proven") && text.out.contains("optimal (gap 0)"), text.out.constData());
        QVERIFY2(text.out.contains("PyTorch's run of the plan peaks above the budget at 3 of 3 budgets"),
                 text.out.constData());
    }

    void aTimeLimitThatCutsSaysSoInJsonAndText() {
        const QJsonObject plan = planJson({"--effort", "2e6", "--time-limit", "0.000001"})["plan"].toObject();
        QCOMPARE(plan["reproducible"].toBool(), false);
        QVERIFY2(plan["solver"].toString().contains("the time limit"), qPrintable(plan["solver"].toString()));
        const Result text = remat::test::runRemat({"plan", "--model", modelPath(), "--granularity", "op", "--budget",
                                                   "300MiB", "--effort", "2e6", "--time-limit", "0.000001"});
        QCOMPARE(text.exitCode, 0);
        QVERIFY2(text.out.contains("cut by the clock (--time-limit), not reproducible"), text.out.constData());
    }

    void badEffort_data() {
        QTest::addColumn<QString>("effort");
        for (const char *bad : {"0", "-5", "lots", "2.5", "1e13", "4e", "e9", "1e-3", "99999999999999999999"})
            QTest::newRow(bad) << QString(bad);
    }
    void badEffort() {
        QFETCH(QString, effort);
        remat::test::checkRefused(
            {"plan", "--model", modelPath(), "--granularity", "op", "--budget", "300MiB", "--effort", effort},
            "--effort must be a whole number of replayed ops from 1 to 1e12, such as 4e9, got '" + effort + "'");
    }

    void badSolverNodes_data() {
        QTest::addColumn<QString>("nodes");
        for (const char *bad : {"-1", "lots", "2.5", "1e9", "e3"})
            QTest::newRow(bad) << QString(bad);
    }
    void badSolverNodes() {
        QFETCH(QString, nodes);
        remat::test::checkRefused(
            {"plan", "--model", modelPath(), "--granularity", "op", "--budget", "300MiB", "--solver-nodes", nodes},
            "--solver-nodes must be a whole number of branch-and-bound nodes from 0 to 1e8, "
            "such as 200, got '" +
                nodes + "'");
    }

    // A trace field PyTorch's run is counted from, malformed: one line
    // naming it, not a prediction that silently leaves it out.
    void malformedTraceHoldsAreRefused() {
        QFile in(modelPath());
        QVERIFY(in.open(QIODevice::ReadOnly));
        QJsonObject model = QJsonDocument::fromJson(in.readAll()).object();
        QJsonObject trace = model["trace"].toObject();
        trace["tied_gradients"] = QJsonArray{QJsonObject{{"bytes", "many"}, {"nodes", QJsonArray{}}}};
        model["trace"] = trace;
        QTemporaryDir dir;
        QFile out(dir.filePath("ops.json"));
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(QJsonDocument(model).toJson());
        out.close();
        remat::test::checkRefused(
            {"plan", "--model", out.fileName(), "--granularity", "op", "--budget", "300MiB"},
            "the model file's trace.tied_gradients entry {\"bytes\":\"many\",\"nodes\":[]} is malformed");
    }

    // A chain's block-level plan is exact, and no block-level plan takes a
    // time limit: a bound given there would be silently ignored, so it is refused.
    void boundsAreRefusedAtBlockLevel_data() {
        QTest::addColumn<QString>("flag");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("message");
        QTest::newRow("effort") << "--effort"
                                << "2e6"
                                << "--effort bounds the op-level search (--granularity op) and the graph planner; "
                                   "this model is a chain, planned exactly by dynamic programming";
        QTest::newRow("solver nodes") << "--solver-nodes"
                                      << "200"
                                      << "--solver-nodes bounds the op-level MILP only (--granularity op); on graphs "
                                         "--effort is the graph MILP's branch-and-bound nodes";
        QTest::newRow("time limit") << "--time-limit"
                                    << "5"
                                    << "--time-limit bounds the op-level search only (--granularity op); block-level "
                                       "plans are bounded by --effort on graphs, and exact on chains";
    }
    void boundsAreRefusedAtBlockLevel() {
        QFETCH(QString, flag);
        QFETCH(QString, value);
        QFETCH(QString, message);
        remat::test::checkRefused({"plan", "--n", "16", "--budget", "6", flag, value}, message);
    }
};

QTEST_GUILESS_MAIN(TestOpPlanCli)
#include "test_op_plan_cli.moc"
