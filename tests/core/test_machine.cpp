// The machine for offloading (core/machine.h, core/rates.h): times, rates and
// bandwidths as people write them, how a model's costs become seconds (and
// the refusal when they cannot), and the "link", "device" and "host" keys of
// model files, refused with the file and the JSON pointer like the rest.
#include "core/errors.h"
#include "core/machine.h"
#include "core/model_io.h"
#include "core/rates.h"

#include <QtTest>
#include <cmath>

using namespace remat;

namespace {

Model withCostUnit(const char *unit) {
    Model m = Model::chain(2);
    m.setCostUnit(unit);
    return m;
}

// A two-node model file with `extra` top-level keys.
std::string modelText(const std::string &extra) {
    return R"({"units": {"cost": "GFLOP"}, "nodes": [{"name": "in", "bytes": 4}, {"name": "l1", "bytes": 4}])" +
           (extra.empty() ? std::string() : ", " + extra) + "}";
}

} // namespace

class TestMachine : public QObject {
    Q_OBJECT
private slots:
    void parsesTimesRatesAndBandwidths_data() {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("text");
        QTest::addColumn<double>("value");
        QTest::newRow("ms") << "time"
                            << "2ms" << 0.002;
        QTest::newRow("us with space") << "time"
                                       << "150 us" << 150e-6;
        QTest::newRow("micro sign") << "time"
                                    << "10\u00b5s" << 10e-6;
        QTest::newRow("seconds") << "time"
                                 << "1.5s" << 1.5;
        QTest::newRow("ns") << "time"
                            << "40ns" << 40e-9;
        QTest::newRow("bare zero") << "time"
                                   << "0" << 0.0;
        QTest::newRow("GB/s") << "bandwidth"
                              << "16GB/s" << 16e9;
        QTest::newRow("GiB/s") << "bandwidth"
                               << "12.5 GiB/s" << 12.5 * 1073741824.0;
        QTest::newRow("no link") << "bandwidth"
                                 << "0B/s" << 0.0;
        QTest::newRow("plain bytes per second") << "bandwidth"
                                                << "1000" << 1000.0;
        QTest::newRow("TFLOP/s") << "rate"
                                 << "100TFLOP/s" << 1e14;
        QTest::newRow("TFLOPS") << "rate"
                                << "312 TFLOPS" << 312e12;
        QTest::newRow("plain exponent") << "rate"
                                        << "1e14" << 1e14;
    }
    void parsesTimesRatesAndBandwidths() {
        QFETCH(QString, kind);
        QFETCH(QString, text);
        QFETCH(double, value);
        const std::string t = text.toStdString();
        const double got = kind == "time"   ? parseSeconds(t, "--x")
                           : kind == "rate" ? parseFlopRate(t, "--x")
                                            : parseBandwidth(t, "--x");
        QVERIFY2(std::fabs(got - value) <= 1e-12 * std::max(1.0, value), qPrintable(QString::number(got)));
    }

    void refusesWithTheValueAndWhatIsAllowed_data() {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("message");
        QTest::newRow("time without unit") << "time"
                                           << "2"
                                           << "--x must be a time such as 2ms, 150us, 1.5s or 0, got '2'";
        QTest::newRow("negative time") << "time"
                                       << "-1ms"
                                       << "got '-1ms'";
        QTest::newRow("unknown time unit") << "time"
                                           << "2 fortnights"
                                           << "got '2 fortnights'";
        QTest::newRow("size, not a rate") << "bandwidth"
                                          << "16GB"
                                          << "--x must be a bandwidth such as 16GB/s";
        QTest::newRow("bandwidth text") << "bandwidth"
                                        << "fast"
                                        << "got 'fast'";
        QTest::newRow("negative bandwidth") << "bandwidth"
                                            << "-1GB/s"
                                            << "got '-1GB/s'";
        QTest::newRow("zero rate") << "rate"
                                   << "0"
                                   << "--x must be a compute rate above 0";
        QTest::newRow("rate unit") << "rate"
                                   << "100 TB/s"
                                   << "got '100 TB/s'";
    }
    void refusesWithTheValueAndWhatIsAllowed() {
        QFETCH(QString, kind);
        QFETCH(QString, text);
        QFETCH(QString, message);
        const std::string t = text.toStdString();
        try {
            if (kind == "time")
                parseSeconds(t, "--x");
            else if (kind == "rate")
                parseFlopRate(t, "--x");
            else
                parseBandwidth(t, "--x");
            QFAIL("expected InvalidArgument");
        } catch (const InvalidArgument &e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(message), e.what());
        }
    }

    void formats() {
        QCOMPARE(QString::fromStdString(formatSeconds(0.0041943)), QString("4.194 ms"));
        QCOMPARE(QString::fromStdString(formatSeconds(2)), QString("2 s"));
        QCOMPARE(QString::fromStdString(formatSeconds(150e-6)), QString("150 us"));
        QCOMPARE(QString::fromStdString(formatSeconds(0)), QString("0 s"));
        QCOMPARE(QString::fromStdString(formatBandwidth(16e9)), QString("16 GB/s"));
        QCOMPARE(QString::fromStdString(formatBandwidth(25.6e9)), QString("25.6 GB/s"));
        QCOMPARE(QString::fromStdString(formatFlopRate(1e14)), QString("100 TFLOP/s"));
    }

    // Costs become seconds: a time unit says how; FLOP need the device's rate.
    void costsBecomeSeconds_data() {
        QTest::addColumn<QString>("unit");
        QTest::addColumn<double>("rate"); // 0: none given
        QTest::addColumn<double>("seconds");
        QTest::newRow("seconds") << "s" << 0.0 << 1.0;
        QTest::newRow("milliseconds") << "ms" << 0.0 << 1e-3;
        QTest::newRow("GFLOP at 100 TFLOP/s") << "GFLOP" << 1e14 << 1e-5;
        QTest::newRow("FLOP at 1 GFLOP/s") << "FLOP" << 1e9 << 1e-9;
    }
    void costsBecomeSeconds() {
        QFETCH(QString, unit);
        QFETCH(double, rate);
        QFETCH(double, seconds);
        const Model m = withCostUnit(qPrintable(unit));
        const double got = secondsPerCostUnit(m, rate > 0 ? std::optional<double>(rate) : std::nullopt);
        QVERIFY(std::fabs(got - seconds) <= 1e-15);
    }

    void refusesCostsThatCannotBeTimed_data() {
        QTest::addColumn<QString>("unit");
        QTest::addColumn<double>("rate");
        QTest::addColumn<QString>("message");
        QTest::newRow("abstract costs") << "" << 0.0 << "the model's costs have no unit";
        QTest::newRow("FLOP without a rate") << "GFLOP" << 0.0 << "the model's costs are in GFLOP; timing transfers";
        QTest::newRow("a rate for times") << "ms" << 1e12 << "a device rate applies only to costs in FLOP";
        QTest::newRow("unknown unit") << "cycles" << 0.0 << "cost unit \"cycles\" is neither a time";
    }
    void refusesCostsThatCannotBeTimed() {
        QFETCH(QString, unit);
        QFETCH(double, rate);
        QFETCH(QString, message);
        const Model m = withCostUnit(qPrintable(unit));
        try {
            secondsPerCostUnit(m, rate > 0 ? std::optional<double>(rate) : std::nullopt);
            QFAIL("expected InvalidArgument");
        } catch (const InvalidArgument &e) {
            QVERIFY2(QString(e.what()).contains(message), e.what());
        }
    }

    void linkTimesATransfer() {
        Link link{16e9, 10e-6};
        QCOMPARE(link.seconds(64 << 20), 10e-6 + double(64 << 20) / 16e9);
        link.bytesPerSecond = std::numeric_limits<double>::infinity();
        QCOMPARE(link.seconds(64 << 20), 10e-6);
        QVERIFY(!Link{}.carries());
    }

    // The file's keys, read into a MachineSpec and resolved against its model.
    void readsTheMachineOfAModelFile() {
        const ModelFile f = parseModelJson(
            modelText(R"("link": {"bandwidth": "16 GB/s", "latency": "10 us"}, "device": {"rate": "100 TFLOP/s", )"
                      R"("budget": "1 GiB"}, "host": {"budget": 64})"),
            "m.json");
        QCOMPARE(*f.machine.linkBytesPerSecond, 16e9);
        QCOMPARE(*f.machine.linkLatencySeconds, 10e-6);
        QCOMPARE(*f.machine.deviceFlopsPerSecond, 1e14);
        QCOMPARE(*f.machine.deviceBudgetBytes, std::int64_t(1) << 30);
        QCOMPARE(*f.machine.hostBudgetBytes, std::int64_t(64));
        const Machine m = resolveMachine(f.model, f.machine);
        QCOMPARE(m.secondsPerCost, 1e9 / 1e14);
        QCOMPARE(m.link.bytesPerSecond, 16e9);
        // Flags override the file, piece by piece.
        MachineSpec flags;
        flags.linkBytesPerSecond = 0;
        const MachineSpec merged = f.machine.overriddenBy(flags);
        QCOMPARE(*merged.linkBytesPerSecond, 0.0);
        QCOMPARE(*merged.linkLatencySeconds, 10e-6);
        // Without the keys the file says nothing of a machine.
        QVERIFY(!parseModelJson(modelText(""), "m.json").machine.hasLink());
    }

    void refusesBadMachineKeys_data() {
        QTest::addColumn<QString>("extra");
        QTest::addColumn<QString>("message");
        QTest::newRow("bandwidth text")
            << R"("link": {"bandwidth": "fast"})"
            << R"(m.json: /link/bandwidth: expected a bandwidth >= 0 such as "16 GB/s" or a number of bytes per second, got "fast")";
        QTest::newRow("negative bandwidth") << R"("link": {"bandwidth": -5})"
                                            << "m.json: /link/bandwidth: expected";
        QTest::newRow("missing bandwidth") << R"("link": {"latency": "1 us"})"
                                           << "m.json: /link: missing \"bandwidth\"";
        QTest::newRow("latency without unit") << R"("link": {"bandwidth": 1, "latency": "5"})"
                                              << "m.json: /link/latency: expected a time >= 0";
        QTest::newRow("unknown link key") << R"("link": {"bandwith": 1})"
                                          << "m.json: /link/bandwith: unknown key \"bandwith\"";
        QTest::newRow("link not an object") << R"("link": "16 GB/s")"
                                            << "m.json: /link: expected an object";
        QTest::newRow("zero rate") << R"("device": {"rate": 0})"
                                   << "m.json: /device/rate: expected a rate above 0";
        QTest::newRow("rate text") << R"("device": {"rate": "quick"})"
                                   << "m.json: /device/rate: expected a rate";
        QTest::newRow("zero device budget") << R"("device": {"budget": 0})"
                                            << "m.json: /device/budget: expected at least 1 byte";
        QTest::newRow("host budget text") << R"("host": {"budget": "lots"})"
                                          << "m.json: /host/budget: expected a size";
        QTest::newRow("unknown host key") << R"("host": {"memory": 5})"
                                          << "m.json: /host/memory: unknown key";
    }
    void refusesBadMachineKeys() {
        QFETCH(QString, extra);
        QFETCH(QString, message);
        try {
            parseModelJson(modelText(extra.toStdString()), "m.json");
            QFAIL("expected InvalidArgument");
        } catch (const InvalidArgument &e) {
            QVERIFY2(QString(e.what()).contains(message), e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestMachine)
#include "test_machine.moc"
