#include "core/errors.h"
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
};

QTEST_GUILESS_MAIN(TestUnits)
#include "test_units.moc"
