#include "core/errors.h"
#include "core/model.h"
#include "core/units.h"

#include <QtTest>

using namespace remat;

class TestUnits : public QObject {
    Q_OBJECT
private slots:
    void parses_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<qint64>("bytes");
        QTest::newRow("plain") << "4096" << qint64(4096);
        QTest::newRow("B") << "12B" << qint64(12);
        QTest::newRow("KiB") << "64KiB" << qint64(65536);
        QTest::newRow("MiB fraction") << "1.5MiB" << qint64(1572864);
        QTest::newRow("GiB with space") << "2 GiB" << qint64(2147483648LL);
        QTest::newRow("decimal MB") << "3MB" << qint64(3000000);
    }
    void parses() {
        QFETCH(QString, text);
        QFETCH(qint64, bytes);
        QCOMPARE(qint64(parseBytes(text.toStdString())), bytes);
    }

    void rejects_data() {
        QTest::addColumn<QString>("text");
        QTest::newRow("empty") << "";
        QTest::newRow("negative") << "-5";
        QTest::newRow("unknown unit") << "5 parsecs";
        QTest::newRow("two dots") << "1.2.3";
        QTest::newRow("overflow") << "99999999999TiB";
    }
    void rejects() {
        QFETCH(QString, text);
        try {
            parseBytes(text.toStdString(), "--budget");
            QFAIL("expected InvalidArgument");
        } catch (const InvalidArgument &e) {
            QVERIFY2(QString(e.what()).contains("--budget"), e.what());
        }
    }

    void formats() {
        QCOMPARE(QString::fromStdString(formatBytes(512)), QString("512 B"));
        QCOMPARE(QString::fromStdString(formatBytes(1536)), QString("1.50 KiB"));
        QCOMPARE(QString::fromStdString(formatBytes(3LL << 30)), QString("3.00 GiB"));
    }

    // Abstract chains count nodes; a size never reads "18 B" for them.
    void sizesOfUnitChainsAreNodes() {
        const Model unit = Model::chain(8);
        QVERIFY(unit.sizesInNodes());
        QCOMPARE(QString::fromStdString(formatSize(18, unit.sizesInNodes())), QString("18 nodes"));
        QCOMPARE(QString::fromStdString(formatSize(1, true)), QString("1 node"));
        ChainSpec big;
        big.nodeBytes = 4 << 20;
        QVERIFY(!Model::chain(8, big).sizesInNodes());
        QCOMPARE(QString::fromStdString(formatSize(2048, false)), QString("2.00 KiB"));
    }

    void costsAreReadableAtAnySize_data() {
        QTest::addColumn<double>("cost");
        QTest::addColumn<QString>("unit");
        QTest::addColumn<QString>("expected");
        QTest::newRow("whole") << 26.0 << ""
                               << "26";
        QTest::newRow("fraction") << 12.5 << ""
                                  << "12.5";
        QTest::newRow("small") << 0.0123 << ""
                               << "0.012";
        QTest::newRow("thousands") << 1234.0 << ""
                                   << "1234";
        QTest::newRow("no exponent") << 2.005e6 << ""
                                     << "2.005M";
        QTest::newRow("unit") << 3.75 << "ms"
                              << "3.75 ms";
        QTest::newRow("unit, large") << 2.005e6 << "ms"
                                     << "2.005M ms";
        QTest::newRow("GFLOP") << 30.7 << "GFLOP"
                               << "30.7 GFLOP";
        QTest::newRow("GFLOP takes the prefix") << 2.005e6 << "GFLOP"
                                                << "2.005 PFLOP";
        QTest::newRow("FLOP") << 12000.0 << "FLOP"
                              << "12 kFLOP";
        QTest::newRow("odd FLOP unit kept") << 12000.0 << "MegaFLOP"
                                            << "12k MegaFLOP";
    }
    void costsAreReadableAtAnySize() {
        QFETCH(double, cost);
        QFETCH(QString, unit);
        QFETCH(QString, expected);
        QCOMPARE(QString::fromStdString(formatCost(cost, unit.toStdString())), expected);
    }
};

QTEST_GUILESS_MAIN(TestUnits)
#include "test_units.moc"
