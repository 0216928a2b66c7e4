#pragma once
// Two lessons alike in everything the studio shows of them: what a round
// trip (written and read again, built in the editor and reopened) must keep.
#include "app/lesson/lesson.h"

#include <QtTest>

#include <filesystem>

namespace remat::test {

inline std::filesystem::path sameFile(const std::string &file) {
    return std::filesystem::weakly_canonical(file.empty() ? "." : file);
}

// Field by field: what the studio shows of each chapter.
inline void compareLessons(const lesson::Lesson &a, const lesson::Lesson &b) {
    QCOMPARE(b.title, a.title);
    QCOMPARE(b.chapters.size(), a.chapters.size());
    for (std::size_t c = 0; c < a.chapters.size(); ++c) {
        const lesson::Chapter &x = a.chapters[c], &y = b.chapters[c];
        QCOMPARE(y.title, x.title);
        QCOMPARE(y.caption, x.caption);
        QCOMPARE(y.model->layers(), x.model->layers());
        QCOMPARE(y.modelName, x.modelName);
        QCOMPARE(sameFile(y.modelFile), sameFile(x.modelFile));
        QVERIFY(y.view == x.view);
        QCOMPARE(y.syncByCost, x.syncByCost);
        QCOMPARE(y.seconds, x.seconds);
        QCOMPARE(y.stackByKind, x.stackByKind);
        QCOMPARE(y.panes.size(), x.panes.size());
        for (std::size_t p = 0; p < x.panes.size(); ++p) {
            QCOMPARE(y.panes[p].strategy, x.panes[p].strategy);
            const StrategyParams &u = x.panes[p].params, &v = y.panes[p].params;
            QCOMPARE(v.every, u.every);
            QCOMPARE(v.checkpointSlots, u.checkpointSlots);
            QCOMPARE(v.budgetNodes, u.budgetNodes);
            QCOMPARE(v.budgetBytes, u.budgetBytes);
            QCOMPARE(v.heuristic, u.heuristic);
            QCOMPARE(v.checkpoints, u.checkpoints);
        }
        QCOMPARE(y.stops.size(), x.stops.size());
        for (std::size_t s = 0; s < x.stops.size(); ++s) {
            QVERIFY(y.stops[s].kind == x.stops[s].kind);
            QCOMPARE(y.stops[s].pane, x.stops[s].pane);
            QCOMPARE(y.stops[s].time, x.stops[s].time);
        }
        QCOMPARE(y.exercise.has_value(), x.exercise.has_value());
        if (x.exercise) {
            QCOMPARE(y.exercise->prompt, x.exercise->prompt);
            QCOMPARE(y.exercise->budget.amount, x.exercise->budget.amount);
            QVERIFY(y.exercise->budget.unit == x.exercise->budget.unit);
        }
    }
}

} // namespace remat::test
