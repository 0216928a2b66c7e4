// `remat` with dtr as users run it: the runtime's schedule beside the
// planner's in simulate and plan --frontier (table, CSV, JSON), and every
// bad input refused with one line and exit status 2.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include "tests/common/cli_checks.h"
#include "tests/common/run_process.h"

namespace {
using Result = remat::test::ProcessResult;

QString modelPath(const char *name) {
    return QString::fromUtf8(qgetenv("REMAT_SOURCE_DIR")) + "/resources/models/" + name;
}
} // namespace

class TestDtrCli : public QObject {
    Q_OBJECT
private slots:
    void simulateWithinTheBudget() {
        const Result r =
            remat::test::runRemat({"simulate", "--n", "16", "--strategy", "dtr,budget", "--budget", "6", "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonArray rows = QJsonDocument::fromJson(r.out).object()["strategies"].toArray();
        QCOMPARE(rows.size(), 2);
        const QJsonObject dtr = rows[0].toObject(), planned = rows[1].toObject();
        QCOMPARE(dtr["name"].toString(), QString("dtr"));
        QVERIFY(dtr["peak_nodes"].toInteger() <= 6);
        QVERIFY(dtr["recomputations"].toInteger() > 0);
        // The chain of 16 is planned exactly over all schedules: nothing costs less.
        QVERIFY(dtr["cost"].toDouble() >= planned["cost"].toDouble());
    }

    void frontierShowsDtrBesideTheOptimum() {
        const QString model = modelPath("gpt2-small.json");
        const Result table = remat::test::runRemat({"plan", "--frontier", "--model", model, "--samples", "6"});
        QVERIFY2(table.exitCode == 0, table.err.constData());
        QVERIFY(table.out.contains("the runtime deciding (dtr"));
        QVERIFY(table.out.contains("dtr / least"));

        const Result json = remat::test::runRemat({"plan", "--frontier", "--model", model, "--samples", "6", "--json"});
        QVERIFY2(json.exitCode == 0, json.err.constData());
        const QJsonObject doc = QJsonDocument::fromJson(json.out).object();
        const QJsonArray curve = doc["dtr_curve"].toArray();
        QVERIFY(curve.size() >= 5);
        for (const auto &v : curve) {
            const QJsonObject p = v.toObject();
            QVERIFY(p["peak_bytes"].toInteger() <= p["budget_bytes"].toInteger());
            QVERIFY(p["budget_bytes"].toInteger() >= doc["dtr_minimum_bytes"].toInteger());
            if (!p["over_least"].isNull())
                QCOMPARE(p["over_least"].toDouble(), p["cost"].toDouble() / p["least_cost"].toDouble());
        }

        const Result csv = remat::test::runRemat({"plan", "--frontier", "--model", model, "--samples", "6", "--csv"});
        QVERIFY2(csv.exitCode == 0, csv.err.constData());
        QCOMPARE(csv.out.count("\ndtr,dtr,"), curve.size());
    }

    void badInput_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("no budget") << QStringList{"simulate", "--n", "8", "--strategy", "dtr"}
                                   << "dtr needs a memory budget";
        QTest::newRow("below the minimum") << QStringList{"simulate", "--n", "8", "--strategy", "dtr", "--budget", "3"}
                                           << "dtr needs a budget of at least 4 nodes";
        QTest::newRow("below the minimum in bytes")
            << QStringList{"simulate", "--model", modelPath("vgg16-batch32.json"), "--strategy", "dtr",
                           "--budget", "1GiB"}
            << "dtr needs a budget of at least 1.17 GiB";
        QTest::newRow("unknown heuristic")
            << QStringList{"simulate", "--n", "8", "--strategy", "dtr", "--budget", "5", "--heuristic", "lru"}
            << "unknown heuristic 'lru'; known: dtr";
        QTest::newRow("heuristic elsewhere")
            << QStringList{"simulate", "--n", "8", "--strategy", "periodic", "--heuristic", "dtr"}
            << "--heuristic applies to dtr";
        QTest::newRow("measure without budget")
            << QStringList{"measure", "--n", "4", "--strategy", "dtr"} << "dtr needs a memory budget";
        QTest::newRow("measure below the minimum")
            << QStringList{"measure", "--n",        "4",   "--width",  "8",  "--batch",
                           "2",       "--strategy", "dtr", "--budget", "64B"}
            << "dtr needs a budget of at least";
        QTest::newRow("plan with memory steps")
            << QStringList{"plan", "--n", "8", "--strategy", "dtr", "--budget", "5", "--memory-steps", "64"}
            << "--memory-steps applies to budget, not to dtr";
    }
    void badInput() {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        remat::test::checkRefused(args, message);
    }
};

QTEST_GUILESS_MAIN(TestDtrCli)
#include "test_dtr_cli.moc"
