// `remat-studio --lesson FILE --chapter N --answer LIST --grade`, run as a
// user runs it: the verdict line is the core's (core/exercise.h), the exit
// status says fits (0), over the budget (1) or a bad answer (2, one line
// naming the value and what is allowed).
#include "app/lesson/lesson.h"
#include "tests/common/run_process.h"

#include <QtTest>

using namespace remat;

namespace {

QString exercises() {
    return qEnvironmentVariable("REMAT_SOURCE_DIR") + QStringLiteral("/resources/lessons/checkpoint-exercises.json");
}

test::ProcessResult grade(const QString &chapter, const QString &answer) {
    return test::runProcess(qEnvironmentVariable("REMAT_STUDIO_EXE"),
                            {"--lesson", exercises(), "--chapter", chapter, "--answer", answer, "--grade"});
}

std::vector<int> numbers(const QString &list) {
    std::vector<int> out;
    for (const QString &piece : list.split(',', Qt::SkipEmptyParts))
        out.push_back(piece.toInt());
    return out;
}

} // namespace

class TestGradeCommand : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        if (qEnvironmentVariableIsEmpty("REMAT_STUDIO_EXE"))
            QSKIP("remat-studio is not built");
    }

    void printsTheCoresVerdict_data() {
        QTest::addColumn<int>("chapter");
        QTest::addColumn<QString>("answer");
        QTest::newRow("nothing kept") << 1 << "";
        QTest::newRow("one node") << 1 << "4";
        QTest::newRow("fits") << 1 << "3,6";
        QTest::newRow("any order") << 1 << "7, 5,2,1";
        QTest::newRow("periodic") << 3 << "4,8,12";
        QTest::newRow("uneven") << 3 << "6,10,13,15";
        QTest::newRow("vgg all") << 5 << "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20";
        QTest::newRow("vgg some") << 5 << "2,3,5,6,7,8,9,11,12,13,14,15,16,17,18,19,20";
    }
    void printsTheCoresVerdict() {
        QFETCH(int, chapter);
        QFETCH(QString, answer);
        const lesson::Lesson lesson = lesson::loadLessonFile(exercises().toStdString());
        const lesson::Chapter &c = lesson.chapters.at(static_cast<std::size_t>(chapter - 1));
        const ExerciseGrade expected = gradeExercise(*c.model, c.exercise->budget, numbers(answer));
        const test::ProcessResult run = grade(QString::number(chapter), answer);
        QCOMPARE(run.exitCode, expected.verdict == Verdict::OverBudget ? 1 : 0);
        const QString line = QString::fromUtf8(run.out).trimmed();
        QCOMPARE(line, QString("chapter %1: ").arg(chapter) +
                           QString::fromStdString(verdictText(*c.model, c.exercise->budget, expected)));
        QCOMPARE(line.contains("best", Qt::CaseInsensitive), expected.verdict == Verdict::Best);
        QVERIFY(run.err.isEmpty());
    }

    void refusesBadAnswers_data() {
        QTest::addColumn<QString>("chapter");
        QTest::addColumn<QString>("answer");
        QTest::addColumn<QString>("message");
        QTest::newRow("not a number") << "1" << "3,x" << "--answer: 'x' is not a node number";
        QTest::newRow("empty piece") << "1" << "3,,5" << "--answer: '' is not a node number";
        QTest::newRow("the output") << "1" << "8" << "--answer: node 8 cannot be kept: an answer keeps forward nodes 1 to 7";
        QTest::newRow("the input") << "1" << "0,3" << "--answer: node 0 cannot be kept";
        QTest::newRow("twice") << "1" << "3,3" << "--answer: node 3 is listed twice";
        QTest::newRow("unknown chapter") << "9" << "3" << "--chapter 9: the lesson has chapters 1 to 6; those with an exercise: 1, 3, 5";
        QTest::newRow("no exercise") << "2" << "3" << "--chapter 2 has no exercise; chapters with one: 1, 3, 5";
        QTest::newRow("chapter not a number") << "one" << "3" << "--chapter must be a chapter number from 1, got 'one'";
    }
    void refusesBadAnswers() {
        QFETCH(QString, chapter);
        QFETCH(QString, answer);
        QFETCH(QString, message);
        const test::ProcessResult run = grade(chapter, answer);
        QCOMPARE(run.exitCode, 2);
        QVERIFY(run.out.isEmpty());
        const QString err = QString::fromUtf8(run.err);
        QVERIFY2(err.startsWith("remat-studio: " + message), qPrintable(err));
        QCOMPARE(err.count('\n'), 1);
    }

    void needsEveryOption() {
        const test::ProcessResult run = test::runProcess(qEnvironmentVariable("REMAT_STUDIO_EXE"),
                                                         {"--lesson", exercises(), "--chapter", "1", "--grade"});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("--grade needs --answer"), run.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestGradeCommand)
#include "test_grade_command.moc"
