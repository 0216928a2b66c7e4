// `remat measure` end to end: the JSON it prints is what it measured, and bad
// sizes are refused with one line on stderr, exit 2, before any allocation.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QThread>
#include <QtTest>

namespace {

struct Run {
    int exitCode;
    QByteArray out;
    QByteArray err;
};

Run remat(const QStringList &args) {
    QProcess p;
    p.start(QStringLiteral(REMAT_CLI_PATH), QStringList{"measure"} + args);
    p.waitForFinished(120000);
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2, p.readAllStandardOutput(),
            p.readAllStandardError()};
}

} // namespace

class TestMeasureCli : public QObject {
    Q_OBJECT

private slots:
    void jsonReportsMeasuredEqualsPredicted() {
        const Run r = remat({"--n", "7", "--width", "16", "--batch", "5", "--repeat", "2", "--verify", "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject doc = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(doc["backend"].toString(), QString("cpu"));
        QVERIFY(!doc["device"].toString().isEmpty());
        QCOMPARE(doc["network"].toObject()["node_bytes"].toInteger(), 16 * 5 * 4);
        const QJsonArray rows = doc["strategies"].toArray();
        QVERIFY(rows.size() >= 3);
        for (const auto &v : rows) {
            const QJsonObject s = v.toObject();
            const QString name = s["strategy"].toString();
            QVERIFY2(s["measured_peak_bytes"].toInteger() == s["predicted_peak_bytes"].toInteger(), qPrintable(name));
            QVERIFY2(s["max_grad_diff_vs_store_all"].toDouble() == 0.0, qPrintable(name));
            QVERIFY(s["seconds_per_step"].toDouble() > 0);
            QVERIFY(s["forward_evaluations"].toInteger() >= 7);
            QVERIFY(s.contains("device_peak_bytes"));
            QCOMPARE(s["seconds_all_steps"].toArray().size(), 2);
        }
    }

    void tableWithoutJson() {
        const Run r = remat({"--n", "4", "--width", "8", "--batch", "2", "--strategy", "store-all,periodic"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(r.out.contains("measured peak"));
        // The pool's high-water mark has its own column; the CPU has no pool.
        QVERIFY(r.out.contains("allocator peak"));
        QVERIFY(r.out.contains("n/a"));
        QVERIFY(r.out.contains("periodic"));
        QVERIFY(!r.out.contains("recompute-all"));
    }

    void badInput_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("named");
        QTest::newRow("zero width") << QStringList{"--width", "0"} << "--width";
        QTest::newRow("zero n") << QStringList{"--n", "0"} << "--n";
        QTest::newRow("negative batch") << QStringList{"--batch", "-4"} << "--batch";
        QTest::newRow("overflowing batch") << QStringList{"--batch", "99999999999999999999999"} << "--batch";
        QTest::newRow("width beyond limit") << QStringList{"--width", "65537"} << "--width";
        QTest::newRow("absurd parameters")
            << QStringList{"--n", "100", "--width", "65536", "--batch", "1", "--strategy", "store-all"} << "available";
        QTest::newRow("absurd activations")
            << QStringList{"--n", "2", "--width", "65536", "--batch", "1048576"} << "available";
        QTest::newRow("unknown backend") << QStringList{"--backend", "tpu", "--n", "2"} << "--backend";
        QTest::newRow("unknown strategy") << QStringList{"--strategy", "magic"} << "magic";
        QTest::newRow("zero repeat") << QStringList{"--repeat", "0"} << "--repeat";
        const QStringList transformer{"--network", "transformer"};
        QTest::newRow("unknown network") << QStringList{"--network", "rnn"} << "--network must be mlp or transformer";
        QTest::newRow("h not divisible by heads") << transformer + QStringList{"--hidden", "10", "--heads", "3"}
                                                  << "--hidden 10 is not divisible by --heads 3";
        QTest::newRow("more heads than h") << transformer + QStringList{"--hidden", "4", "--heads", "8"} << "heads";
        QTest::newRow("zero seq") << transformer + QStringList{"--seq", "0"} << "--seq";
        QTest::newRow("tokens overflow") << transformer + QStringList{"--seq", "1048576", "--batch", "1048576"}
                                         << "tokens";
        QTest::newRow("probabilities overflow")
            << transformer + QStringList{"--hidden", "64", "--heads", "64", "--seq", "262144", "--batch", "64"}
            << "remat accepts for one layer";
        QTest::newRow("transformer does not fit")
            << transformer + QStringList{"--layers", "100", "--hidden", "65536", "--seq", "8", "--batch", "1"}
            << "available";
        QTest::newRow("mlp option on the transformer") << transformer + QStringList{"--width", "16"} << "--width";
        QTest::newRow("transformer option on the mlp") << QStringList{"--heads", "4"} << "--heads";
        QTest::newRow("link without a rate")
            << QStringList{"--strategy", "offload-all", "--link", "16GB/s"} << "--device-rate";
        QTest::newRow("latency without a link") << QStringList{"--latency", "10us"} << "--link";
        QTest::newRow("bad link") << QStringList{"--strategy", "offload-all", "--link", "fast"} << "--link";
        QTest::newRow("offload-budget without a budget")
            << QStringList{"--strategy", "offload-budget", "--link", "16GB/s", "--device-rate", "1TFLOP/s"}
            << "budget";
    }

    // Offloading: without --link offload-all runs on an instant link (memory
    // only); the host arena's peak is measured beside the simulator's, and
    // --verify checks it with the device peak and the gradients.
    void offloadAllVerified() {
        const Run r = remat({"--n", "9", "--width", "16", "--batch", "5", "--repeat", "1", "--strategy",
                             "store-all,offload-all", "--verify", "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject doc = QJsonDocument::fromJson(r.out).object();
        QVERIFY(doc["link"].toString().startsWith("instant"));
        const QJsonObject offload = doc["strategies"].toArray()[1].toObject();
        QCOMPARE(offload["strategy"].toString(), QString("offload-all"));
        QVERIFY(offload["offloads"].toInteger() > 0);
        QVERIFY(offload["predicted_peak_host_bytes"].toInteger() > 0);
        QCOMPARE(offload["measured_peak_host_bytes"].toInteger(), offload["predicted_peak_host_bytes"].toInteger());
        QCOMPARE(offload["measured_peak_bytes"].toInteger(), offload["predicted_peak_bytes"].toInteger());
        QVERIFY(offload["gradients_bitwise_equal_to_store_all"].toBool());
        QVERIFY(offload["predicted_makespan"].isNull()); // no link given: no time predicted
    }

    // With a link and a rate, offload-budget plans for --device-budget and the
    // table shows host peaks and the predicted makespan.
    void offloadBudgetOnALink() {
        const QStringList args{"--n",      "12",           "--width",         "16",   "--batch",
                               "4",        "--repeat",     "1",               "--link", "4MB/s",
                               "--device-rate", "10MFLOP/s", "--device-budget", "2000B", "--strategy",
                               "store-all,offload-all,offload-budget", "--verify"};
        const Run table = remat(args);
        QVERIFY2(table.exitCode == 0, table.err.constData());
        QVERIFY2(table.out.contains("measured host peak") && table.out.contains("predicted makespan"),
                 table.out.constData());
        const Run r = remat(args + QStringList{"--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject budget = QJsonDocument::fromJson(r.out).object()["strategies"].toArray()[2].toObject();
        QCOMPARE(budget["strategy"].toString(), QString("offload-budget"));
        QVERIFY(budget["predicted_peak_bytes"].toInteger() <= 2000);
        QVERIFY(budget["predicted_makespan"].toDouble() > 0);
        QCOMPARE(budget["measured_peak_host_bytes"].toInteger(), budget["predicted_peak_host_bytes"].toInteger());
    }
    // --threads: the JSON and the device line say how many; the gradients
    // (per tensor L2 norm and sum) are the same on 1 and 3 threads, to the bit.
    void threadsGiveTheSameGradients() {
        const QStringList shape{"--network", "transformer", "--layers", "2", "--hidden", "24", "--heads",
                                "3",         "--seq",         "7", "--batch", "3", "--repeat", "1", "--verify", "--json"};
        const Run one = remat(shape + QStringList{"--threads", "1"}), three = remat(shape + QStringList{"--threads", "3"});
        QVERIFY2(one.exitCode == 0, one.err.constData());
        QVERIFY2(three.exitCode == 0, three.err.constData());
        const QJsonObject a = QJsonDocument::fromJson(one.out).object(), b = QJsonDocument::fromJson(three.out).object();
        QCOMPARE(a["threads"].toInt(), 1);
        QCOMPARE(b["threads"].toInt(), 3);
        QVERIFY2(b["device"].toString().contains("3 threads"), qPrintable(b["device"].toString()));
        QVERIFY(b["kernel_scratch_bytes"].toInteger() > 0);
        const QJsonArray ga = a["gradients"].toArray(), gb = b["gradients"].toArray();
        QVERIFY(!ga.isEmpty());
        QCOMPARE(ga, gb);
        QVERIFY(ga.first().toObject()["l2"].toDouble() > 0);
    }

    // Without --threads: every core this process may use.
    void threadsDefaultToEveryCore() {
        const Run r = remat({"--n", "3", "--width", "8", "--batch", "2", "--strategy", "store-all", "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(QJsonDocument::fromJson(r.out).object()["threads"].toInt(), QThread::idealThreadCount());
    }

    void badInput() {
        QFETCH(QStringList, args);
        QFETCH(QString, named);
        QElapsedTimer clock;
        clock.start();
        const Run r = remat(args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.out.isEmpty());
        QCOMPARE(r.err.count('\n'), 1);
        QVERIFY2(r.err.startsWith("remat: ") && r.err.contains(named.toUtf8()), r.err.constData());
        QVERIFY2(clock.elapsed() < 30000, "refused only after working"); // nothing was allocated first
    }

    // The transformer: every strategy measured == predicted and bitwise equal
    // to store-all; per-layer checkpointing re-runs every layer recording.
    void transformerMeasuredEqualsPredicted() {
        const Run r = remat({"--network", "transformer", "--layers", "3", "--hidden", "16", "--heads", "2", "--seq",
                             "6", "--batch", "2", "--repeat", "1", "--verify", "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject doc = QJsonDocument::fromJson(r.out).object();
        const QJsonObject net = doc["network"].toObject();
        QCOMPARE(net["node_bytes"].toInteger(), 16 * 6 * 2 * 4);
        qint64 listed = 0;
        for (const auto &b : net["saved_buffers"].toArray())
            listed += b.toObject()["bytes"].toInteger();
        QCOMPARE(net["saved_bytes_per_layer"].toInteger(), listed);
        QCOMPARE(doc["gradients"].toArray().size(), 3 * 12);
        const QJsonArray rows = doc["strategies"].toArray();
        QVERIFY(rows.size() >= 3);
        for (const auto &v : rows) {
            const QJsonObject s = v.toObject();
            const QString name = s["strategy"].toString();
            QVERIFY2(s["measured_peak_bytes"].toInteger() == s["predicted_peak_bytes"].toInteger(), qPrintable(name));
            QVERIFY2(s["gradients_bitwise_equal_to_store_all"].toBool(), qPrintable(name));
        }
    }

    // dtr within a budget below store-all's: it evicts and recomputes, the
    // measured peak is the predicted one within the budget, the gradients
    // are store-all's bit for bit (mlp, and the transformer's saved internals).
    void dtrRunsWithinItsBudget_data() {
        QTest::addColumn<QStringList>("network");
        QTest::addColumn<qint64>("budget");
        QTest::newRow("mlp") << QStringList{"--n", "8", "--width", "16", "--batch", "4"} << qint64(2048);
        QTest::newRow("transformer") << QStringList{"--network", "transformer", "--layers", "3", "--hidden", "16",
                                                   "--heads", "2", "--seq", "6", "--batch", "2"}
                                     << qint64(16384);
    }
    void dtrRunsWithinItsBudget() {
        QFETCH(QStringList, network);
        QFETCH(qint64, budget);
        const Run r = remat(network + QStringList{"--strategy", "store-all,dtr", "--budget", QString("%1B").arg(budget),
                                                  "--repeat", "1", "--verify", "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonArray rows = QJsonDocument::fromJson(r.out).object()["strategies"].toArray();
        QCOMPARE(rows.size(), 2);
        const QJsonObject storeAll = rows[0].toObject(), dtr = rows[1].toObject();
        QCOMPARE(dtr["strategy"].toString(), QString("dtr"));
        QCOMPARE(dtr["measured_peak_bytes"].toInteger(), dtr["predicted_peak_bytes"].toInteger());
        QVERIFY(dtr["measured_peak_bytes"].toInteger() <= budget);
        QVERIFY(storeAll["measured_peak_bytes"].toInteger() > budget);
        QVERIFY(dtr["forward_evaluations"].toInteger() > storeAll["forward_evaluations"].toInteger());
        QVERIFY(dtr["gradients_bitwise_equal_to_store_all"].toBool());
    }

    void perLayerCheckpointingHoldsLayerInputs() {
        const Run r = remat(
            {"--network", "transformer", "--layers", "4",     "--hidden", "16", "--heads",    "4",
             "--seq",     "8",           "--batch",  "2",     "--repeat", "1",  "--strategy", "store-all,periodic",
             "--every",   "1",           "--verify", "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject doc = QJsonDocument::fromJson(r.out).object();
        const qint64 node = doc["network"].toObject()["node_bytes"].toInteger();
        const qint64 saved = doc["network"].toObject()["saved_bytes_per_layer"].toInteger();
        const QJsonArray rows = doc["strategies"].toArray();
        const QJsonObject storeAll = rows[0].toObject(), perLayer = rows[1].toObject();
        QCOMPARE(storeAll["forward_evaluations"].toInteger(), 4);
        QCOMPARE(perLayer["forward_evaluations"].toInteger(), 7); // each layer but the last again, recording
        // store-all holds every layer's internals at once, per-layer checkpointing one layer's.
        QVERIFY(storeAll["measured_peak_bytes"].toInteger() >= 4 * (node + saved));
        QVERIFY(perLayer["measured_peak_bytes"].toInteger() <=
                storeAll["measured_peak_bytes"].toInteger() - 3 * saved + 4 * node);
    }

    // Both networks. No GPU here: the runtime's own reason, exit 2, nothing
    // on stdout. With a GPU: a verified cuda report of that network.
    void cudaBackendWithOrWithoutDevice_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("nodeBytesKey");
        QTest::newRow("mlp") << QStringList{"--n", "3", "--width", "16", "--batch", "4"} << "width";
        QTest::newRow("transformer") << QStringList{"--network", "transformer", "--layers", "3", "--hidden", "24",
                                                    "--heads",   "3",           "--seq",    "5", "--batch",  "3"}
                                     << "heads";
    }
    void cudaBackendWithOrWithoutDevice() {
        QFETCH(QStringList, args);
        QFETCH(QString, nodeBytesKey);
        const Run r = remat(QStringList{"--backend", "cuda", "--verify", "--json"} + args);
        if (r.exitCode == 2) {
            QVERIFY2(r.err.startsWith("remat: CUDA not available: "), r.err.constData());
            QVERIFY(r.out.isEmpty());
        } else {
            QVERIFY2(r.exitCode == 0, r.err.constData());
            const QJsonObject doc = QJsonDocument::fromJson(r.out).object();
            QCOMPARE(doc["backend"].toString(), QString("cuda"));
            QVERIFY(doc["network"].toObject().contains(nodeBytesKey));
        }
    }
};

QTEST_GUILESS_MAIN(TestMeasureCli)
#include "test_measure_cli.moc"
