// `remat-studio FILE` as a user types it, in its own process: the model file
// opens as File > Open model opens it (seen in a --screenshot and in an
// --export-gif), a file that does not load is one line naming it with exit
// status 2, and --help lists the headless exports.
#include <QFile>
#include <QImage>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

namespace {

struct Run {
    int exitCode = -1;
    QString out, err;
};

Run studio(const QStringList &args) {
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("DISPLAY"));
    env.remove(QStringLiteral("WAYLAND_DISPLAY"));
    process.setProcessEnvironment(env);
    process.start(qEnvironmentVariable("REMAT_STUDIO_EXE"), args);
    if (!process.waitForFinished(120'000)) {
        process.kill();
        process.waitForFinished();
        return {};
    }
    return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
            QString::fromLocal8Bit(process.readAllStandardOutput()),
            QString::fromLocal8Bit(process.readAllStandardError())};
}

QString example(const char *name) {
    return qEnvironmentVariable("REMAT_SOURCE_DIR") + QStringLiteral("/resources/models/") + QLatin1String(name);
}

} // namespace

class TestCommandLine : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        if (qEnvironmentVariableIsEmpty("REMAT_STUDIO_EXE"))
            QSKIP("remat-studio is not built");
    }

    void helpListsTheExports() {
        const Run run = studio({QStringLiteral("--help")});
        QCOMPARE(run.exitCode, 0);
        for (const char *option :
             {"--export-gif", "--export-png", "--export-csv", "--export-summary-csv", "--export-json", "--screenshot",
              "--presentation", "file", "--lesson", "--chapter", "--answer", "--grade", "--measured"})
            QVERIFY2(run.out.contains(QLatin1String(option)), option);
    }

    void aModelFileOpensInTheScreenshot() {
        QTemporaryDir dir;
        const QString chain = dir.filePath(QStringLiteral("chain.png"));
        const QString model = dir.filePath(QStringLiteral("model.png"));
        QCOMPARE(studio({QStringLiteral("--screenshot"), chain, QStringLiteral("--size"), QStringLiteral("1000x700")})
                     .exitCode,
                 0);
        const Run run = studio({example("unet-batch8.json"), QStringLiteral("--screenshot"), model,
                                QStringLiteral("--size"), QStringLiteral("1000x700")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const QImage a(chain), b(model);
        QCOMPARE(b.size(), QSize(1000, 700));
        QVERIFY(a != b); // the U-Net is drawn, not the default chain
    }

    void aModelFileFeedsTheExports() {
        QTemporaryDir dir;
        const QString byOption = dir.filePath(QStringLiteral("a.json"));
        const QString byFile = dir.filePath(QStringLiteral("b.json"));
        QCOMPARE(
            studio({QStringLiteral("--model"), example("mlp-uniform.json"), QStringLiteral("--export-json"), byOption})
                .exitCode,
            0);
        const Run run = studio({example("mlp-uniform.json"), QStringLiteral("--export-json"), byFile});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QFile a(byOption), b(byFile);
        QVERIFY(a.open(QIODevice::ReadOnly) && b.open(QIODevice::ReadOnly));
        QCOMPARE(b.readAll(), a.readAll());
    }

    void aBadFileIsOneLineAndStatus2_data() {
        QTest::addColumn<QStringList>("args");
        QTest::newRow("missing, screenshot") << QStringList{"--screenshot", "SHOT"};
        QTest::newRow("missing, export") << QStringList{"--export-gif", "SHOT"};
    }

    void aBadFileIsOneLineAndStatus2() {
        QFETCH(QStringList, args);
        QTemporaryDir dir;
        const QString shot = dir.filePath(QStringLiteral("out"));
        for (const QString &file : {dir.filePath(QStringLiteral("missing.json")), dir.filePath("bad.json")}) {
            QFile bad(dir.filePath("bad.json"));
            QVERIFY(bad.open(QIODevice::WriteOnly));
            bad.write("{\"layers\": [");
            bad.close();
            QStringList full{file};
            for (const QString &a : args)
                full << (a == QLatin1String("SHOT") ? shot : a);
            const Run run = studio(full);
            QCOMPARE(run.exitCode, 2);
            const QStringList lines =
                run.err.trimmed().split(QLatin1Char('\n')).filter(QStringLiteral("remat-studio:"));
            QCOMPARE(lines.size(), 1);
            QVERIFY2(lines.first().contains(file), qPrintable(run.err));
            QVERIFY(!QFile::exists(shot));
        }
    }

    // --measured FILE: the race's points read as the menu reads them; a bad one is one line and status 2.
    void measuredPointsAreReadOrRefused() {
        QTemporaryDir dir;
        const QString shot = dir.filePath(QStringLiteral("shot.png"));
        const QString race =
            qEnvironmentVariable("REMAT_SOURCE_DIR") + QStringLiteral("/bench/results/2026-11-27-frameworks/gpt2.json");
        Run run = studio({QStringLiteral("--measured"), race, QStringLiteral("--screenshot"), shot});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY(QFile::exists(shot));
        QFile::remove(shot);
        const QString bad = dir.filePath(QStringLiteral("race.json"));
        QFile file(bad);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(R"({"model": "m", "torch": "2", "points": [{"who": "x", "kind": "jit"}]})");
        file.close();
        run = studio({QStringLiteral("--measured"), bad, QStringLiteral("--screenshot"), shot});
        QCOMPARE(run.exitCode, 2);
        const QStringList lines = run.err.trimmed().split(QLatin1Char('\n')).filter(QStringLiteral("remat-studio:"));
        QCOMPARE(lines.size(), 1);
        QVERIFY2(lines.first().contains(bad + QStringLiteral(": /points/0/kind: expected \"remat\", \"peer\" or "
                                                             "\"compile\", got \"jit\"")),
                 qPrintable(run.err));
        QVERIFY(!QFile::exists(shot));
    }

    // --lesson FILE [--chapter N]: the chapter is in the screenshot; a lesson that
    // does not load, or a chapter it does not have, is one line and status 2.
    void aLessonOpensAtItsChapter() {
        QTemporaryDir dir;
        const QString lesson =
            qEnvironmentVariable("REMAT_SOURCE_DIR") + QStringLiteral("/resources/lessons/gradient-checkpointing.json");
        QStringList shots;
        for (const char *chapter : {"1", "3"}) {
            shots << dir.filePath(QStringLiteral("chapter%1.png").arg(QLatin1String(chapter)));
            const Run run = studio({QStringLiteral("--lesson"), lesson, QStringLiteral("--chapter"),
                                    QLatin1String(chapter), QStringLiteral("--screenshot"), shots.last()});
            QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        }
        QVERIFY(QImage(shots[0]) != QImage(shots[1]));

        QFile bad(dir.filePath("bad.json"));
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write(R"({"format": "remat-lesson", "title": "x", "chapters": {}})");
        bad.close();
        const QString shot = dir.filePath(QStringLiteral("no.png"));
        for (const auto &[args, message] : std::vector<std::pair<QStringList, QString>>{
                 {{"--lesson", bad.fileName()}, bad.fileName() + ": /chapters: expected an array of 1 to"},
                 {{"--lesson", lesson, "--chapter", "99"}, "--chapter 99: the lesson has "},
                 {{"--lesson", lesson, "--chapter", "0"}, "--chapter must be a chapter number from 1"},
                 {{"--chapter", "2"}, "--chapter needs --lesson FILE"},
                 {{"--lesson", lesson, example("mlp-uniform.json")}, "give a model file or --lesson, not both"}}) {
            const Run run = studio(args + QStringList{QStringLiteral("--screenshot"), shot});
            QCOMPARE(run.exitCode, 2);
            const QStringList lines =
                run.err.trimmed().split(QLatin1Char('\n')).filter(QStringLiteral("remat-studio:"));
            QCOMPARE(lines.size(), 1);
            QVERIFY2(lines.first().contains(message), qPrintable(run.err));
            QVERIFY(!QFile::exists(shot));
        }
    }

    void twoFilesAreRefused() {
        const Run run = studio({example("mlp-uniform.json"), example("unet-batch8.json"),
                                QStringLiteral("--screenshot"), QStringLiteral("/nonexistent/x.png")});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(QStringLiteral("give one model file")), qPrintable(run.err));
    }
};

QTEST_GUILESS_MAIN(TestCommandLine)
#include "test_command_line.moc"
