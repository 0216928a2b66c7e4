// Lesson files as a teacher writes them: good ones load with every field,
// bad ones are refused with the file, the JSON pointer (or line) and what was
// expected; stops fall where the simulator says; and the built-in lesson
// tells the story of the seeds truthfully (its claims checked on the
// simulator's counts).
#include "app/lesson/lesson.h"
#include "app/lesson/lesson_stops.h"
#include "core/comparison.h"
#include "core/errors.h"
#include "core/frontier.h"
#include "core/simulator.h"
#include "core/strategy_registry.h"
#include "core/units.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

using namespace remat;
using namespace remat::lesson;

namespace {

QString sourceDir() {
    return qEnvironmentVariable("REMAT_SOURCE_DIR");
}

QString builtinLesson() {
    return sourceDir() + "/resources/lessons/gradient-checkpointing.json";
}

// A lesson around one chapter's JSON text.
std::string lessonWith(const std::string &chapter) {
    return R"({"format": "remat-lesson", "version": 1, "title": "T", "chapters": [)" + chapter + "]}";
}

Replay replayOf(const Chapter &chapter, std::size_t pane) {
    const Pane &p = chapter.panes[pane];
    auto schedule = std::make_shared<const Schedule>(
        StrategyRegistry::builtin().get(p.strategy).makeSchedule(*chapter.model, p.params));
    return Simulator::replay(chapter.model, schedule);
}

} // namespace

class TestLesson : public QObject {
    Q_OBJECT
private slots:
    void aGoodLessonLoadsWithEveryField() {
        QTemporaryDir dir;
        QDir(dir.path()).mkpath("models");
        QVERIFY(QFile::copy(sourceDir() + "/resources/models/gpt2-small.json", dir.filePath("models/gpt2.json")));
        const std::string text = R"({
          "format": "remat-lesson", "version": 1, "title": "Mine", "comment": "free text",
          "chapters": [
            {"title": "One", "caption": "A chain.", "layers": 12, "sync": "ops", "seconds": 8.5,
             "panes": [{"strategy": "periodic", "every": 3}, {"strategy": "revolve", "slots": 4},
                       {"strategy": "budget", "budget": "7 nodes"}, {"strategy": "checkpoints", "checkpoints": [4, 8]}],
             "stops": [{"at": "peak", "pane": 2}, {"at": "first-recomputation"}, {"at": "forward-end", "pane": 4}]},
            {"title": "Two", "caption": "A model file, relative to the lesson.", "model": "models/gpt2.json",
             "stack_by_kind": true, "panes": [{"strategy": "budget", "budget": "2 GiB", "comment": "x"}]},
            {"title": "Three", "caption": "Its curve.", "model": "models/gpt2.json", "show": "trade-off-curve"}
          ]})";
        QFile file(dir.filePath("mine.json"));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(text.c_str());
        file.close();
        const Lesson lesson = loadLessonFile(file.fileName().toStdString());
        QCOMPARE(lesson.title, std::string("Mine"));
        QCOMPARE(lesson.chapters.size(), std::size_t{3});
        const Chapter &one = lesson.chapters[0];
        QCOMPARE(one.model->layers(), 12);
        QVERIFY(!one.syncByCost);
        QCOMPARE(one.seconds, 8.5);
        QCOMPARE(one.panes.size(), std::size_t{4});
        QCOMPARE(*one.panes[0].params.every, 3);
        QCOMPARE(*one.panes[1].params.checkpointSlots, 4);
        QCOMPARE(*one.panes[2].params.budgetNodes, std::int64_t{7});
        QCOMPARE(*one.panes[3].params.checkpoints, (std::vector<int>{4, 8}));
        QCOMPARE(one.stops.size(), std::size_t{3});
        QCOMPARE(one.stops[0].pane, 1); // the file counts from 1
        QCOMPARE(one.stops[1].pane, 0); // default: the first pane
        QVERIFY(one.stops[1].kind == StopKind::FirstRecomputation);
        const Chapter &two = lesson.chapters[1];
        QVERIFY(two.model->hasSavedBytes());
        QVERIFY(two.stackByKind);
        QCOMPARE(two.modelName, std::string("GPT-2 small, 12 layers, seq 1024, batch 8, fp16"));
        QCOMPARE(*two.panes[0].params.budgetBytes, std::int64_t{2} << 30);
        QVERIFY(lesson.chapters[2].view == ChapterView::TradeOffCurve);
        QVERIFY(lesson.chapters[2].panes.empty());
    }

    // The example in docs/lessons.md is a lesson that loads (its models relative to resources/lessons).
    void theDocumentedExampleLoads() {
        QFile doc(sourceDir() + "/docs/lessons.md");
        QVERIFY(doc.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(doc.readAll());
        const qsizetype start = text.indexOf("```json\n");
        QVERIFY(start >= 0);
        const qsizetype end = text.indexOf("```", start + 8);
        const Lesson lesson = parseLessonJson(text.mid(start + 8, end - start - 8).toStdString(), "docs/lessons.md",
                                              (sourceDir() + "/resources/lessons").toStdString());
        QCOMPARE(lesson.chapters.size(), std::size_t{3});
        QVERIFY(lesson.chapters[2].view == ChapterView::TradeOffCurve);
    }

    void badLessonsAreRefusedWithThePlace_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected"); // after "<origin>: "
        const auto chapter = [](const std::string &more) {
            return QString::fromStdString(lessonWith(R"({"title": "A", "caption": "B.", )" + more + "}"));
        };
        QTest::newRow("not JSON") << "{\"format\": \"remat-lesson\",\n  \"title\" \"x\"}"
                                  << "line 2, column 13: not valid JSON";
        QTest::newRow("a model file") << R"({"nodes": []})"
                                      << "/nodes: unknown key \"nodes\"";
        QTest::newRow("no format") << R"({"title": "x", "chapters": []})"
                                   << "/: missing \"format\": \"remat-lesson\"";
        QTest::newRow("version 2") << R"({"format": "remat-lesson", "version": 2, "title": "x", "chapters": []})"
                                   << "/version: this remat reads version 1, got 2";
        QTest::newRow("no chapters") << R"({"format": "remat-lesson", "title": "x", "chapters": []})"
                                     << "/chapters: expected an array of 1 to 200 chapters";
        QTest::newRow("misspelt key") << chapter(R"("layers": 8, "pane": [])")
                                      << "/chapters/0/pane: unknown key \"pane\"";
        QTest::newRow("no panes") << chapter(R"("layers": 8)") << "/chapters/0: missing \"panes\"";
        QTest::newRow("five panes") << chapter(R"("panes": [{"strategy": "store-all"}, {"strategy": "store-all"},
              {"strategy": "store-all"}, {"strategy": "store-all"}, {"strategy": "store-all"}])")
                                    << "/chapters/0/panes: expected an array of 1 to 4 panes";
        QTest::newRow("caption too long")
            << QString::fromStdString(lessonWith(R"({"title": "A", "caption": ")" + std::string(300, 'x') +
                                                 R"(", "panes": [{"strategy": "store-all"}]})"))
            << "/chapters/0/caption: is 300 characters long; at most 240";
        QTest::newRow("empty title") << QString::fromStdString(
                                            lessonWith(R"({"title": " ", "caption": "B", "panes": []})"))
                                     << "/chapters/0/title: expected a non-empty text";
        QTest::newRow("unknown strategy") << chapter(R"("panes": [{"strategy": "store-some"}])")
                                          << "/chapters/0/panes/0/strategy: unknown strategy \"store-some\"; known: ";
        QTest::newRow("k beyond n") << chapter(R"("layers": 8, "panes": [{"strategy": "periodic", "every": 9}])")
                                    << "/chapters/0/panes/0: ";
        QTest::newRow("k for store-all") << chapter(R"("panes": [{"strategy": "store-all", "every": 2}])")
                                         << "/chapters/0/panes/0: ";
        QTest::newRow("k not a number") << chapter(R"("panes": [{"strategy": "periodic", "every": "4"}])")
                                        << "/chapters/0/panes/0/every: expected a whole number from 1 to";
        QTest::newRow("bad budget") << chapter(R"("panes": [{"strategy": "budget", "budget": "lots"}])")
                                    << "/chapters/0/panes/0/budget: expected a budget such as \"12 nodes\"";
        QTest::newRow("checkpoints not a list")
            << chapter(R"("panes": [{"strategy": "checkpoints", "checkpoints": 4}])")
            << "/chapters/0/panes/0/checkpoints: expected an array";
        QTest::newRow("stop of a missing pane")
            << chapter(R"("panes": [{"strategy": "store-all"}], "stops": [{"at": "peak", "pane": 2}])")
            << "/chapters/0/stops/0/pane: expected a whole number from 1 to 1, got 2";
        QTest::newRow("unknown stop") << chapter(R"("panes": [{"strategy": "store-all"}], "stops": [{"at": "top"}])")
                                      << "/chapters/0/stops/0/at: unknown stop \"top\"; known: peak, "
                                         "first-recomputation, forward-end";
        QTest::newRow("stop as op number") << chapter(R"("panes": [{"strategy": "store-all"}], "stops": [12])")
                                           << "/chapters/0/stops/0: expected an object such as {\"at\": \"peak\"";
        QTest::newRow("layers and model") << chapter(R"("layers": 8, "model": "x.json", "panes": [])")
                                          << "/chapters/0/model: give \"layers\" (a chain) or \"model\"";
        QTest::newRow("missing model file")
            << chapter(R"("model": "no-such-model.json", "panes": [])") << "/chapters/0/model: ";
        QTest::newRow("chain strategy on a DAG")
            << chapter(R"("model": "unet-batch8.json", "panes": [{"strategy": "periodic"}])")
            << "/chapters/0/panes/0: ";
        QTest::newRow("curve with panes")
            << chapter(R"("show": "trade-off-curve", "panes": [{"strategy": "store-all"}])")
            << "/chapters/0/panes: a \"trade-off-curve\" chapter shows its model's curve";
        QTest::newRow("unknown view") << chapter(R"("show": "slides", "panes": [])")
                                      << "/chapters/0/show: expected \"timeline\" or \"trade-off-curve\"";
        QTest::newRow("bad sync") << chapter(R"("sync": "time", "panes": [{"strategy": "store-all"}])")
                                  << "/chapters/0/sync: expected \"cost\" or \"ops\"";
        QTest::newRow("no time to play") << chapter(R"("seconds": 0, "panes": [{"strategy": "store-all"}])")
                                         << "/chapters/0/seconds: expected a number above 0";
        QTest::newRow("too deep") << QString(40, '[') << "line 1, column 17: nested more than 16 levels deep";
        const QString student = R"("panes": [{"strategy": "checkpoints", "checkpoints": []}])";
        QTest::newRow("exercise no set fits")
            << chapter(R"("layers": 8, )" + student.toStdString() + R"(, "exercise": {"budget": "5 nodes", "prompt": "P"})")
            << "/chapters/0/exercise/budget: no set of kept nodes fits a budget of 5 nodes; the smallest budget a "
               "set fits is 6 nodes";
        QTest::newRow("exercise without the student's pane")
            << chapter(R"("layers": 8, "panes": [{"strategy": "store-all"}], "exercise": {"budget": 7, "prompt": "P"})")
            << "/chapters/0/exercise: an exercise chapter's pane 1 is the student's";
        QTest::newRow("exercise without a prompt")
            << chapter(R"("layers": 8, )" + student.toStdString() + R"(, "exercise": {"budget": "7 nodes"})")
            << "/chapters/0/exercise: missing \"prompt\"";
        QTest::newRow("exercise with a bad budget")
            << chapter(R"("layers": 8, )" + student.toStdString() + R"(, "exercise": {"budget": "lots", "prompt": "P"})")
            << "/chapters/0/exercise/budget: expected a budget such as \"12 nodes\"";
        QTest::newRow("exercise on saved internals")
            << chapter(R"("model": "gpt2-small.json", )" + student.toStdString() +
                       R"(, "exercise": {"budget": "2 GiB", "prompt": "P"})")
            << "/chapters/0/exercise/budget: exercises are graded on chains whose layers save no internals";
        QTest::newRow("exercise on a curve")
            << chapter(R"("show": "trade-off-curve", "exercise": {"budget": 7, "prompt": "P"})")
            << "/chapters/0/exercise: a \"trade-off-curve\" chapter";
    }

    void badLessonsAreRefusedWithThePlace() {
        QFETCH(QString, text);
        QFETCH(QString, expected);
        try {
            parseLessonJson(text.toStdString(), "bad.json", (sourceDir() + "/resources/models").toStdString());
            QFAIL("accepted a bad lesson");
        } catch (const InvalidArgument &e) {
            const QString message = QString::fromUtf8(e.what());
            QVERIFY2(message.startsWith("bad.json: " + expected), qPrintable(message));
            QVERIFY2(!message.contains('\n'), qPrintable(message)); // one line
        }
    }

    // A model file that does not load names both files and the model's own place.
    void aBadModelFileNamesBothFiles() {
        QTemporaryDir dir;
        QFile model(dir.filePath("broken.json"));
        QVERIFY(model.open(QIODevice::WriteOnly));
        model.write(R"({"nodes": [{"name": "in", "bytes": 4}, {"name": "l", "bytes": -3}]})");
        model.close();
        try {
            parseLessonJson(lessonWith(R"({"title": "A", "caption": "B", "model": "broken.json", "panes": []})"),
                            "lesson.json", dir.path().toStdString());
            QFAIL("accepted a lesson whose model does not load");
        } catch (const InvalidArgument &e) {
            const QString message = QString::fromUtf8(e.what());
            QVERIFY2(message.startsWith("lesson.json: /chapters/0/model: ") && message.contains("broken.json") &&
                         message.contains("/nodes/1/bytes"),
                     qPrintable(message));
        }
        try {
            loadLessonFile(dir.filePath("absent.json").toStdString());
            QFAIL("read a lesson that does not exist");
        } catch (const InvalidArgument &e) {
            QVERIFY2(QString(e.what()).contains("absent.json: cannot read the lesson"), e.what());
        }
    }

    // Each stop is the op the simulator's timeline says: checked against the
    // summary (peak) and the state after each op (compute counts).
    void stopsFallWhereTheTimelineSays_data() {
        QTest::addColumn<QString>("strategy");
        for (const Strategy *s : StrategyRegistry::builtin().all())
            if (s->runsWithDefaults())
                QTest::newRow(s->name().data()) << QString::fromUtf8(s->name().data());
    }

    void stopsFallWhereTheTimelineSays() {
        QFETCH(QString, strategy);
        Chapter chapter;
        chapter.model = std::make_shared<const Model>(Model::chain(12));
        chapter.panes = {{strategy.toStdString(), {}}};
        const Replay replay = replayOf(chapter, 0);
        const Timeline &tl = replay.timeline;
        QCOMPARE(stopStep(tl, StopKind::Peak).value_or(-2), replay.summary.peakStep);

        const NodeId output = chapter.model->outputNode();
        StepState state = tl.stateAt(-1);
        std::optional<std::int64_t> firstAgain, forwardEnd;
        for (std::int64_t s = 0; s < tl.steps(); ++s) {
            const Op op = tl.op(s);
            const bool forwardCompute = op.kind == OpKind::Compute && !chapter.model->isBackward(op.node);
            if (forwardCompute && !firstAgain && (state.computeCount[op.node] > 0 || op.node == 0))
                firstAgain = s;
            if (forwardCompute && op.node == output && !forwardEnd)
                forwardEnd = s;
            tl.advance(state);
        }
        QCOMPARE(stopStep(tl, StopKind::FirstRecomputation), firstAgain);
        QCOMPARE(stopStep(tl, StopKind::ForwardEnd), forwardEnd);
        QVERIFY(forwardEnd.has_value());
        QCOMPARE(firstAgain.has_value(), replay.summary.recomputations > 0);
    }

    // The built-in lesson: the seeds' story in order, every stop happens, and
    // what its captions claim holds on the simulator's counts.
    void theBuiltinLessonTellsTheSeedsStory() {
        const Lesson lesson = loadLessonFile(builtinLesson().toStdString());
        QVERIFY(lesson.chapters.size() >= 8);
        // Chapters after the fourth are found by title: a lesson may gain chapters in between.
        const auto titled = [&](const char *start) -> const Chapter & {
            for (const Chapter &c : lesson.chapters)
                if (c.title.rfind(start, 0) == 0)
                    return c;
            qFatal("no chapter titled \"%s...\"", start);
        };
        auto strategies = [](const Chapter &c) {
            QStringList names;
            for (const Pane &p : c.panes)
                names << QString::fromStdString(p.strategy);
            return names;
        };
        // 1: what an activation is, one pane, n = 8.
        QCOMPARE(lesson.chapters[0].model->layers(), 8);
        QCOMPARE(strategies(lesson.chapters[0]), QStringList{"store-all"});
        // 2: store-all against recompute-all: memory O(n) against compute O(n^2).
        const Chapter &extremes = lesson.chapters[1];
        QCOMPARE(strategies(extremes), (QStringList{"store-all", "recompute-all"}));
        const Replay all = replayOf(extremes, 0), none = replayOf(extremes, 1);
        QVERIFY(none.summary.peakBytes < all.summary.peakBytes);
        QVERIFY(none.summary.forwardEvaluations >= all.summary.forwardEvaluations * 4);
        // 3: a checkpoint every sqrt(n)-th node, between the two.
        const Chapter &sqrtN = lesson.chapters[2];
        QCOMPARE(strategies(sqrtN), (QStringList{"store-all", "recompute-all", "periodic"}));
        const Replay periodic = replayOf(sqrtN, 2);
        QCOMPARE(periodic.timeline.schedule().checkpoints.size(), std::size_t{3}); // a_4, a_8, a_12 of 16
        QVERIFY(periodic.summary.peakBytes < replayOf(sqrtN, 0).summary.peakBytes);
        QVERIFY(periodic.summary.forwardEvaluations <= 2 * sqrtN.model->layers()); // one extra forward pass
        // 4: same peak as sqrt(n), fewer recomputations (revolve, budget).
        const Chapter &optimal = lesson.chapters[3];
        QCOMPARE(strategies(optimal), (QStringList{"periodic", "revolve", "budget"}));
        const Replay base = replayOf(optimal, 0);
        for (std::size_t i = 1; i < 3; ++i) {
            const Replay r = replayOf(optimal, i);
            QVERIFY2(r.summary.peakBytes <= base.summary.peakBytes, optimal.panes[i].strategy.c_str());
            QVERIFY2(r.summary.recomputations < base.summary.recomputations, optimal.panes[i].strategy.c_str());
        }
        // 4b: no plan: the runtime (dtr) within the budget planner's 12 nodes matches its compute; h = c/m
        // recomputes more. The first eviction stop shows the compute an eviction made room for.
        const Chapter &runtime = titled("What if the runtime decides");
        QCOMPARE(strategies(runtime), (QStringList{"dtr", "dtr", "budget"}));
        QCOMPARE(*runtime.panes[1].params.heuristic, std::string("cost-per-byte"));
        const Replay dtr = replayOf(runtime, 0), costPerByte = replayOf(runtime, 1), planned = replayOf(runtime, 2);
        for (const Replay *r : {&dtr, &costPerByte})
            QVERIFY(r->summary.peakNodes <= *runtime.panes[0].params.budgetNodes);
        QCOMPARE(dtr.summary.cost, planned.summary.cost);
        QVERIFY(costPerByte.summary.recomputations > dtr.summary.recomputations);
        const std::int64_t evictionStop = stopStep(dtr.timeline, StopKind::FirstEviction).value_or(-1);
        QCOMPARE(dtr.timeline.op(evictionStop).kind, OpKind::Compute);
        QCOMPARE(dtr.timeline.op(evictionStop - 1).kind, OpKind::Free);
        QVERIFY(eventAt(dtr.timeline.schedule(), evictionStop - 1) != nullptr);
        QVERIFY(!stopStep(planned.timeline, StopKind::FirstEviction).has_value()); // a plan evicts nothing
        // 5: a transformer with saved internals, per-block checkpointing keeps one block's internals at a time.
        const Chapter &transformer = titled("A transformer");
        QVERIFY(transformer.model->hasSavedBytes());
        QVERIFY(transformer.stackByKind);
        QCOMPARE(*transformer.panes[1].params.every, 1);
        const Replay perBlock = replayOf(transformer, 1);
        QCOMPARE(perBlock.summary.peakSavedBytes, transformer.model->savedBytes(1));
        QVERIFY(perBlock.summary.peakBytes * 4 < replayOf(transformer, 0).summary.peakBytes);
        // 6: the trade-off curve, on which per-layer checkpointing sits.
        // Right after it, selective recomputation on GPT-2's op-level blocks:
        // keeping the matmul outputs saves a quarter of store-all's peak for
        // under 1 % more compute; per-block checkpointing pays over 30 %.
        const Chapter &selective = *(&transformer + 1);
        QCOMPARE(selective.title, std::string("Selective recomputation: keep the matmuls"));
        QVERIFY(selective.model->isOpLevel());
        QCOMPARE(strategies(selective), (QStringList{"store-all", "per-block", "save-matmuls"}));
        const Replay stored = replayOf(selective, 0), blocks = replayOf(selective, 1), matmuls = replayOf(selective, 2);
        QVERIFY(matmuls.summary.peakBytes * 4 <= stored.summary.peakBytes * 3);
        QVERIFY(matmuls.summary.cost < stored.summary.cost * 1.01);
        QVERIFY(blocks.summary.cost > stored.summary.cost * 1.3);
        QVERIFY(blocks.summary.peakBytes < matmuls.summary.peakBytes);
        const Chapter &curve = titled("The trade-off");
        QVERIFY(curve.view == ChapterView::TradeOffCurve);
        const Frontier frontier = computeFrontier(*curve.model, {});
        bool perLayerOnTheCurve = false;
        for (const FrontierPoint &p : frontier.curve)
            perLayerOnTheCurve =
                perLayerOnTheCurve || (p.peakBytes == perBlock.summary.peakBytes && p.cost == perBlock.summary.cost);
        QVERIFY(perLayerOnTheCurve);

        // Every stop of every chapter happens, at a distinct moment of its pane.
        for (std::size_t c = 0; c < lesson.chapters.size(); ++c) {
            const Chapter &chapter = lesson.chapters[c];
            QVERIFY2(chapter.view == ChapterView::TradeOffCurve || !chapter.stops.empty(), chapter.title.c_str());
            for (const Stop &stop : chapter.stops) {
                const Replay r = replayOf(chapter, static_cast<std::size_t>(stop.pane));
                QVERIFY2(stopStep(r.timeline, stop.kind).has_value(),
                         qPrintable(QString("chapter %1: %2 of pane %3 never happens")
                                        .arg(c + 1)
                                        .arg(stopKindName(stop.kind))
                                        .arg(stop.pane + 1)));
            }
        }
    }

    // The shipped exercises: three, each harder than the last (more layers,
    // then uneven ones), each followed by an answer chapter that keeps the
    // best set; the captions' numbers are the simulator's.
    void theExerciseLessonTellsTheTruth() {
        const Lesson lesson =
            loadLessonFile((sourceDir() + "/resources/lessons/checkpoint-exercises.json").toStdString());
        std::vector<std::size_t> exercises;
        for (std::size_t c = 0; c < lesson.chapters.size(); ++c)
            if (lesson.chapters[c].exercise)
                exercises.push_back(c);
        QCOMPARE(exercises.size(), std::size_t{3});
        int layers = 0;
        for (std::size_t c : exercises) {
            const Chapter &question = lesson.chapters[c];
            QVERIFY(question.model->layers() > layers);
            layers = question.model->layers();
            const ExerciseBudget &budget = question.exercise->budget;
            // The question starts over the budget: there is something to do.
            const ExerciseGrade start = gradeExercise(*question.model, budget, *question.panes[0].params.checkpoints);
            QCOMPARE(start.verdict, Verdict::OverBudget);
            // The answer chapter keeps the best set, beside the budget planner at the same budget.
            QVERIFY(c + 1 < lesson.chapters.size());
            const Chapter &answer = lesson.chapters[c + 1];
            QVERIFY2(answer.title.rfind("Answer", 0) == 0, answer.title.c_str());
            QCOMPARE(answer.model->layers(), question.model->layers());
            QCOMPARE(answer.panes.at(0).strategy, std::string("checkpoints"));
            const ExerciseGrade best = gradeExercise(*question.model, budget, *answer.panes[0].params.checkpoints);
            QCOMPARE(best.verdict, Verdict::Best);
            QCOMPARE(answer.panes.at(1).strategy, std::string("budget"));
            QCOMPARE(peakIn(replayOf(answer, 1).summary, budget.unit) <= budget.amount, true);
        }
        // The last one's layers are uneven.
        const Model &vgg = *lesson.chapters[exercises.back()].model;
        QVERIFY(vgg.bytes(vgg.forwardNode(1)) > 16 * vgg.bytes(vgg.forwardNode(vgg.layers() - 4)));
        // Exercise 1: keeping nothing peaks at 10 nodes; exercise 2: every 4th node peaks one over the budget.
        QCOMPARE(replayOf(lesson.chapters[exercises[0]], 0).summary.peakNodes, std::int64_t{10});
        const Chapter &second = lesson.chapters[exercises[1]];
        QCOMPARE(second.panes.at(1).strategy, std::string("periodic"));
        QCOMPARE(replayOf(second, 1).summary.peakNodes, second.exercise->budget.amount + 1);
        // Exercise 3: store-all peaks at 1.83 GiB, over the budget.
        const Chapter &third = lesson.chapters[exercises[2]];
        QCOMPARE(third.panes.at(1).strategy, std::string("store-all"));
        QCOMPARE(QString::fromStdString(formatBytes(replayOf(third, 1).summary.peakBytes)), QString("1.83 GiB"));
    }
};

QTEST_GUILESS_MAIN(TestLesson)
#include "test_lesson.moc"
