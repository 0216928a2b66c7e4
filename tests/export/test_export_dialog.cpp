// The studio's Export GIF dialog: the GIF it writes from the window's panes
// (worker thread, progress bar) decodes to what the dialog asked for, and
// Cancel stops the worker and leaves an existing file untouched.
#include "gif_reader.h"

#include "app/studio/export_dialog.h"
#include "app/studio/lesson_controller.h"
#include "app/studio/main_window.h"
#include "tests/studio/studio_test_main.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>

using remat::studio::ExportGifDialog;
using remat::studio::MainWindow;
using remat::testing::decodeGif;

namespace {

MainWindow::Options fresh() {
    MainWindow::Options o;
    o.restoreSession = false;
    return o;
}

template <class W> W *child(QObject &parent, const char *name) {
    W *w = parent.findChild<W *>(QString::fromLatin1(name));
    if (!w)
        qFatal("no widget named %s", name);
    return w;
}

} // namespace

class TestExportDialog : public QObject {
    Q_OBJECT
private slots:
    void exportsTheWindowsPanes_data();
    void exportsTheWindowsPanes();
    void titleCardIsOnByDefaultAndRemembered();
    void cancelLeavesTheFileUntouched();
    void badPathIsReportedInTheDialog();
    void menusOfferTheActions_data();
    void menusOfferTheActions();
    void noTwoActionsShareAShortcut();
};

void TestExportDialog::exportsTheWindowsPanes_data() {
    QTest::addColumn<int>("what"); // combo index: 0 side by side, 1.. one pane
    QTest::addColumn<int>("width");
    QTest::addColumn<int>("height");
    QTest::addColumn<int>("maxFrames");
    QTest::newRow("side by side") << 0 << 480 << 270 << 24;
    QTest::newRow("second pane alone") << 2 << 400 << 200 << 12;
}

void TestExportDialog::exportsTheWindowsPanes() {
    QFETCH(int, what);
    QFETCH(int, width);
    QFETCH(int, height);
    QFETCH(int, maxFrames);
    MainWindow window(fresh());
    window.resize(1200, 800);
    QTRY_VERIFY(!window.session().isSimulating());
    QCOMPARE(window.session().paneCount(), 3);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("dialog.gif"));
    ExportGifDialog dialog(window.session(), window.centralWidget());
    child<QLineEdit>(dialog, "path")->setText(path);
    child<QComboBox>(dialog, "what")->setCurrentIndex(what);
    child<QSpinBox>(dialog, "width")->setValue(width);
    child<QSpinBox>(dialog, "samplingValue")->setValue(maxFrames);
    child<QCheckBox>(dialog, "forever")->setChecked(false);
    child<QSpinBox>(dialog, "loops")->setValue(2);
    child<QSpinBox>(dialog, "titleFrame")->setValue(0); // the sampled frames alone
    QCOMPARE(static_cast<int>(dialog.chosenPanes().size()), what == 0 ? 3 : 1);
    QSignalSpy finished(&dialog, &ExportGifDialog::exportFinished);
    QVERIFY(dialog.start());
    QVERIFY(finished.wait(60000));
    QVERIFY2(finished.first().at(0).toBool(), qPrintable(finished.first().at(1).toString()));
    QCOMPARE(child<QProgressBar>(dialog, "progress")->value(), maxFrames);
    const auto gif = decodeGif(path);
    QCOMPARE(gif.width, width);
    QCOMPARE(gif.height, height);
    QCOMPARE(static_cast<int>(gif.frames.size()), maxFrames);
    QCOMPARE(gif.loopCount.value_or(-1), 1); // played twice: one repetition
}

void TestExportDialog::titleCardIsOnByDefaultAndRemembered() {
    QSettings().remove(QStringLiteral("export/titleFrameMs"));
    MainWindow window(fresh());
    {
        ExportGifDialog dialog(window.session(), window.centralWidget());
        QCOMPARE(dialog.options().titleFrameMs, 2000);
        child<QSpinBox>(dialog, "titleFrame")->setValue(0);
    }
    {
        ExportGifDialog dialog(window.session(), window.centralWidget());
        QCOMPARE(dialog.options().titleFrameMs, 0); // the choice is remembered
        child<QSpinBox>(dialog, "titleFrame")->setValue(3000);
    }
    ExportGifDialog dialog(window.session(), window.centralWidget());
    QCOMPARE(dialog.options().titleFrameMs, 3000);
    QSettings().remove(QStringLiteral("export/titleFrameMs"));
}

void TestExportDialog::cancelLeavesTheFileUntouched() {
    MainWindow window(fresh());
    QTRY_VERIFY(!window.session().isSimulating());
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("keep.gif"));
    {
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("yesterday");
    }
    ExportGifDialog dialog(window.session(), window.centralWidget());
    child<QLineEdit>(dialog, "path")->setText(path);
    child<QComboBox>(dialog, "sampling")->setCurrentIndex(2); // every op
    child<QSpinBox>(dialog, "width")->setValue(1920);
    child<QDoubleSpinBox>(dialog, "fps")->setValue(50);
    QSignalSpy finished(&dialog, &ExportGifDialog::exportFinished);
    QVERIFY(dialog.start());
    dialog.reject(); // Cancel while running: stops the worker, keeps the dialog
    QVERIFY(finished.wait(60000));
    QCOMPARE(finished.first().at(0).toBool(), false);
    QVERIFY(finished.first().at(1).toString().contains("Cancelled"));
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(f.readAll(), QByteArray("yesterday"));
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden), QStringList{"keep.gif"});
}

void TestExportDialog::badPathIsReportedInTheDialog() {
    MainWindow window(fresh());
    QTRY_VERIFY(!window.session().isSimulating());
    ExportGifDialog dialog(window.session(), window.centralWidget());
    child<QLineEdit>(dialog, "path")->setText(QStringLiteral("/nonexistent/folder/x.gif"));
    child<QSpinBox>(dialog, "samplingValue")->setValue(4);
    QSignalSpy finished(&dialog, &ExportGifDialog::exportFinished);
    QVERIFY(dialog.start());
    QVERIFY(finished.wait(60000));
    QCOMPARE(finished.first().at(0).toBool(), false);
    QVERIFY(child<QLabel>(dialog, "message")->text().contains("/nonexistent/folder/x.gif"));
}

void TestExportDialog::menusOfferTheActions_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("shortcut");
    QTest::newRow("gif") << "Export timeline as &GIF\u2026"
                         << "Ctrl+E";
    QTest::newRow("png") << "Export this moment as &PNG\u2026"
                         << "Ctrl+Shift+P";
    QTest::newRow("csv") << "Export timelines as &CSV\u2026"
                         << "Ctrl+Shift+C";
    QTest::newRow("json") << "Export summary as &JSON\u2026"
                          << "Ctrl+Shift+J";
    QTest::newRow("scaling") << "&Scaling laws\u2026"
                             << "Ctrl+G";
    QTest::newRow("measure") << "&Measure on the execution core\u2026"
                             << "Ctrl+M";
}

void TestExportDialog::menusOfferTheActions() {
    QFETCH(QString, text);
    QFETCH(QString, shortcut);
    MainWindow window(fresh());
    const QList<QAction *> actions = window.findChildren<QAction *>();
    const auto it = std::find_if(actions.begin(), actions.end(), [&](QAction *a) { return a->text() == text; });
    QVERIFY2(it != actions.end(), qPrintable(text));
    QCOMPARE((*it)->shortcut(), QKeySequence(shortcut));
}

// Qt runs neither action of an ambiguous shortcut: a clash is a dead key.
// The player's keys and the lesson's share Space and the arrows on purpose,
// one set enabled at a time; so the check is over enabled actions, without
// and with a lesson open.
void TestExportDialog::noTwoActionsShareAShortcut() {
    MainWindow window(fresh());
    const auto check = [&window] {
        QHash<QKeySequence, QString> owner;
        for (QAction *a : window.findChildren<QAction *>()) {
            if (!a->isEnabled())
                continue;
            for (const QKeySequence &key : a->shortcuts()) {
                const QString name = a->text().isEmpty() ? a->objectName() : a->text();
                QVERIFY2(key.isEmpty() || !owner.contains(key) || owner[key] == name,
                         qPrintable(key.toString() + " is on both " + owner.value(key) + " and " + name));
                owner.insert(key, name);
            }
        }
        QVERIFY(owner.size() > 10);
    };
    check();
    if (QTest::currentTestFailed())
        return;
    QCOMPARE(window.lesson()->open(qEnvironmentVariable("REMAT_SOURCE_DIR") +
                                   "/resources/lessons/gradient-checkpointing.json"),
             QString());
    check();
}

int main(int argc, char **argv) {
    TestExportDialog test; // settings in test mode, away from the user's
    return remat::testing::runStudioTest(test, "test_export_dialog", argc, argv);
}
#include "test_export_dialog.moc"
