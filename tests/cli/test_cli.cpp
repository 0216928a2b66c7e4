// The `remat` command as users run it: its documents, and every error path
// (exit status 2, one line on stderr naming the value, nothing on stdout).
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include "tests/common/cli_checks.h"
#include "tests/common/run_process.h"

namespace {
using Result = remat::test::ProcessResult;
} // namespace

class TestCli : public QObject {
    Q_OBJECT
private slots:
    void simulateJson() {
        const Result r = remat::test::runRemat({"simulate", "--n", "16", "--json"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.err.isEmpty());
        const QJsonObject doc = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(doc["n"].toInt(), 16);
        const QJsonArray strategies = doc["strategies"].toArray();
        QStringList names;
        for (const auto &v : strategies) {
            const QJsonObject s = v.toObject();
            names << s["name"].toString();
            for (const char *field :
                 {"peak_nodes", "peak_bytes", "forward_evaluations", "recomputations", "backward_ops", "ops", "cost"})
                QVERIFY2(s.contains(field), field);
            QCOMPARE(s["backward_ops"].toInt(), 17);
            QVERIFY(s["ops"].toInt() > s["forward_evaluations"].toInt());
        }
        QCOMPARE(names, (QStringList{"store-all", "recompute-all", "periodic"}));
        QCOMPARE(strategies[0].toObject()["forward_evaluations"].toInt(), 16);
        QCOMPARE(strategies[1].toObject()["forward_evaluations"].toInt(), 16 * 17 / 2);
        QVERIFY(strategies[2].toObject()["forward_evaluations"].toInt() <= 32);
        QVERIFY(strategies[1].toObject()["peak_nodes"].toInt() < strategies[2].toObject()["peak_nodes"].toInt());
        QVERIFY(strategies[2].toObject()["peak_nodes"].toInt() < strategies[0].toObject()["peak_nodes"].toInt());
    }

    void simulateTable() {
        const Result r = remat::test::runRemat({"simulate", "--n", "16"});
        QCOMPARE(r.exitCode, 0);
        for (const char *word : {"store-all", "recompute-all", "periodic", "peak nodes", "O(sqrt n)", "O(n^2)"})
            QVERIFY2(r.out.contains(word), word);
    }

    void checkpointsAndNodeBytes() {
        const Result r = remat::test::runRemat({"simulate", "--n", "16", "--strategy", "checkpoints", "--checkpoints",
                                                "3,7,11", "--node-bytes", "1MiB", "--json"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject s = QJsonDocument::fromJson(r.out).object()["strategies"].toArray()[0].toObject();
        QCOMPARE(s["name"].toString(), QString("checkpoints"));
        QCOMPARE(s["forward_evaluations"].toInt(), 2 * 16 - 3 - 1);
        QCOMPARE(qint64(s["peak_bytes"].toDouble()), qint64(s["peak_nodes"].toInt()) * 1048576);
    }

    void timelineCsvHasOneLinePerOp() {
        const Result json = remat::test::runRemat({"simulate", "--n", "8", "--strategy", "recompute-all", "--json"});
        const int ops = QJsonDocument::fromJson(json.out).object()["strategies"].toArray()[0].toObject()["ops"].toInt();
        const Result r =
            remat::test::runRemat({"simulate", "--n", "8", "--strategy", "recompute-all", "--csv", "--timeline"});
        QCOMPARE(r.exitCode, 0);
        const QList<QByteArray> lines = r.out.trimmed().split('\n');
        QCOMPARE(lines.first(), QByteArray("strategy,step,op,node,resident_count,resident,bytes,records,saved_bytes"));
        QCOMPARE(lines.size(), ops + 1);
        QVERIFY(lines.last().startsWith("recompute-all,"));
        QVERIFY(lines.last().contains("a_0 b_0"));
    }

    // A chain of 24 layers of 1 MiB outputs and 17 MiB saved internals.
    // Store-all records every layer; per-layer checkpointing (periodic --every 1)
    // keeps only the outputs and holds one layer's internals at a time.
    void savedBytesSplitThePeak() {
        const Result r = remat::test::runRemat({"simulate", "--n", "24", "--node-bytes", "1MiB", "--saved-bytes",
                                                "17MiB", "--strategy", "store-all,periodic", "--every", "1", "--json"});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject doc = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(qint64(doc["model"].toObject()["saved_bytes_total"].toDouble()), qint64(24) * 17 * 1048576);
        const QJsonArray s = doc["strategies"].toArray();
        const qint64 MiB = 1048576;
        for (const auto &v : s) {
            const QJsonObject o = v.toObject();
            QCOMPARE(qint64(o["peak_output_bytes"].toDouble()) + qint64(o["peak_saved_bytes"].toDouble()) +
                         qint64(o["peak_workspace_bytes"].toDouble()),
                     qint64(o["peak_bytes"].toDouble()));
        }
        const QJsonObject storeAll = s[0].toObject(), perLayer = s[1].toObject();
        QVERIFY(qint64(storeAll["peak_bytes"].toDouble()) > 24 * 18 * MiB);
        QCOMPARE(qint64(storeAll["peak_saved_bytes"].toDouble()), 24 * 17 * MiB);
        // a_0..a_24 and one gradient besides one layer's internals.
        QCOMPARE(qint64(perLayer["peak_saved_bytes"].toDouble()), 17 * MiB);
        QVERIFY(qint64(perLayer["peak_bytes"].toDouble()) <= (24 + 2) * MiB + 17 * MiB);
        QCOMPARE(perLayer["forward_evaluations"].toInt(), 24 + 23);

        const Result table = remat::test::runRemat({"simulate", "--n", "24", "--saved-bytes", "17"});
        QVERIFY(table.out.contains("saved at peak"));
        const Result plain = remat::test::runRemat({"simulate", "--n", "24"});
        QVERIFY(!plain.out.contains("saved at peak")); // abstract chains print the table they always did
    }

    // Each compute in the timeline says whether it records; saved internals are
    // released by free-saved rows, and the bytes column counts them.
    void timelineSaysWhatRecords() {
        const Result r = remat::test::runRemat({"simulate", "--n", "3", "--saved-bytes", "3", "--strategy", "periodic",
                                                "--every", "1", "--csv", "--timeline"});
        QCOMPARE(r.exitCode, 0);
        QStringList recorded, freedSaved;
        for (const QByteArray &line : r.out.trimmed().split('\n').mid(1)) {
            const QList<QByteArray> f = line.split(',');
            QCOMPARE(f.size(), 9);
            if (f[2] == "compute" && f[7] == "1")
                recorded << QString(f[3]);
            if (f[2] == "free-saved")
                freedSaved << QString(f[3]);
            QVERIFY(f[8].toLongLong() <= 3); // one layer's internals at a time
        }
        // a_1 and a_2 run discarding first and recording before their backward; a_3 records at once.
        QCOMPARE(recorded, (QStringList{"a_3", "a_2", "a_1"}));
        QCOMPARE(freedSaved, (QStringList{"a_3", "a_2", "a_1"}));
    }

    void sweepIsGeometric() {
        const Result r = remat::test::runRemat({"sweep", "--n", "4..64", "--json"});
        QCOMPARE(r.exitCode, 0);
        const QJsonArray sweep = QJsonDocument::fromJson(r.out).object()["sweep"].toArray();
        QList<int> ns;
        for (const auto &v : sweep)
            ns << v.toObject()["n"].toInt();
        QCOMPARE(ns, (QList<int>{4, 8, 16, 32, 64}));
        for (const auto &v : sweep) {
            const int n = v.toObject()["n"].toInt();
            const QJsonArray s = v.toObject()["strategies"].toArray();
            QCOMPARE(s[0].toObject()["forward_evaluations"].toInt(), n);
            QCOMPARE(s[1].toObject()["forward_evaluations"].toInt(), n * (n + 1) / 2);
        }
        const Result table = remat::test::runRemat({"sweep", "--n", "4..4096"});
        QCOMPARE(table.exitCode, 0);
        QVERIFY(table.out.contains("growth laws"));
        const Result csv = remat::test::runRemat({"sweep", "--n", "4..100", "--factor", "3", "--csv"});
        QCOMPARE(csv.exitCode, 0);
        QVERIFY(csv.out.startsWith("n,strategy,"));
        QVERIFY(csv.out.contains("\n100,periodic,")); // the last point is included
    }

    void help() {
        const Result r = remat::test::runRemat({"simulate", "--help"});
        QCOMPARE(r.exitCode, 0);
        for (const char *word : {"--n", "--strategy", "--every", "--checkpoints", "--json", "--csv", "--timeline",
                                 "--node-bytes", "Example"})
            QVERIFY2(r.out.contains(word), word);
    }

    void badInput_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("n zero") << QStringList{"simulate", "--n", "0"}
                                << "--n must be an integer from 1 to 1000000, got '0'";
        QTest::newRow("n negative") << QStringList{"simulate", "--n=-4"} << "got '-4'";
        QTest::newRow("n text") << QStringList{"simulate", "--n", "ten"} << "got 'ten'";
        QTest::newRow("n fraction") << QStringList{"simulate", "--n", "2.5"} << "got '2.5'";
        QTest::newRow("k zero") << QStringList{"simulate", "--n", "8", "--every", "0"}
                                << "--every must be an integer from 1 to 8, got '0'";
        QTest::newRow("k > n") << QStringList{"simulate", "--n", "8", "--every", "9"} << "got '9'";
        QTest::newRow("unknown strategy") << QStringList{"simulate", "--strategy", "sqrt"} << "unknown strategy 'sqrt'";
        QTest::newRow("checkpoint out of range")
            << QStringList{"simulate", "--n", "8", "--checkpoints", "3,8"} << "checkpoint 8 is out of range";
        QTest::newRow("checkpoints unsorted")
            << QStringList{"simulate", "--n", "8", "--checkpoints", "5,2"} << "increasing order";
        QTest::newRow("checkpoints duplicated")
            << QStringList{"simulate", "--n", "8", "--checkpoints", "2,2"} << "listed twice";
        QTest::newRow("checkpoints not numbers")
            << QStringList{"simulate", "--n", "8", "--checkpoints", "2,x"} << "'x' is not an integer";
        QTest::newRow("checkpoints without list")
            << QStringList{"simulate", "--strategy", "checkpoints"} << "needs a list";
        QTest::newRow("over the op limit") << QStringList{"simulate", "--n", "1000000", "--strategy", "recompute-all"}
                                           << "5.0e+11 forward evaluations";
        QTest::newRow("unknown option") << QStringList{"simulate", "--bogus"} << "--bogus";
        QTest::newRow("no subcommand") << QStringList{} << "subcommand";
        QTest::newRow("timeline without csv") << QStringList{"simulate", "--timeline"} << "--timeline needs --csv";
        QTest::newRow("json and csv") << QStringList{"simulate", "--json", "--csv"} << "excludes";
        QTest::newRow("bad node bytes") << QStringList{"simulate", "--node-bytes", "lots"} << "got 'lots'";
        QTest::newRow("bad saved bytes") << QStringList{"simulate", "--saved-bytes", "-3"} << "--saved-bytes";
        QTest::newRow("saved bytes with a model file")
            << QStringList{"simulate", "--model", "x.json", "--saved-bytes", "3"} << "excludes";
        QTest::newRow("sweep backwards") << QStringList{"sweep", "--n", "64..4"} << "must go upwards";
        QTest::newRow("sweep factor") << QStringList{"sweep", "--factor", "1"} << "--factor must be an integer from 2";
        QTest::newRow("sweep over the op limit")
            << QStringList{"sweep", "--n", "4..100000", "--strategy", "recompute-all"} << "the limit is";
        QTest::newRow("threads zero") << QStringList{"measure", "--threads", "0"}
                                      << "--threads must be an integer from 1 to 256, got '0'";
        QTest::newRow("threads negative") << QStringList{"measure", "--threads", "-1"}
                                          << "--threads must be an integer from 1 to 256, got '-1'";
        QTest::newRow("threads beyond the limit") << QStringList{"measure", "--threads", "100000"}
                                                  << "--threads must be an integer from 1 to 256, got '100000'";
        QTest::newRow("threads text") << QStringList{"measure", "--threads", "all"} << "got 'all'";
        QTest::newRow("sweep checkpoints")
            << QStringList{"sweep", "--strategy", "checkpoints"} << "sweep cannot run 'checkpoints'";
    }
    void badInput() {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        remat::test::checkRefused(args, message);
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "test_cli.moc"
