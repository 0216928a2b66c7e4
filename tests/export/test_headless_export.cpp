// `remat-studio --export-gif ...` as a user runs it, in its own process
// without a display: exit codes, the one-line message, existing files left
// alone on errors, a valid GIF on success, and CSV/JSON byte-equal to the
// CLI's `remat simulate` for the same strategies.
#include "gif_reader.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using remat::testing::decodeGif;

namespace {

struct Run {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

Run runProgram(const char *envName, const QStringList &args) {
    const QString exe = qEnvironmentVariable(envName);
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("QT_QPA_PLATFORM")); // the export must not need it
    env.remove(QStringLiteral("DISPLAY"));
    env.remove(QStringLiteral("WAYLAND_DISPLAY"));
    process.setProcessEnvironment(env);
    process.start(exe, args);
    if (!process.waitForFinished(120'000)) {
        process.kill();
        process.waitForFinished();
        return {};
    }
    return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1, process.readAllStandardOutput(),
            process.readAllStandardError()};
}

QByteArray readAll(const QString &path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

void writeText(const QString &path, const QByteArray &text) {
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(text);
}

} // namespace

class TestHeadlessExport : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void exportsAValidGif_data();
    void exportsAValidGif();
    void badOptionsExit2AndTouchNothing_data();
    void badOptionsExit2AndTouchNothing();
    void reportsMatchTheCli();
    void pngSnapshot();
    void modelFile();
};

void TestHeadlessExport::initTestCase() {
    if (qEnvironmentVariableIsEmpty("REMAT_STUDIO_EXE"))
        QSKIP("remat-studio is not built (no Qt Widgets)");
}

void TestHeadlessExport::exportsAValidGif_data() {
    QTest::addColumn<QStringList>("options");
    QTest::addColumn<int>("width");
    QTest::addColumn<int>("height");
    QTest::addColumn<int>("maxFrames");
    QTest::addColumn<int>("loopCount"); // as stored; -1 none
    QTest::newRow("issue example") << QStringList{"--fps", "8", "--width", "960", "--max-frames", "300", "--loops", "0"}
                                   << 960 << 540 << 300 << 0;
    QTest::newRow("pane only, 3 loops") << QStringList{"--pane-only", "--width", "480", "--loops", "3"} << 480 << 240
                                        << 300 << 2;
    QTest::newRow("dark, every 4th, by op") << QStringList{"--theme", "dark", "--frame-every", "4",   "--sync",  "ops",
                                                           "--width", "640",  "--height",      "400", "--loops", "1"}
                                            << 640 << 400 << 1000 << -1;
    QTest::newRow("title card, few frames")
        << QStringList{"--title-frame", "1500", "--max-frames", "12", "--width", "320", "--caption", "n = 16"} << 320
        << 180 << 13 << 0;
}

void TestHeadlessExport::exportsAValidGif() {
    QFETCH(QStringList, options);
    QFETCH(int, width);
    QFETCH(int, height);
    QFETCH(int, maxFrames);
    QFETCH(int, loopCount);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("out.gif"));
    const Run run = runProgram(
        "REMAT_STUDIO_EXE",
        QStringList{"--export-gif", path, "--n", "16", "--strategies", "store-all,recompute-all,periodic"} + options);
    QVERIFY2(run.exitCode == 0, run.err.constData());
    QVERIFY(run.err.isEmpty());
    QVERIFY(run.out.startsWith("wrote " + path.toLocal8Bit()));
    const auto gif = decodeGif(path);
    QCOMPARE(gif.width, width);
    QCOMPARE(gif.height, height);
    QVERIFY(gif.frames.size() >= 10);
    QVERIFY(static_cast<int>(gif.frames.size()) <= maxFrames);
    QCOMPARE(gif.loopCount.value_or(-1), loopCount);
    QCOMPARE(gif.delaysCs.back(), 200); // the default 2 s hold on the finished picture
    QVERIFY(QFileInfo(path).size() < 1024 * 1024);
}

void TestHeadlessExport::badOptionsExit2AndTouchNothing_data() {
    QTest::addColumn<QStringList>("options");
    QTest::addColumn<QString>("message");
    QTest::newRow("fps 0") << QStringList{"--fps", "0"} << "--fps must be a number above 0 and at most 50, got '0'";
    QTest::newRow("fps text") << QStringList{"--fps", "fast"} << "got 'fast'";
    QTest::newRow("width") << QStringList{"--width", "50"} << "--width must be an integer from 160 to 4096, got '50'";
    QTest::newRow("unknown strategy") << QStringList{"--strategies", "store-all,nope"} << "unknown strategy 'nope'";
    QTest::newRow("five panes") << QStringList{"--strategies", "store-all,periodic,store-all,periodic,store-all"}
                                << "at most 4";
    QTest::newRow("loops") << QStringList{"--loops", "-1"} << "--loops must be an integer from 0 to 65536";
    QTest::newRow("max frames") << QStringList{"--max-frames", "1"} << "--max-frames must be an integer from 2";
    QTest::newRow("two samplings") << QStringList{"--max-frames", "10", "--all-frames"} << "exclude each other";
    QTest::newRow("unknown option") << QStringList{"--colour", "red"} << "unknown option '--colour'";
    QTest::newRow("missing value") << QStringList{"--fps"} << "--fps needs a value";
    QTest::newRow("n 0") << QStringList{"--n", "0"} << "--n must be an integer from 1";
    QTest::newRow("sync") << QStringList{"--sync", "wall"} << "--sync must be 'cost' or 'ops', got 'wall'";
    QTest::newRow("every too big") << QStringList{"--every", "99"} << "--every must be an integer from 1 to 16";
    // The link flags, read as `remat simulate` reads them (core/machine_flags.h).
    QTest::newRow("link") << QStringList{"--link", "fast", "--forward-time", "2ms"} << "--link must be a bandwidth";
    QTest::newRow("latency without link")
        << QStringList{"--latency", "10us"} << "--latency describes the link for offloading; give --link too";
    QTest::newRow("link on abstract costs") << QStringList{"--link", "16GB/s"} << "the model's costs have no unit";
    QTest::newRow("host budget") << QStringList{"--link", "16GB/s", "--forward-time", "2ms", "--host-budget", "0B"}
                                 << "--host-budget must be at least 1 byte, got '0B'";
    QTest::newRow("backward without forward")
        << QStringList{"--backward-time", "4ms"} << "--backward-time needs --forward-time";
    QTest::newRow("bad folder") << QStringList{"--export-png", "/nonexistent/dir/x.png"}
                                << "cannot write '/nonexistent/dir/x.png'";
}

void TestHeadlessExport::badOptionsExit2AndTouchNothing() {
    QFETCH(QStringList, options);
    QFETCH(QString, message);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("out.gif"));
    writeText(path, "the GIF from yesterday");
    const QStringList model = options.contains("--n") ? QStringList{} : QStringList{"--n", "16"};
    const Run run = runProgram("REMAT_STUDIO_EXE", QStringList{"--export-gif", path} + model + options);
    QCOMPARE(run.exitCode, 2);
    QVERIFY(run.out.isEmpty());
    QVERIFY2(run.err.contains(message.toUtf8()), run.err.constData());
    QVERIFY(run.err.startsWith("remat-studio: "));
    QCOMPARE(run.err.count('\n'), 1);
    QCOMPARE(readAll(path), QByteArray("the GIF from yesterday"));
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden), QStringList{"out.gif"});
}

void TestHeadlessExport::reportsMatchTheCli() {
    if (qEnvironmentVariableIsEmpty("REMAT_CLI_EXE"))
        QSKIP("the remat CLI is not built");
    QTemporaryDir dir;
    const QString json = dir.filePath("s.json"), csv = dir.filePath("t.csv"), summary = dir.filePath("s.csv");
    const QStringList strategies{"--n", "12", "--every", "3"};
    const Run run =
        runProgram("REMAT_STUDIO_EXE", QStringList{"--export-json", json, "--export-csv", csv, "--export-summary-csv",
                                                   summary, "--strategies", "store-all,recompute-all,periodic"} +
                                           strategies);
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QStringList cli{"simulate", "--strategy", "store-all,recompute-all,periodic"};
    const Run cliJson = runProgram("REMAT_CLI_EXE", cli + strategies + QStringList{"--json"});
    const Run cliCsv = runProgram("REMAT_CLI_EXE", cli + strategies + QStringList{"--csv", "--timeline"});
    const Run cliSummary = runProgram("REMAT_CLI_EXE", cli + strategies + QStringList{"--csv"});
    QVERIFY2(cliJson.exitCode == 0, cliJson.err.constData());
    QCOMPARE(readAll(json), cliJson.out);
    QCOMPARE(readAll(csv), cliCsv.out);
    QCOMPARE(readAll(summary), cliSummary.out);
}

void TestHeadlessExport::pngSnapshot() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("now.png"));
    const Run run = runProgram("REMAT_STUDIO_EXE", {"--export-png", path, "--n", "8", "--at", "10", "--width", "800"});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QImage image(path);
    QCOMPARE(image.size(), QSize(800, 450));
    const Run late = runProgram("REMAT_STUDIO_EXE", {"--export-png", path, "--n", "8", "--at", "1000"});
    QCOMPARE(late.exitCode, 2);
    QVERIFY2(late.err.contains("past the end of the timeline"), late.err.constData());
}

void TestHeadlessExport::modelFile() {
    // A graph with skip connections from the shipped examples, drawn with its skip edges.
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("unet.gif"));
    const QString model =
        qEnvironmentVariable("REMAT_SOURCE_DIR") + QStringLiteral("/resources/models/unet-batch8.json");
    const Run run = runProgram("REMAT_STUDIO_EXE", {"--export-gif", path, "--model", model, "--strategies", "store-all",
                                                    "--width", "640", "--max-frames", "20"});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const auto gif = decodeGif(path);
    QCOMPARE(gif.width, 640);
    QCOMPARE(static_cast<int>(gif.frames.size()), 21); // the title card and 20 sampled frames

    writeText(path, "kept");
    const Run missing = runProgram("REMAT_STUDIO_EXE", {"--export-gif", path, "--model", dir.filePath("none.json")});
    QCOMPARE(missing.exitCode, 2);
    QVERIFY2(missing.err.contains("none.json"), missing.err.constData());
    const Run mixed = runProgram("REMAT_STUDIO_EXE", {"--export-gif", path, "--model", model, "--n", "8"});
    QCOMPARE(mixed.exitCode, 2);
    QVERIFY2(mixed.err.contains("cannot be combined with --model"), mixed.err.constData());
    QCOMPARE(readAll(path), QByteArray("kept"));
}

QTEST_GUILESS_MAIN(TestHeadlessExport)
#include "test_headless_export.moc"
