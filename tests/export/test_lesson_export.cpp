// `remat-studio --lesson FILE --export-gif DIR` as a lecturer runs it, in its
// own process without a display, the GIFs read back with giflib: one file per
// chapter, named by chapter; each opens with a title card that carries the
// chapter's title and caption; the frames are the chapter's moments (counted
// against the simulator for the first chapter) and the animation pauses at
// each stop; bad lessons and bad options exit 2 and write nothing.
//
// What the title-card check proves: the chapter's own texts, drawn alone with
// the card's fonts and places (TitleCard::texts), are found as ink in the
// decoded first frame, and no two chapters' cards are alike. It does not read
// the text back (no OCR): a card drawing the right strings in the wrong
// places would pass only if TitleCard::texts itself were wrong.
#include "app/export/lesson_export.h"
#include "app/export/title_card.h"
#include "app/lesson/lesson.h"
#include "app/lesson/lesson_stops.h"
#include "core/simulator.h"
#include "core/strategy_registry.h"
#include "gif_reader.h"
#include "tests/common/run_process.h"

#include <QDir>
#include <QFile>
#include <QGuiApplication>
#include <QPainter>
#include <QTemporaryDir>
#include <QTest>

using namespace remat;
using remat::testing::DecodedGif;
using remat::testing::decodeGif;

namespace {

QString builtinLesson() {
    return qEnvironmentVariable("REMAT_SOURCE_DIR") + "/resources/lessons/gradient-checkpointing.json";
}

test::ProcessResult studio(const QStringList &args) {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("QT_QPA_PLATFORM")); // the export must not need it
    env.remove(QStringLiteral("DISPLAY"));
    env.remove(QStringLiteral("WAYLAND_DISPLAY"));
    return test::runProcess(qEnvironmentVariable("REMAT_STUDIO_EXE"), args, env);
}

bool ink(QRgb c, QRgb background) {
    return std::abs(qRed(c) - qRed(background)) + std::abs(qGreen(c) - qGreen(background)) +
               std::abs(qBlue(c) - qBlue(background)) >
           150;
}

// The fraction of the pixels the card's texts alone put ink on that are ink in `frame` too.
double textFound(const QImage &frame, const exporting::TitleCard &card, const render::Palette &palette) {
    QImage alone(frame.size(), QImage::Format_RGB32);
    alone.fill(palette.background);
    {
        QPainter painter(&alone);
        painter.setPen(palette.text);
        for (const exporting::TitleCard::Text &t : card.texts(frame.size())) {
            painter.setFont(t.font);
            painter.drawText(t.rect, t.flags, t.text);
        }
    }
    const QRgb background = palette.background.rgb();
    int expected = 0, found = 0;
    for (int y = 0; y < alone.height(); ++y)
        for (int x = 0; x < alone.width(); ++x)
            if (ink(alone.pixel(x, y), background)) {
                ++expected;
                found += ink(frame.pixel(x, y), background);
            }
    return expected ? double(found) / expected : 0;
}

} // namespace

class TestLessonExport : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        if (qEnvironmentVariableIsEmpty("REMAT_STUDIO_EXE"))
            QSKIP("remat-studio is not built (no Qt Widgets)");
    }

    void oneGifPerChapterWithItsTitleCard() {
        QTemporaryDir dir;
        const QString out = dir.filePath("slides"); // made by the export
        const auto run = studio({"--lesson", builtinLesson(), "--export-gif", out, "--width", "640", "--title-frame",
                                 "3000", "--max-frames", "40"});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const lesson::Lesson lesson = lesson::loadLessonFile(builtinLesson().toStdString());
        const QStringList files = QDir(out).entryList({"*.gif"}, QDir::Files, QDir::Name);
        QCOMPARE(files.size(), static_cast<int>(lesson.chapters.size()));
        const render::Palette palette = render::Palette::light();
        std::vector<QImage> cards;
        for (int c = 0; c < files.size(); ++c) {
            const lesson::Chapter &chapter = lesson.chapters[static_cast<std::size_t>(c)];
            QCOMPARE(files[c], exporting::chapterGifName(c, chapter.title));
            QVERIFY2(run.out.contains(QDir(out).filePath(files[c]).toUtf8()), run.out.constData());
            const DecodedGif gif = decodeGif(QDir(out).filePath(files[c]));
            QCOMPARE(gif.width, 640);
            QCOMPARE(gif.height, 360);
            QCOMPARE(gif.delaysCs.front(), 300); // the title card, as long as asked

            exporting::TitleCard card;
            card.title = QString::fromStdString(chapter.title);
            card.description = QString::fromStdString(chapter.caption);
            const double found = textFound(gif.frames.front(), card, palette);
            QVERIFY2(found >= 0.9,
                     qPrintable(QStringLiteral("chapter %1: %2 of the title's ink").arg(c + 1).arg(found)));
            cards.push_back(gif.frames.front());
            for (std::size_t other = 0; other + 1 < cards.size(); ++other)
                QVERIFY2(cards[other] != cards.back(), "two chapters have the same title card");

            if (chapter.view == lesson::ChapterView::TradeOffCurve) {
                QCOMPARE(gif.frames.size(), std::size_t{2}); // the card, then the curve held
                QVERIFY(gif.delaysCs.back() >= 200);
                bool staircase = false;
                for (int y = 0; y < gif.height && !staircase; ++y)
                    for (int x = 0; x < gif.width && !staircase; ++x)
                        staircase = (gif.frames.back().pixel(x, y) | 0xff000000u) == palette.paneColour(0).rgb();
                QVERIFY(staircase);
                continue;
            }
            // The animation pauses at every stop: that many frames held 1.5 s, besides the card and the last.
            std::vector<const Timeline *> timelines;
            std::vector<Replay> replays;
            for (const lesson::Pane &pane : chapter.panes) {
                auto schedule = std::make_shared<const Schedule>(
                    StrategyRegistry::builtin().get(pane.strategy).makeSchedule(*chapter.model, pane.params));
                replays.push_back(Simulator::replay(chapter.model, schedule));
            }
            for (const Replay &r : replays)
                timelines.push_back(&r.timeline);
            const std::size_t stops = exporting::chapterStopTimes(chapter, timelines, render::TimeAxis::Cost).size();
            QVERIFY(stops >= 1);
            const auto held =
                std::count_if(gif.delaysCs.begin() + 1, gif.delaysCs.end() - 1, [](int cs) { return cs >= 150; });
            QVERIFY2(
                static_cast<std::size_t>(held) >= stops,
                qPrintable(QStringLiteral("chapter %1: %2 held frames for %3 stops").arg(c + 1).arg(held).arg(stops)));
            // The first chapter's frames, counted by hand: the card, the moment before
            // the first op, and the end of each of store-all's compute ops (n = 8: 8 + 9).
            if (c == 0) {
                const Summary &s = replays.front().summary;
                QCOMPARE(static_cast<std::int64_t>(gif.frames.size()), 2 + s.forwardEvaluations + s.backwardOps);
            }
        }
    }

    // An exercise chapter is exported as its question: the prompt and budget
    // on its card under the caption; the answer is the chapter after it.
    void anExerciseChapterIsExportedAsItsQuestion() {
        QTemporaryDir dir;
        const QString lessonFile =
            qEnvironmentVariable("REMAT_SOURCE_DIR") + "/resources/lessons/checkpoint-exercises.json";
        const auto run = studio({"--lesson", lessonFile, "--export-gif", dir.path(), "--width", "640", "--title-frame",
                                 "3000", "--max-frames", "20"});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const lesson::Lesson lesson = lesson::loadLessonFile(lessonFile.toStdString());
        const QStringList files = QDir(dir.path()).entryList({"*.gif"}, QDir::Files, QDir::Name);
        QCOMPARE(files.size(), static_cast<int>(lesson.chapters.size()));
        for (int c = 0; c < files.size(); ++c) {
            const lesson::Chapter &chapter = lesson.chapters[static_cast<std::size_t>(c)];
            const QString description = exporting::chapterDescription(chapter);
            QCOMPARE(description.contains(QString::fromStdString(chapter.exercise ? chapter.exercise->prompt : "\x01")),
                     chapter.exercise.has_value());
            exporting::TitleCard card;
            card.title = QString::fromStdString(chapter.title);
            card.description = description;
            const double found = textFound(decodeGif(QDir(dir.path()).filePath(files[c])).frames.front(), card,
                                           render::Palette::light());
            QVERIFY2(found >= 0.9, qPrintable(QStringLiteral("chapter %1: %2 of the card's ink").arg(c + 1).arg(found)));
        }
    }

    void badLessonsAndOptionsExit2AndWriteNothing_data() {
        QTest::addColumn<QString>("lessonText"); // "" for the built-in lesson
        QTest::addColumn<QStringList>("options");
        QTest::addColumn<QString>("message");
        QTest::newRow("bad lesson") << R"({"format": "remat-lesson", "title": "x", "chapters": [{"title": "a",
            "caption": "b", "panes": [{"strategy": "revolve", "slots": 0}]}]})"
                                    << QStringList() << ": /chapters/0/panes/0/slots: expected a whole number from 1";
        QTest::newRow("missing model") << R"({"format": "remat-lesson", "title": "x", "chapters": [{"title": "a",
            "caption": "b", "model": "gone.json", "panes": [{"strategy": "store-all"}]}]})"
                                       << QStringList() << ": /chapters/0/model: ";
        QTest::newRow("strategies with a lesson")
            << QString() << QStringList{"--strategies", "store-all"} << "--strategies does not go with --lesson";
        QTest::newRow("a PNG with a lesson")
            << QString() << QStringList{"--export-png", "x.png"} << "--export-png does not go with --lesson";
        QTest::newRow("bad width") << QString() << QStringList{"--width", "20"} << "--width must be an integer";
    }

    void badLessonsAndOptionsExit2AndWriteNothing() {
        QFETCH(QString, lessonText);
        QFETCH(QStringList, options);
        QFETCH(QString, message);
        QTemporaryDir dir;
        QString lessonFile = builtinLesson();
        if (!lessonText.isEmpty()) {
            lessonFile = dir.filePath("bad.json");
            QFile f(lessonFile);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(lessonText.toUtf8());
        }
        const QString out = dir.filePath("slides");
        const auto run = studio(QStringList{"--lesson", lessonFile, "--export-gif", out} + options);
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(QString::fromUtf8(run.err).contains(message), run.err.constData());
        QCOMPARE(run.err.count('\n'), 1); // one line
        QVERIFY(!QFileInfo::exists(out));
    }

    void aFileWhereTheFolderShouldBeIsLeftAlone() {
        QTemporaryDir dir;
        const QString file = dir.filePath("slides");
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("kept");
        f.close();
        const auto run = studio({"--lesson", builtinLesson(), "--export-gif", file});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("is a file"), run.err.constData());
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), QByteArray("kept"));
    }

    void chapterNamesAreSafeFileNames() {
        QCOMPARE(exporting::chapterGifName(0, "A checkpoint every \u221an-th node"),
                 QStringLiteral("01-a-checkpoint-every-n-th-node.gif"));
        QCOMPARE(exporting::chapterGifName(11, "../../etc/passwd: GPT-2's \"blocks\""),
                 QStringLiteral("12-etc-passwd-gpt-2-s-blocks.gif"));
    }
};

int main(int argc, char **argv) {
    // Fonts and painting (the expected title text) need a QGuiApplication, not a display.
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QGuiApplication app(argc, argv);
    TestLessonExport test;
    return QTest::qExec(&test, argc, argv);
}

#include "test_lesson_export.moc"
