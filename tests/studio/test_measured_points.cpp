// Tools > Trade-off curve > Add measured points: the framework race's JSON
// (bench/framework_race.py) held by the session, which signals; the trade-off
// dialog follows it, showing the points on their own axes beside the curve;
// a file that does not read is a warning naming it and its bad value, and
// changes nothing; Clear takes them away.
#include "app/studio/frontier_view.h"
#include "app/studio/main_window.h"
#include "app/studio/session.h"
#include "tests/studio/studio_test_main.h"

#include <QAction>
#include <QFile>
#include <QMessageBox>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace remat;
using namespace remat::studio;

namespace {

QString race(const char *name) {
    return qEnvironmentVariable("REMAT_SOURCE_DIR") + "/bench/results/2026-11-27-frameworks/" + name;
}

// A race file whose fourth point has a kind the race never writes.
QString badRace(const QTemporaryDir &dir) {
    QFile in(race("gpt2.json"));
    if (!in.open(QIODevice::ReadOnly))
        return {};
    QByteArray text = in.readAll();
    text.replace("\"kind\": \"compile\"", "\"kind\": \"jit\"");
    const QString path = dir.filePath(QStringLiteral("bad-race.json"));
    QFile out(path);
    if (!out.open(QIODevice::WriteOnly) || out.write(text) != text.size())
        return {};
    return path;
}

} // namespace

class TestMeasuredPoints : public QObject {
    Q_OBJECT
private slots:
    void theSessionHoldsThemAndSignals() {
        MainWindow window(remat::testing::freshWindow());
        Session &session = window.session();
        QVERIFY(!session.measuredPoints());
        QSignalSpy changed(&session, &Session::measuredPointsChanged);
        QCOMPARE(session.loadMeasuredPoints(race("gpt2.json")), QString());
        QCOMPARE(changed.count(), 1);
        QVERIFY(session.measuredPoints());
        QCOMPARE(int(session.measuredPoints()->points.size()), 15);
        QCOMPARE(session.measuredPointsFile(), race("gpt2.json"));

        // Another race replaces them.
        QCOMPARE(session.loadMeasuredPoints(race("gpt2-quiet.json")), QString());
        QCOMPARE(changed.count(), 2);
        QCOMPARE(session.measuredPointsFile(), race("gpt2-quiet.json"));
        const auto held = session.measuredPoints();

        // They belong to no model: another model keeps them.
        session.setLayers(9);
        QCOMPARE(session.measuredPoints(), held);

        // A bad file: the reason names the file, the value and what is allowed; nothing changes.
        QTemporaryDir dir;
        const QString bad = badRace(dir);
        QVERIFY(!bad.isEmpty());
        const QString error = session.loadMeasuredPoints(bad);
        QVERIFY2(error.contains(bad), qPrintable(error));
        QVERIFY2(
            error.contains(QStringLiteral("/points/3/kind: expected \"remat\", \"peer\" or \"compile\", got \"jit\"")),
            qPrintable(error));
        QCOMPARE(changed.count(), 2);
        QCOMPARE(session.measuredPoints(), held);
        QVERIFY(session.loadMeasuredPoints(dir.filePath(QStringLiteral("none.json"))).contains("none.json"));
        QCOMPARE(session.measuredPoints(), held);

        session.clearMeasuredPoints();
        QCOMPARE(changed.count(), 3);
        QVERIFY(!session.measuredPoints());
        QVERIFY(session.measuredPointsFile().isEmpty());
        session.clearMeasuredPoints(); // nothing to clear
        QCOMPARE(changed.count(), 3);
    }

    void theDialogFollowsTheSession() {
        MainWindow window(remat::testing::freshWindow());
        Session &session = window.session();
        FrontierDialog dialog(session.model(), QStringLiteral("chain"), nullptr, &session);
        QVERIFY(dialog.measuredChart());
        QVERIFY(!dialog.measuredChart()->isVisibleTo(&dialog)); // no points: the curve alone
        QCOMPARE(session.loadMeasuredPoints(race("gpt2.json")), QString());
        QVERIFY(dialog.measuredChart()->isVisibleTo(&dialog));
        QCOMPARE(dialog.measuredChart()->points(), session.measuredPoints());
        QVERIFY2(dialog.measuredText().startsWith(QStringLiteral("15 points from gpt2.json (2026-11-27 07:57 UTC)")),
                 qPrintable(dialog.measuredText()));
        QVERIFY2(dialog.measuredText().contains(QStringLiteral("Not run: SAC attention-core re-run;")),
                 qPrintable(dialog.measuredText()));
        session.clearMeasuredPoints();
        QVERIFY(!dialog.measuredChart()->isVisibleTo(&dialog));
        QVERIFY(!dialog.measuredChart()->points());

        // Without a session (a lesson's curve chapter): no measured chart at all.
        FrontierDialog alone(session.model(), QStringLiteral("chain"));
        QVERIFY(!alone.measuredChart());
        QVERIFY(alone.measuredText().isEmpty());
    }

    void aBadFileIsAWarningNamingIt() {
        MainWindow window(remat::testing::freshWindow());
        Session &session = window.session();
        QTemporaryDir dir;
        const QString bad = badRace(dir);
        QVERIFY(!addMeasuredPoints(session, bad, &window));
        auto *box = window.findChild<QMessageBox *>(QStringLiteral("measuredPointsError"));
        QVERIFY(box);
        QVERIFY(box->text().contains(bad));
        QVERIFY2(box->informativeText().contains(QStringLiteral("/points/3/kind")) &&
                     box->informativeText().contains(QStringLiteral("got \"jit\"")),
                 qPrintable(box->informativeText()));
        QVERIFY(!session.measuredPoints());
        box->close();
        QVERIFY(addMeasuredPoints(session, race("gpt2.json"), &window));
        QVERIFY(session.measuredPoints());
    }

    void theMenuAddsAndClears() {
        MainWindow window(remat::testing::freshWindow());
        Session &session = window.session();
        auto *show = window.findChild<QAction *>(QStringLiteral("tradeOffCurve"));
        auto *add = window.findChild<QAction *>(QStringLiteral("addMeasuredPoints"));
        auto *clear = window.findChild<QAction *>(QStringLiteral("clearMeasuredPoints"));
        QVERIFY(show && add && clear);
        QCOMPARE(show->shortcut(), QKeySequence(QStringLiteral("Ctrl+T")));
        QVERIFY(!clear->isEnabled());
        QCOMPARE(session.loadMeasuredPoints(race("gpt2.json")), QString());
        QVERIFY(clear->isEnabled());
        clear->trigger();
        QVERIFY(!session.measuredPoints());
        QVERIFY(!clear->isEnabled());
    }
};

int main(int argc, char **argv) {
    TestMeasuredPoints test;
    return remat::testing::runStudioTest(test, "test_measured_points", argc, argv);
}
#include "test_measured_points.moc"
