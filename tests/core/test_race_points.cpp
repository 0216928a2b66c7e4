// core/race_points.h: the framework race's JSON (bench/framework_race.py
// --json) read all or nothing; the shipped results read, bad files refused
// with a message naming the file, the value and what is allowed.
#include "core/errors.h"
#include "core/race_points.h"

#include <QtTest>

using namespace remat;

namespace {

std::string raceFile(const char *name) {
    return std::string(qgetenv("REMAT_SOURCE_DIR").constData()) + "/bench/results/2026-11-27-frameworks/" + name;
}

// A valid file with one point; `point` replaces the point's keys when given.
QByteArray withPoint(const QByteArray &point) {
    return R"({"model": "m.py:model", "torch": "2.15.0", "points": [)" + point + "]}";
}

const QByteArray kGoodPoint = R"({"who": "store-all", "kind": "peer", "observed_peak_bytes": 1000,
                                   "recompute_flops": 0, "step_seconds": 0.2})";

} // namespace

class TestRacePoints : public QObject {
    Q_OBJECT
private slots:
    void readsTheShippedRaces_data() {
        QTest::addColumn<QString>("file");
        QTest::newRow("loaded run") << "gpt2.json";
        QTest::newRow("quiet run") << "gpt2-quiet.json";
    }
    void readsTheShippedRaces() {
        QFETCH(QString, file);
        const RaceResult r = readRaceFile(raceFile(file.toUtf8().constData()));
        QCOMPARE(QString::fromStdString(r.model),
                 QStringLiteral("bench/results/2026-11-27-frameworks/gpt2_race.py:model"));
        QCOMPARE(QString::fromStdString(r.torch), QStringLiteral("2.15.0+cu132"));
        QCOMPARE(int(r.points.size()), 15);
        QCOMPARE(int(r.notRun.size()), 4);
        // The table of docs/pytorch.md: store-all first, per-layer's peak and re-run FLOPs.
        QCOMPARE(QString::fromStdString(r.points[0].who), QStringLiteral("store-all"));
        QCOMPARE(r.points[0].kind, RaceKind::Peer);
        QCOMPARE(r.points[0].observedPeakBytes, std::int64_t(114870280));
        QCOMPARE(r.points[1].observedPeakBytes, std::int64_t(32659464));
        QCOMPARE(r.points[1].recomputeFlops, 3758096384.0);
        int peers = 0, compiles = 0, remats = 0;
        for (const RacePoint &p : r.points) {
            peers += p.kind == RaceKind::Peer;
            compiles += p.kind == RaceKind::Compile;
            remats += p.kind == RaceKind::Remat;
            QVERIFY(p.stepSeconds > 0);
        }
        QCOMPARE(peers, 3);
        QCOMPARE(compiles, 5);
        QCOMPARE(remats, 7);
    }

    void refusesBadFiles_data() {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("says"); // part of the message after "race.json: "
        QTest::newRow("not JSON") << QByteArray("{\"model\": ") << "not valid JSON";
        QTest::newRow("an array") << QByteArray("[1, 2]") << "/: expected an object with \"model\"";
        QTest::newRow("no model") << QByteArray(R"({"torch": "2", "points": []})") << "/: missing \"model\" (a string)";
        QTest::newRow("model a number") << QByteArray(R"({"model": 3, "torch": "2", "points": []})")
                                        << "/model: expected a string, got 3";
        QTest::newRow("no torch") << QByteArray(R"({"model": "m", "points": []})") << "/: missing \"torch\"";
        QTest::newRow("no points") << QByteArray(R"({"model": "m", "torch": "2"})") << "/: missing \"points\"";
        QTest::newRow("no point") << withPoint("") << "/points: expected a non-empty array";
        QTest::newRow("points an object") << QByteArray(R"({"model": "m", "torch": "2", "points": {}})")
                                          << "/points: expected a non-empty array of measured configurations, got {}";
        QTest::newRow("point a number") << withPoint("7") << "/points/0: expected an object with who, kind";
        QTest::newRow("no who") << withPoint(R"({"kind": "peer", "observed_peak_bytes": 1, "recompute_flops": 0,
                                                 "step_seconds": 1})")
                                << "/points/0: missing \"who\" (a string)";
        QTest::newRow("empty who") << withPoint(R"({"who": "", "kind": "peer", "observed_peak_bytes": 1,
                                                    "recompute_flops": 0, "step_seconds": 1})")
                                   << "/points/0/who: expected the configuration's name";
        QTest::newRow("unknown kind") << withPoint(R"({"who": "x", "kind": "jax", "observed_peak_bytes": 1,
                                                       "recompute_flops": 0, "step_seconds": 1})")
                                      << "/points/0/kind: expected \"remat\", \"peer\" or \"compile\", got \"jax\"";
        QTest::newRow("kind a number") << withPoint(R"({"who": "x", "kind": 1, "observed_peak_bytes": 1,
                                                        "recompute_flops": 0, "step_seconds": 1})")
                                       << "/points/0/kind: expected a string, got 1";
        QTest::newRow("no peak") << withPoint(R"({"who": "x", "kind": "peer", "recompute_flops": 0,
                                                  "step_seconds": 1})")
                                 << "/points/0: missing \"observed_peak_bytes\" (a whole number of bytes >= 0)";
        QTest::newRow("peak a string") << withPoint(R"({"who": "x", "kind": "peer", "observed_peak_bytes": "2 MiB",
                                                        "recompute_flops": 0, "step_seconds": 1})")
                                       << "/points/0/observed_peak_bytes: expected a whole number of bytes >= 0, "
                                          "got \"2 MiB\"";
        QTest::newRow("negative peak")
            << withPoint(R"({"who": "x", "kind": "peer", "observed_peak_bytes": -5,
                                                        "recompute_flops": 0, "step_seconds": 1})")
            << "/points/0/observed_peak_bytes: expected a whole number of bytes >= 0, got -5";
        QTest::newRow("fractional peak")
            << withPoint(R"({"who": "x", "kind": "peer", "observed_peak_bytes": 1.5,
                                                          "recompute_flops": 0, "step_seconds": 1})")
            << "/points/0/observed_peak_bytes: expected a whole number of bytes >= 0, got 1.5";
        QTest::newRow("flops null") << withPoint(R"({"who": "x", "kind": "peer", "observed_peak_bytes": 1,
                                                     "recompute_flops": null, "step_seconds": 1})")
                                    << "/points/0/recompute_flops: expected a whole number of FLOPs";
        QTest::newRow("negative time") << withPoint(R"({"who": "x", "kind": "peer", "observed_peak_bytes": 1,
                                                        "recompute_flops": 0, "step_seconds": -1})")
                                       << "/points/0/step_seconds: expected seconds >= 0, got -1";
        QTest::newRow("second point bad")
            << QByteArray(R"({"model": "m", "torch": "2", "points": [)" + kGoodPoint +
                          R"(, {"who": "y", "kind": "peer", "observed_peak_bytes": 1, "recompute_flops": 0}]})")
            << "/points/1: missing \"step_seconds\" (seconds >= 0)";
        QTest::newRow("not_run an object")
            << QByteArray(R"({"model": "m", "torch": "2", "points": [)" + kGoodPoint + R"(], "not_run": {}})")
            << "/not_run: expected an array";
        QTest::newRow("not_run without reason") << QByteArray(R"({"model": "m", "torch": "2", "points": [)" +
                                                              kGoodPoint + R"(], "not_run": [{"who": "inductor"}]})")
                                                << "/not_run/0: missing \"reason\" (a string)";
    }
    void refusesBadFiles() {
        QFETCH(QByteArray, text);
        QFETCH(QString, says);
        try {
            parseRaceJson(text.toStdString(), "race.json");
            QFAIL("accepted");
        } catch (const InvalidArgument &e) {
            const QString message = QString::fromUtf8(e.what());
            QVERIFY2(message.startsWith(QStringLiteral("race.json: ")), qPrintable(message));
            QVERIFY2(message.contains(says), qPrintable(message));
        }
    }

    void acceptsWhatItDoesNotUse() {
        // Keys the race adds (budget_bytes, backend...) and a point that re-ran fewer FLOPs than store-all.
        const RaceResult r = parseRaceJson(
            withPoint(R"({"who": "c", "kind": "compile", "observed_peak_bytes": 4096, "recompute_flops": -128,
                          "step_seconds": 0, "backend": "aot_eager", "activation_memory_budget": 0.5})")
                .toStdString(),
            "race.json");
        QCOMPARE(int(r.points.size()), 1);
        QCOMPARE(r.points[0].kind, RaceKind::Compile);
        QCOMPARE(r.points[0].recomputeFlops, -128.0);
        QVERIFY(r.date.empty());
        QVERIFY(r.notRun.empty());
    }

    void aMissingFileIsNamed() {
        try {
            readRaceFile("/no/such/race.json");
            QFAIL("accepted");
        } catch (const InvalidArgument &e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("/no/such/race.json")), e.what());
        }
    }
};

QTEST_APPLESS_MAIN(TestRacePoints)
#include "test_race_points.moc"
