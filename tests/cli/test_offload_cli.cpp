// Offloading from the command line (docs/cli.md): the documented commands and
// what their rows hold, `remat plan` with a link, the trade-off curve's
// offload points, and every bad link, time, rate or budget refused with one
// line naming the value (exit status 2, nothing on stdout).
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>
#include <cmath>

#include "tests/common/cli_checks.h"
#include "tests/common/run_process.h"

namespace {
using Result = remat::test::ProcessResult;

QString example(const char *name) {
    return qEnvironmentVariable("REMAT_SOURCE_DIR") + "/resources/models/" + name;
}

QJsonObject jsonOf(const Result &r) {
    return QJsonDocument::fromJson(r.out).object();
}

QJsonObject strategyNamed(const QJsonObject &doc, const QString &name) {
    for (const auto &v : doc["strategies"].toArray())
        if (v.toObject()["name"].toString() == name)
            return v.toObject();
    return {};
}

const char *kTimedFields[] = {"peak_device_bytes", "peak_host_bytes", "transfer_bytes", "stall_time", "makespan"};

} // namespace

class TestOffloadCli : public QObject {
    Q_OBJECT
private slots:
    // The documented command: 16 layers of 64 MiB, 2 ms forward, a 16 GB/s link.
    void issueCommandJson() {
        const Result r =
            remat::test::runRemat({"simulate", "--n", "16", "--node-bytes", "64MiB", "--forward-time", "2ms", "--link",
                                   "16GB/s", "--strategy", "store-all,offload-all", "--json"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.err.isEmpty());
        const QJsonObject doc = jsonOf(r);
        QCOMPARE(doc["machine"].toObject()["link_bytes_per_second"].toDouble(), 16e9);
        for (const auto &v : doc["strategies"].toArray())
            for (const char *field : kTimedFields)
                QVERIFY2(v.toObject().contains(field), field);
        const QJsonObject storeAll = strategyNamed(doc, "store-all"), offload = strategyNamed(doc, "offload-all");
        // 16 forwards of 2 ms and 17 backwards of 4 ms.
        QCOMPARE(storeAll["makespan"].toDouble(), 0.1);
        QCOMPARE(storeAll["stall_time"].toDouble(), 0.0);
        QCOMPARE(offload["compute_time"].toDouble(), storeAll["compute_time"].toDouble());
        // A 64 MiB copy takes 4.19 ms, more than a 2 ms forward: the forward stalls.
        QVERIFY(offload["stall_time"].toDouble() > 0);
        QCOMPARE(offload["makespan"].toDouble(), offload["compute_time"].toDouble() + offload["stall_time"].toDouble());
        QCOMPARE(qint64(offload["peak_device_bytes"].toDouble()), qint64(5) * 64 * 1048576);
        QCOMPARE(qint64(offload["transfer_bytes"].toDouble()), qint64(2 * 14) * 64 * 1048576);
        QCOMPARE(qint64(offload["peak_host_bytes"].toDouble()), qint64(14) * 64 * 1048576);
    }

    void issueCommandTable() {
        const Result r = remat::test::runRemat({"simulate", "--n", "16", "--node-bytes", "64MiB", "--forward-time",
                                                "2ms", "--link", "16GB/s", "--strategy", "store-all,offload-all"});
        QCOMPARE(r.exitCode, 0);
        for (const char *word : {"timed on link 16 GB/s", "host peak bytes", "transfer bytes", "stall time", "makespan",
                                 "offload-all", "forward 2 ms, backward 4 ms"})
            QVERIFY2(r.out.contains(word), word);
        // Costs that are times read as times: 16 forwards of 2 ms and 17 backward ops
        // of 4 ms make store-all's cost 100 ms (not "0.1").
        const QString storeAll = QString::fromUtf8(r.out).split('\n').filter(QRegularExpression("^store-all ")).value(0);
        QVERIFY2(storeAll.contains(QRegularExpression(" 100 ms +\\+0\\.0%")), qPrintable(storeAll));
    }

    // "all" with a link and a budget adds both offload strategies; the planner fits.
    void allWithALinkAndABudget() {
        const Result r = remat::test::runRemat({"simulate", "--n", "16", "--node-bytes", "64MiB", "--forward-time",
                                                "2ms", "--backward-time", "5ms", "--latency", "10us", "--link",
                                                "16GB/s", "--device-budget", "512MiB", "--json"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject doc = jsonOf(r);
        const QJsonObject planned = strategyNamed(doc, "offload-budget"), budget = strategyNamed(doc, "budget");
        QVERIFY(!planned.isEmpty() && !budget.isEmpty() && !strategyNamed(doc, "offload-all").isEmpty());
        QVERIFY(planned["peak_device_bytes"].toDouble() <= 512.0 * 1048576);
        QVERIFY(planned["makespan"].toDouble() <= budget["makespan"].toDouble());
        // 16 forwards of 2 ms and 17 backwards of 5 ms.
        QCOMPARE(strategyNamed(doc, "store-all")["makespan"].toDouble(), 16 * 0.002 + 17 * 0.005);
        QCOMPARE(doc["machine"].toObject()["link_latency"].toDouble(), 10e-6);
    }

    void timelineCsvHasBothStreams() {
        const Result r =
            remat::test::runRemat({"simulate", "--n", "4", "--node-bytes", "1.5MB", "--forward-time", "1ms", "--link",
                                   "1GB/s", "--strategy", "offload-all", "--csv", "--timeline"});
        QCOMPARE(r.exitCode, 0);
        const QList<QByteArray> lines = r.out.trimmed().split('\n');
        QCOMPARE(lines.first(),
                 QByteArray("strategy,step,op,node,resident_count,resident,bytes,records,saved_bytes,start,end,"
                            "host_bytes,on_host"));
        // docs/model.md's example: the free of a_1 waits for its copy until 2.5 ms.
        QCOMPARE(lines[4], QByteArray("offload-all,3,free,a_1,2,a_0 a_2,3000000,0,0,0.0025,0.0025,1500000,a_1"));
    }

    void planWithALink() {
        const Result r = remat::test::runRemat({"plan", "--model", example("mlp-uniform.json"), "--device-rate",
                                                "20TFLOP/s", "--link", "16GB/s", "--device-budget", "20MiB", "--json"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject doc = jsonOf(r);
        const QJsonObject plan = doc["plan"].toObject();
        QCOMPARE(plan["name"].toString(), QString("offload-budget"));
        for (const char *field : kTimedFields)
            QVERIFY2(plan.contains(field), field);
        QVERIFY(plan["peak_device_bytes"].toDouble() <= 20.0 * 1048576);
        QVERIFY(plan["offloads"].toInt() > 0);
        // Offloading hides every copy behind compute here: store-all's time in 20 MiB.
        QCOMPARE(plan["makespan"].toDouble(), doc["store_all"].toObject()["makespan"].toDouble());
        const Result text = remat::test::runRemat({"plan", "--model", example("mlp-uniform.json"), "--device-rate",
                                                   "20TFLOP/s", "--link", "16GB/s", "--device-budget", "20MiB"});
        QCOMPARE(text.exitCode, 0);
        for (const char *word : {"timed on link 16 GB/s, 1 GFLOP = 50 us", "offload(s)", "makespan", "host peak"})
            QVERIFY2(text.out.contains(word), word);
    }

    // The documented plan on a chain from flags: within the device budget, never
    // slower than the recompute-only plan for the same budget.
    void planChainWithALink() {
        const QStringList chain{"plan",   "--n",     "16",           "--node-bytes", "64MiB",
                                "--forward-time", "2ms", "--device-budget", "512MiB", "--json"};
        const Result offload = remat::test::runRemat(chain + QStringList{"--link", "16GB/s"});
        const Result recompute = remat::test::runRemat(chain + QStringList{"--link", "0B/s"});
        QCOMPARE(offload.exitCode, 0);
        QCOMPARE(recompute.exitCode, 0);
        const QJsonObject a = jsonOf(offload), b = jsonOf(recompute);
        QCOMPARE(a["model"].toObject()["layers"].toInt(), 16);
        const QJsonObject plan = a["plan"].toObject(), plain = b["plan"].toObject();
        QCOMPARE(plan["name"].toString(), QString("offload-budget"));
        QVERIFY(plan["peak_device_bytes"].toDouble() <= 512.0 * 1048576);
        QVERIFY(plan["offloads"].toInt() > 0);
        QCOMPARE(plain["offloads"].toInt(), 0);
        QVERIFY(plan["makespan"].toDouble() <= plain["makespan"].toDouble());
    }

    // A link of 0 B/s means no offloading: the recompute-only plan, timed.
    void planWithoutOffloading() {
        const QStringList base{"plan", "--model", example("mlp-uniform.json"), "--budget", "24MiB", "--json"};
        const Result none = remat::test::runRemat(base + QStringList{"--device-rate", "20TFLOP/s", "--link", "0B/s"});
        const Result plain = remat::test::runRemat(base);
        QCOMPARE(none.exitCode, 0);
        const QJsonObject a = jsonOf(none)["plan"].toObject(), b = jsonOf(plain)["plan"].toObject();
        QCOMPARE(a["offloads"].toInt(), 0);
        QCOMPARE(a["peak_bytes"].toDouble(), b["peak_bytes"].toDouble());
        QCOMPARE(a["cost"].toDouble(), b["cost"].toDouble());
        QCOMPARE(a["makespan"].toDouble(), b["cost"].toDouble() * 50e-6);
        QVERIFY(!b.contains("makespan"));
    }

    void frontierWithALink() {
        const Result r =
            remat::test::runRemat({"plan", "--model", example("mlp-uniform.json"), "--frontier", "--samples", "6",
                                   "--device-rate", "20TFLOP/s", "--link", "16GB/s", "--json"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject doc = jsonOf(r);
        const QJsonArray curve = doc["offload_curve"].toArray();
        QVERIFY(!curve.isEmpty());
        bool beats = false;
        for (const auto &v : curve) {
            const QJsonObject p = v.toObject();
            QVERIFY(p["makespan"].toDouble() <= p["recompute_makespan"].toDouble() * (1 + 1e-12));
            beats = beats || p["makespan"].toDouble() < p["recompute_makespan"].toDouble();
        }
        QVERIFY(beats);
        const Result table =
            remat::test::runRemat({"plan", "--model", example("mlp-uniform.json"), "--frontier", "--samples", "6",
                                   "--device-rate", "20TFLOP/s", "--link", "16GB/s"});
        QVERIFY(table.out.contains("with offloading, timed on link 16 GB/s"));
        QVERIFY(table.out.contains("offloading saves"));
    }

    void badInput_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        const QStringList chain{"simulate", "--n", "8", "--forward-time", "2ms"};
        QTest::newRow("link text")
            << chain + QStringList{"--link", "fast"}
            << "--link must be a bandwidth such as 16GB/s, 12.5GiB/s or 0B/s (no link), got 'fast'";
        QTest::newRow("link without /s") << chain + QStringList{"--link", "16GB"} << "got '16GB'";
        QTest::newRow("negative link") << chain + QStringList{"--link=-1GB/s"} << "got '-1GB/s'";
        QTest::newRow("latency without unit") << chain + QStringList{"--link", "16GB/s", "--latency", "5"}
                                              << "--latency must be a time such as 2ms, 150us, 1.5s or 0, got '5'";
        QTest::newRow("latency without a link")
            << chain + QStringList{"--latency", "5us"} << "--latency describes the link for offloading; give --link";
        QTest::newRow("forward time without unit")
            << QStringList{"simulate", "--forward-time", "2", "--link", "1GB/s"} << "--forward-time must be a time";
        QTest::newRow("backward time alone")
            << QStringList{"simulate", "--backward-time", "4ms"} << "--backward-time needs --forward-time";
        QTest::newRow("abstract costs") << QStringList{"simulate", "--link", "16GB/s"}
                                        << "the model's costs have no unit";
        QTest::newRow("FLOP without a rate")
            << QStringList{"plan", "--model", example("mlp-uniform.json"), "--link", "16GB/s", "--budget", "20MiB"}
            << "the model's costs are in GFLOP; timing transfers against compute needs the device's rate";
        QTest::newRow("zero rate") << QStringList{"plan",   "--model",       example("mlp-uniform.json"),
                                                  "--link", "16GB/s",        "--budget",
                                                  "20MiB",  "--device-rate", "0"}
                                   << "--device-rate must be a compute rate above 0";
        QTest::newRow("rate for times") << chain + QStringList{"--link", "1GB/s", "--device-rate", "1TFLOP/s"}
                                        << "a device rate applies only to costs in FLOP";
        QTest::newRow("zero device budget")
            << chain + QStringList{"--device-budget", "0"} << "--device-budget must be at least 1 byte, got '0'";
        QTest::newRow("device budget text")
            << chain + QStringList{"--device-budget", "lots"} << "--device-budget must be a byte size";
        QTest::newRow("two budgets") << chain + QStringList{"--device-budget", "1GiB", "--budget", "2GiB"}
                                     << "give the budget once";
        QTest::newRow("host budget text")
            << chain + QStringList{"--link", "1GB/s", "--host-budget", "lots"} << "--host-budget must be a byte size";
        QTest::newRow("offload-all without a link") << chain + QStringList{"--strategy", "offload-all"}
                                                    << "offload-all moves activations between device and host";
        QTest::newRow("offload-all on 0 B/s") << chain + QStringList{"--strategy", "offload-all", "--link", "0B/s"}
                                              << "offload-all needs a link faster than 0 B/s";
        QTest::newRow("offload-budget in nodes")
            << chain + QStringList{"--strategy", "offload-budget", "--link", "1GB/s", "--budget", "5"}
            << "offload-budget needs a device budget in bytes";
        QTest::newRow("forward time with a model")
            << QStringList{"simulate", "--model", example("mlp-uniform.json"), "--forward-time", "1ms"} << "excludes";
        QTest::newRow("frontier with a device budget")
            << QStringList{"plan", "--model", example("mlp-uniform.json"), "--frontier", "--device-budget", "1GiB"}
            << "--frontier plans every budget; leave out --device-budget";
        QTest::newRow("plan without a model")
            << QStringList{"plan", "--budget", "3"} << "plan needs --model FILE (docs/model-format.md) or a chain: --n N";
        QTest::newRow("plan with a model and a chain")
            << QStringList{"plan", "--model", example("mlp-uniform.json"), "--n", "8", "--budget", "3"} << "excludes";
        QTest::newRow("plan chain of no layers") << QStringList{"plan", "--n", "0", "--budget", "3"} << "--n";
        QTest::newRow("plan below the minimum")
            << QStringList{"plan",   "--model", example("mlp-uniform.json"), "--device-rate", "20TFLOP/s",
                           "--link", "16GB/s",  "--device-budget",           "1MiB"}
            << "is below the least device memory of these plans";
    }
    void badInput() {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        remat::test::checkRefused(args, message);
    }
};

QTEST_GUILESS_MAIN(TestOffloadCli)
#include "test_offload_cli.moc"
