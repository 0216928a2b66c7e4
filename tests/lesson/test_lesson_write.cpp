// A lesson written back (app/lesson/lesson_write.h) loads as the same lesson:
// every shipped lesson and one with every kind of key, saved into another
// folder (model files named from there) and read again.
#include "app/lesson/lesson.h"
#include "app/lesson/lesson_write.h"
#include "core/errors.h"
#include "tests/common/lesson_checks.h"

#include <QDir>
#include <QFile>
#include <filesystem>
#include <QTemporaryDir>
#include <QtTest>

using namespace remat;
using namespace remat::lesson;

namespace {

QString sourceDir() {
    return qEnvironmentVariable("REMAT_SOURCE_DIR");
}

Lesson writtenAndRead(const Lesson &lesson, const QString &folder) {
    const QString path = folder + "/written.json";
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        throw std::runtime_error("cannot write " + path.toStdString());
    file.write(lessonJson(lesson, folder.toStdString()).c_str());
    file.close();
    return loadLessonFile(path.toStdString());
}

} // namespace

class TestLessonWrite : public QObject {
    Q_OBJECT
private slots:
    void aLessonReadsBackAsWritten_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("folder");
        for (const char *name : {"gradient-checkpointing.json", "checkpoint-exercises.json"}) {
            QFile file(sourceDir() + "/resources/lessons/" + name);
            QVERIFY(file.open(QIODevice::ReadOnly));
            QTest::newRow(name) << QString::fromUtf8(file.readAll()) << sourceDir() + "/resources/lessons";
        }
        QTest::newRow("every key") << QString(R"({"format": "remat-lesson", "title": "Ünïcode ✓", "chapters": [
            {"title": "A", "caption": "B.", "layers": 12, "sync": "ops", "seconds": 7.25, "stack_by_kind": true,
             "panes": [{"strategy": "budget", "budget": "1234567 B"}, {"strategy": "dtr", "budget": 7, "heuristic": "cost-per-byte"},
                       {"strategy": "revolve", "slots": 4}, {"strategy": "periodic", "every": 3}],
             "stops": [{"at": "time", "pane": 2, "time": 3.141592653589793}, {"at": "first-eviction", "pane": 2}]}]})")
                                   << sourceDir() + "/resources/lessons";
    }
    void aLessonReadsBackAsWritten() {
        QFETCH(QString, text);
        QFETCH(QString, folder);
        const Lesson original = parseLessonJson(text.toStdString(), "original.json", folder.toStdString());
        QTemporaryDir elsewhere;
        QVERIFY(QDir(elsewhere.path()).mkpath("deeper"));
        const QString into = elsewhere.filePath("deeper");
        const Lesson again = writtenAndRead(original, into);
        remat::test::compareLessons(original, again);
        // Written twice, the same text.
        QCOMPARE(lessonJson(again, into.toStdString()), lessonJson(original, into.toStdString()));
    }

    void timeStopsNeedTheirTime() {
        const auto chapter = [](const std::string &stop) {
            return R"({"format": "remat-lesson", "title": "T", "chapters": [{"title": "A", "caption": "B",
                "panes": [{"strategy": "store-all"}], "stops": [)" +
                   stop + "]}]}";
        };
        QVERIFY_THROWS_EXCEPTION(InvalidArgument, parseLessonJson(chapter(R"({"at": "time"})"), "x", "."));
        QVERIFY_THROWS_EXCEPTION(InvalidArgument, parseLessonJson(chapter(R"({"at": "peak", "time": 3})"), "x", "."));
        QCOMPARE(parseLessonJson(chapter(R"({"at": "time", "time": 3})"), "x", ".").chapters[0].stops[0].time, 3.0);
    }
};

QTEST_GUILESS_MAIN(TestLessonWrite)
#include "test_lesson_write.moc"
