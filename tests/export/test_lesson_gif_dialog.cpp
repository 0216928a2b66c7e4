// File > Export lesson as GIFs…: the dialog writes one GIF per chapter of the
// open lesson off the GUI thread (the files decode, named as the command
// line names them), and Cancel stops it with the finished chapters complete
// and nothing half-written.
#include "gif_reader.h"

#include "app/export/lesson_export.h"
#include "app/studio/lesson_controller.h"
#include "app/studio/lesson_gif_dialog.h"
#include "app/studio/main_window.h"
#include "tests/studio/studio_test_main.h"

#include <QAction>
#include <QDir>
#include <QLabel>
#include <QProgressBar>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using remat::studio::LessonGifDialog;
using remat::studio::MainWindow;
using remat::testing::decodeGif;

namespace {

QString builtinLesson() {
    return qEnvironmentVariable("REMAT_SOURCE_DIR") + "/resources/lessons/gradient-checkpointing.json";
}

// A GIF ends with its trailer byte: a file cut short does not.
bool completeGif(const QString &path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return false;
    const QByteArray bytes = f.readAll();
    return bytes.startsWith("GIF89a") && bytes.endsWith(char(0x3B));
}

} // namespace

class TestLessonGifDialog : public QObject {
    Q_OBJECT
private slots:
    void onlyWithALesson() {
        MainWindow window(remat::testing::freshWindow());
        auto *action = window.findChild<QAction *>("exportLessonGifs");
        QVERIFY(action);
        QVERIFY(!action->isEnabled());
        QVERIFY(!window.lesson()->exportGifs());
        QCOMPARE(window.lesson()->open(builtinLesson()), QString());
        QVERIFY(action->isEnabled());
    }

    void writesOneGifPerChapter() {
        MainWindow window(remat::testing::freshWindow());
        QCOMPARE(window.lesson()->open(builtinLesson()), QString());
        QTemporaryDir dir;
        const QString out = dir.filePath("slides");
        LessonGifDialog *dialog = window.lesson()->exportGifs();
        QVERIFY(dialog);
        dialog->setDirectory(out);
        dialog->setMaxFramesPerChapter(12);
        QSignalSpy finished(dialog, &LessonGifDialog::exportFinished);
        QVERIFY(dialog->start());
        QVERIFY(dialog->isRunning());
        QVERIFY(finished.wait(180000));
        QVERIFY2(finished.front().at(0).toBool(), qPrintable(finished.front().at(1).toString()));
        const auto *lesson = window.lesson()->lesson();
        const QStringList files = QDir(out).entryList({"*.gif"}, QDir::Files, QDir::Name);
        QCOMPARE(files.size(), static_cast<int>(lesson->chapters.size()));
        for (int c = 0; c < files.size(); ++c) {
            QCOMPARE(files[c], remat::exporting::chapterGifName(c, lesson->chapters[std::size_t(c)].title));
            const auto gif = decodeGif(QDir(out).filePath(files[c]));
            QCOMPARE(gif.width, 960);
            QVERIFY(gif.frames.size() >= 2); // the title card and the chapter
        }
        QVERIFY(finished.front().at(1).toString().contains(QString("Wrote %1 GIFs").arg(files.size())));
    }

    void cancelKeepsFinishedChaptersWhole() {
        MainWindow window(remat::testing::freshWindow());
        QCOMPARE(window.lesson()->open(builtinLesson()), QString());
        QTemporaryDir dir;
        LessonGifDialog *dialog = window.lesson()->exportGifs();
        dialog->setDirectory(dir.path());
        QSignalSpy finished(dialog, &LessonGifDialog::exportFinished);
        QVERIFY(dialog->start());
        // Cancel once the first chapter's frames are under way.
        QTRY_VERIFY_WITH_TIMEOUT(dialog->findChild<QProgressBar *>("progress")->value() > 0, 60000);
        dialog->reject();
        QVERIFY(dialog->isVisible()); // it waits for the worker
        QVERIFY(finished.wait(60000));
        QVERIFY(!finished.front().at(0).toBool());
        QVERIFY2(finished.front().at(1).toString().startsWith("Cancelled after"),
                 qPrintable(finished.front().at(1).toString()));
        const QStringList files = QDir(dir.path()).entryList({"*.gif"}, QDir::Files);
        QVERIFY(files.size() < static_cast<int>(window.lesson()->lesson()->chapters.size()));
        for (const QString &f : files)
            QVERIFY2(completeGif(dir.filePath(f)), qPrintable(f));
        // Nothing left over by the encoder either: only the finished chapters' GIFs.
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::NoDotAndDotDot).size(), files.size());
    }

    void aFileIsNotAFolder() {
        MainWindow window(remat::testing::freshWindow());
        QCOMPARE(window.lesson()->open(builtinLesson()), QString());
        QTemporaryDir dir;
        QFile file(dir.filePath("taken"));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.close();
        LessonGifDialog *dialog = window.lesson()->exportGifs();
        dialog->setDirectory(file.fileName());
        QVERIFY(!dialog->start());
        QVERIFY(dialog->message().contains("is a file; choose a folder"));
    }
};

int main(int argc, char **argv) {
    TestLessonGifDialog test;
    return remat::testing::runStudioTest(test, "test_lesson_gif_dialog", argc, argv);
}

#include "test_lesson_gif_dialog.moc"
