// A lesson as a lecturer gives it, in the real window offscreen: the
// clicker's keys sent to whatever widget has focus walk through the stops and
// chapters (playback pauses by itself at each stop), B blanks the screen,
// Escape leaves presentation mode, every chapter reads on a projector, and
// the lesson, presentation mode and theme come back at the next start.
#include "app/render/frontier_painter.h"
#include "app/studio/frontier_view.h"
#include "app/studio/lesson_caption.h"
#include "app/studio/lesson_controller.h"
#include "app/studio/main_window.h"
#include "app/studio/pane_widget.h"
#include "tests/studio/projector_checks.h"
#include "tests/studio/studio_test_main.h"

#include <QAbstractSpinBox>
#include <QComboBox>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QPainterPathStroker>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QtTest>

using namespace remat;
using remat::studio::LessonController;
using remat::studio::MainWindow;

namespace {

QString builtinLesson() {
    return qEnvironmentVariable("REMAT_SOURCE_DIR") + "/resources/lessons/gradient-checkpointing.json";
}

// To the focused widget, or the active window when none has focus (the
// focused pane went with the chapter it belonged to).
void press(Qt::Key key) {
    QWidget *target = QApplication::focusWidget() ? QApplication::focusWidget() : QApplication::activeWindow();
    QVERIFY2(target, "no active window");
    QTest::keyClick(target, key);
}

QString shownBy(QWidget *w) {
    if (auto *spin = qobject_cast<QAbstractSpinBox *>(w))
        return spin->text();
    if (auto *combo = qobject_cast<QComboBox *>(w))
        return combo->currentText();
    return {};
}

bool near(double a, double b) {
    return std::abs(a - b) <= 1e-9 * (1 + std::abs(b));
}

struct Window {
    MainWindow window{remat::testing::freshWindow()};
    LessonController *lesson = window.lesson();
    studio::Player *player = window.player();

    explicit Window(QSize size = {1280, 800}) {
        window.resize(size);
        window.show();
        QApplication::setActiveWindow(&window);
    }
    // Panes planned and the chapter's stops known.
    bool ready() const { return !window.session().isSimulating() && (!lesson->stopTimes().empty() || lesson->curve()); }
};

} // namespace

class TestLessonPlayer : public QObject {
    Q_OBJECT
private slots:
    void theLessonOpensAtItsFirstChapterPaused() {
        Window w;
        QVERIFY(QTest::qWaitForWindowActive(&w.window));
        QCOMPARE(w.lesson->open(builtinLesson()), QString());
        QVERIFY(w.lesson->isOpen());
        QCOMPARE(w.lesson->chapter(), 0);
        QCOMPARE(w.window.session().paneCount(), 1);
        QCOMPARE(w.window.session().layers(), 8);
        QVERIFY(!w.player->isPlaying());
        QCOMPARE(w.player->position(), 0);
        QVERIFY(w.lesson->caption()->isVisible());
        QVERIFY(w.lesson->caption()->title().contains("An activation, and why the backward pass needs it"));
        QVERIFY(w.lesson->caption()->caption().startsWith("The forward pass (top row)"));
        // Two stops of the file and the chapter's end.
        QCOMPARE(w.lesson->stopTimes().size(), std::size_t{3});
        QVERIFY(near(w.lesson->stopTimes().back(), w.player->endTime()));
        QVERIFY(w.window.findChild<QAction *>("closeLesson")->isEnabled());
    }

    // File > Lessons lists the shipped lesson (found from the build tree) and opens it.
    void theFileMenuOffersTheShippedLesson() {
        Window w;
        QVERIFY(QTest::qWaitForWindowExposed(&w.window));
        auto *menu = w.window.findChild<QMenu *>("lessonsMenu");
        QVERIFY(menu);
        QAction *shipped = nullptr;
        for (QAction *a : menu->actions())
            if (a->text() == "Gradient checkpointing in eight steps")
                shipped = a;
        QVERIFY(shipped);
        QCOMPARE(QFileInfo(shipped->data().toString()).canonicalFilePath(),
                 QFileInfo(builtinLesson()).canonicalFilePath());
        shipped->trigger();
        QVERIFY(w.lesson->isOpen());
        QCOMPARE(w.window.findChild<QAction *>("openLesson")->shortcut(), QKeySequence("Ctrl+L"));
    }

    void clickerKeysWalkTheLessonWhateverHasFocus_data() {
        QTest::addColumn<QString>("focus"); // object name of the widget to focus; "" where the app puts it
        QTest::addColumn<bool>("presenting");
        QTest::newRow("as launched") << QString() << false;
        QTest::newRow("as launched, presenting") << QString() << true;
        QTest::newRow("speed box") << QStringLiteral("speed") << false;
        QTest::newRow("layers box") << QStringLiteral("layers") << false;
        QTest::newRow("strategy list") << QStringLiteral("strategy") << false;
    }

    void clickerKeysWalkTheLessonWhateverHasFocus() {
        QFETCH(QString, focus);
        QFETCH(bool, presenting);
        Window w;
        QVERIFY(QTest::qWaitForWindowActive(&w.window));
        QCOMPARE(w.lesson->open(builtinLesson()), QString());
        w.window.setPresentationMode(presenting);
        QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete); // the panes the lesson replaced
        if (!focus.isEmpty()) {
            QWidget *target = nullptr;
            auto find = [&] {
                for (QWidget *candidate : w.window.findChildren<QWidget *>(focus))
                    if (candidate->isVisible())
                        target = candidate;
                return target != nullptr;
            };
            QTRY_VERIFY(find()); // the chapter's panes show once the event loop runs
            target->setFocus(Qt::TabFocusReason);
            QTRY_COMPARE(QApplication::focusWidget(), target);
        }
        const std::vector<double> stops = w.lesson->stopTimes();
        QCOMPARE(stops.size(), std::size_t{3});
        w.window.session().setSpeed(400); // the chapter plays in a moment
        QWidget *focused = QApplication::focusWidget();
        QVERIFY2(focused, "the window gives no widget focus");
        const QString shown = shownBy(focused);

        // Page Down plays; playback pauses by itself at each stop.
        press(Qt::Key_PageDown);
        QVERIFY(w.player->isPlaying());
        QTRY_VERIFY(!w.player->isPlaying());
        QVERIFY2(near(w.player->time(), stops[0]), qPrintable(QString::number(w.player->time())));
        QCOMPARE(w.lesson->stopsPassed(), 1);
        QCOMPARE(w.lesson->caption()->progress(), QStringLiteral("\u25CF\u25CB\u25CB"));
        press(Qt::Key_Space);
        QTRY_VERIFY(!w.player->isPlaying());
        QVERIFY(near(w.player->time(), stops[1]));
        // The keys went to the lesson, not into the widget.
        QVERIFY2(QApplication::focusWidget() == focused,
                 qPrintable(QApplication::focusWidget() ? QApplication::focusWidget()->objectName() : "none"));
        QCOMPARE(shownBy(focused), shown);
        // Page Up: back to the stop before; ← too.
        press(Qt::Key_PageUp);
        QVERIFY(near(w.player->time(), stops[0]));
        press(Qt::Key_Left);
        QCOMPARE(w.player->time(), 0.0);
        // Page Down while playing: there at once.
        w.window.session().setSpeed(0.5);
        press(Qt::Key_Right);
        QVERIFY(w.player->isPlaying());
        press(Qt::Key_PageDown);
        QVERIFY(!w.player->isPlaying());
        QVERIFY(near(w.player->time(), stops[0]));
        w.window.session().setSpeed(400);
        press(Qt::Key_PageDown);
        QTRY_VERIFY(!w.player->isPlaying());
        press(Qt::Key_PageDown);
        QTRY_VERIFY(!w.player->isPlaying());
        QVERIFY(near(w.player->time(), w.player->endTime()));
        QVERIFY(w.lesson->caption()->progress().startsWith("Page Down: next chapter"));

        // At the chapter's end, the next chapter; Page Up at its start, the previous one at its end.
        press(Qt::Key_PageDown);
        QCOMPARE(w.lesson->chapter(), 1);
        QCOMPARE(w.player->time(), 0.0);
        QCOMPARE(w.window.session().paneCount(), 2);
        QVERIFY(w.lesson->caption()->title().contains("Store everything, or recompute everything?"));
        QTRY_COMPARE(w.window.pane(0)->findChild<QWidget *>("strategy")->isVisible(), !presenting);
        press(Qt::Key_PageUp);
        QCOMPARE(w.lesson->chapter(), 0);
        QVERIFY(near(w.player->time(), w.player->endTime()));
        // End: the last chapter (the trade-off curve); Page Up from it, the chapter before at its end.
        press(Qt::Key_End);
        QCOMPARE(w.lesson->chapter(), w.lesson->chapterCount() - 1);
        QVERIFY(w.lesson->curve());
        press(Qt::Key_PageDown); // nothing after the last chapter
        QCOMPARE(w.lesson->chapter(), w.lesson->chapterCount() - 1);
        press(Qt::Key_PageUp);
        QCOMPARE(w.lesson->chapter(), w.lesson->chapterCount() - 2);
        QVERIFY(!w.lesson->curve());
        QTRY_VERIFY(w.ready());
        QVERIFY(near(w.player->time(), w.player->endTime()));
        press(Qt::Key_Home);
        QCOMPARE(w.lesson->chapter(), 0);
        QCOMPARE(w.window.presentationMode(), presenting);
    }

    // Walking the whole lesson with Page Down alone reaches every stop of every chapter, then stops at the end.
    void pageDownAloneWalksEveryStop() {
        Window w;
        QVERIFY(QTest::qWaitForWindowActive(&w.window));
        QCOMPARE(w.lesson->open(builtinLesson()), QString());
        int presses = 0;
        for (int c = 0; c < w.lesson->chapterCount(); ++c) {
            QCOMPARE(w.lesson->chapter(), c);
            QTRY_VERIFY(w.ready());
            const std::vector<double> stops = w.lesson->stopTimes();
            w.window.session().setSpeed(std::max(400.0, w.player->endTime()));
            for (const double stop : stops) {
                press(Qt::Key_PageDown);
                ++presses;
                QTRY_VERIFY(!w.player->isPlaying());
                QVERIFY2(near(w.player->time(), stop), qPrintable(QString("chapter %1").arg(c + 1)));
            }
            press(Qt::Key_PageDown);
            ++presses;
        }
        QCOMPARE(w.lesson->chapter(), w.lesson->chapterCount() - 1);
        QVERIFY(w.window.statusBar()->currentMessage().contains("The end of the lesson"));
        QVERIFY(presses > w.lesson->chapterCount() * 2);
    }

    void bBlanksAndEscapeLeavesPresentation() {
        Window w;
        QVERIFY(QTest::qWaitForWindowActive(&w.window));
        w.window.findChild<QWidget *>("speed")->setFocus();
        QTRY_VERIFY(QApplication::focusWidget());
        // Without a lesson and a projector, B is no key of ours: it goes to the focused widget.
        press(Qt::Key_B);
        QVERIFY(!w.lesson->isBlank());
        press(Qt::Key_Return); // which B started editing: Return hands the keys back

        QCOMPARE(w.lesson->open(builtinLesson()), QString());
        w.window.setPresentationMode(true);
        press(Qt::Key_PageDown);
        const double time = w.player->time();
        press(Qt::Key_B);
        QVERIFY(w.lesson->isBlank());
        QVERIFY(!w.player->isPlaying()); // the animation waits in the dark
        const QImage shot = w.window.grab().toImage();
        for (const QPoint p : {QPoint(5, 5), QPoint(shot.width() / 2, shot.height() / 2),
                               QPoint(shot.width() - 5, shot.height() - 5), QPoint(20, shot.height() / 3)})
            QCOMPARE(QColor(shot.pixel(p)), QColor(Qt::black));
        press(Qt::Key_B);
        QVERIFY(!w.lesson->isBlank());
        press(Qt::Key_Period); // the other blank key
        QVERIFY(w.lesson->isBlank());
        press(Qt::Key_PageDown); // a lesson key brings the screen back and moves nothing
        QVERIFY(!w.lesson->isBlank());
        QCOMPARE(w.player->time(), time);
        QCOMPARE(w.lesson->chapter(), 0);

        QVERIFY(w.window.presentationMode());
        press(Qt::Key_Escape);
        QVERIFY(!w.window.presentationMode());
        QVERIFY(w.lesson->isOpen()); // Escape leaves the projector layout, not the lesson
        press(Qt::Key_B);
        QVERIFY(w.lesson->isBlank());
        press(Qt::Key_Escape);
        QVERIFY(!w.lesson->isBlank());
    }

    // Closing the lesson gives the player its keys back.
    void closingTheLessonReturnsThePlayerKeys() {
        Window w;
        QVERIFY(QTest::qWaitForWindowActive(&w.window));
        QCOMPARE(w.lesson->open(builtinLesson()), QString());
        w.window.findChild<QAction *>("closeLesson")->trigger();
        QVERIFY(!w.lesson->isOpen());
        QVERIFY(!w.lesson->caption()->isVisible());
        press(Qt::Key_Right);
        QCOMPARE(w.player->position(), 1); // one op, as the player steps
        press(Qt::Key_PageDown);
        QCOMPARE(w.player->position(), 1);
    }

    void aBadLessonIsRefusedAndTheOpenOneStays() {
        Window w;
        QVERIFY(QTest::qWaitForWindowActive(&w.window));
        QCOMPARE(w.lesson->open(builtinLesson(), 2), QString());
        QTemporaryDir dir;
        const QString bad = dir.filePath("bad.json");
        QFile file(bad);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(R"({"format": "remat-lesson", "title": "x", "chapters": [{"title": "a", "caption": "b",
                     "panes": [{"strategy": "periodic", "every": 0}]}]})");
        file.close();
        QVERIFY(!w.lesson->openWithDialog(bad));
        QMessageBox *box = nullptr;
        QTRY_VERIFY((box = w.window.findChild<QMessageBox *>()) && box->isVisible());
        QVERIFY2(box->text().contains(bad + ": /chapters/0/panes/0/every:"), qPrintable(box->text()));
        box->close();
        QCOMPARE(w.lesson->chapter(), 2);
        QVERIFY(w.lesson->file().endsWith("gradient-checkpointing.json"));
    }

    // A stop that never happens (store-all recomputes nothing) is skipped and said.
    void aStopThatNeverHappensIsSkipped() {
        Window w;
        QVERIFY(QTest::qWaitForWindowActive(&w.window));
        QTemporaryDir dir;
        QFile file(dir.filePath("mine.json"));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(R"({"format": "remat-lesson", "title": "x", "chapters": [{"title": "a", "caption": "b",
                     "layers": 6, "panes": [{"strategy": "store-all"}],
                     "stops": [{"at": "first-recomputation"}, {"at": "forward-end"}]}]})");
        file.close();
        QCOMPARE(w.lesson->open(file.fileName()), QString());
        QCOMPARE(w.lesson->stopTimes().size(), std::size_t{2}); // forward end, the chapter's end
        QVERIFY2(w.window.statusBar()->currentMessage().contains("first-recomputation of pane 1"),
                 qPrintable(w.window.statusBar()->currentMessage()));
    }

    void theLessonPresentationAndThemeAreRemembered() {
        {
            Window w;
            QVERIFY(QTest::qWaitForWindowExposed(&w.window));
            QCOMPARE(w.lesson->open(builtinLesson(), 3), QString());
            w.window.setTheme(studio::Theme::Dark);
            w.window.setPresentationMode(true);
            QVERIFY(w.window.close());
        }
        {
            MainWindow restored({});
            QVERIFY(restored.lesson()->isOpen());
            QCOMPARE(restored.lesson()->chapter(), 3);
            QCOMPARE(restored.lesson()->file(), QFileInfo(builtinLesson()).absoluteFilePath());
            QVERIFY(restored.presentationMode());
            QCOMPARE(restored.theme(), studio::Theme::Dark);
            QCOMPARE(restored.session().paneCount(), 3); // the chapter's panes
            // Leaving them off is remembered too.
            restored.lesson()->close();
            restored.setPresentationMode(false);
            restored.setTheme(studio::Theme::Light);
            QVERIFY(restored.close());
        }
        MainWindow again({});
        QVERIFY(!again.lesson()->isOpen());
        QVERIFY(!again.presentationMode());
        QCOMPARE(again.theme(), studio::Theme::Light);
        again.setTheme(studio::Theme::System);
        QVERIFY(again.close());
    }

    // Every chapter of the built-in lesson on a projector, at each of its
    // stops: the chart a third of the window, no peak label on another or on
    // a curve, the legend on one line, the caption large; the curve chapter's
    // labels clear of each other and of the staircase.
    void everyChapterReadsOnAProjector_data() {
        QTest::addColumn<QSize>("size");
        QTest::newRow("1280x720") << QSize(1280, 720);
        QTest::newRow("1920x1080") << QSize(1920, 1080);
    }

    void everyChapterReadsOnAProjector() {
        QFETCH(QSize, size);
        Window w(size);
        QVERIFY(QTest::qWaitForWindowExposed(&w.window));
        QCOMPARE(w.lesson->open(builtinLesson()), QString());
        w.window.setPresentationMode(true);
        QTRY_COMPARE(w.window.size(), size);
        const QFont base = w.window.statusBar()->font();
        for (int c = 0; c < w.lesson->chapterCount(); ++c) {
            w.lesson->showChapter(c);
            QTRY_VERIFY(w.ready());
            QTest::qWait(30);
            // The caption: larger than the window's text, and whole (no line cut off).
            auto *text = w.lesson->caption()->findChild<QLabel *>("lessonText");
            QVERIFY(QFontInfo(text->font()).pixelSize() >= 1.25 * QFontInfo(base).pixelSize());
            QVERIFY(text->height() >= text->heightForWidth(text->width()));
            const QString chapter = QStringLiteral("%1-chapter-%2").arg(QTest::currentDataTag()).arg(c + 1);
            if (studio::FrontierPanel *curve = w.lesson->curve()) {
                QTRY_VERIFY(!curve->isComputing());
                QTest::qWait(30);
                QVERIFY(curve->chart()->height() * 3 >= w.window.height());
                const render::FrontierLayout l =
                    render::FrontierLayout::make(QRectF(curve->chart()->rect()), QFontMetricsF(curve->chart()->font()),
                                                 *curve->chart()->frontier(), w.window.session().model()->costUnit());
                QPainterPathStroker stroker;
                stroker.setWidth(render::FrontierLayout::kPenWidth);
                QPainterPath path;
                path.addPolygon(l.staircase);
                const QPainterPath stroke = stroker.createStroke(path);
                for (std::size_t i = 0; i < l.labels.size(); ++i) {
                    QVERIFY2(!stroke.intersects(l.labels[i].box), qPrintable(chapter));
                    for (std::size_t j = 0; j < i; ++j)
                        QVERIFY2(!l.labels[i].box.intersects(l.labels[j].box), qPrintable(chapter));
                }
                w.window.grab().save(qEnvironmentVariable("REMAT_TEST_SCREENSHOTS", "/nonexistent") + "/" + chapter +
                                     ".png");
                continue;
            }
            const std::vector<double> stops = w.lesson->stopTimes();
            // The window settles (the caption's new lines resize the splitter, which re-divides after it).
            QTRY_VERIFY(w.window.chart()->height() * 3 >= w.window.height());
            for (std::size_t s = 0; s < stops.size(); ++s) {
                w.player->seekTime(stops[s]);
                const QString problem =
                    remat::testing::projectorProblem(w.window, chapter + "-stop-" + QString::number(s + 1));
                QVERIFY2(problem.isEmpty(), qPrintable(chapter + ": " + problem));
            }
        }
    }
};

int main(int argc, char **argv) {
    TestLessonPlayer test;
    return remat::testing::runStudioTest(test, "test_lesson_player", argc, argv);
}

#include "test_lesson_player.moc"
