#include "app/studio/lesson_capture.h"

#include "app/export/lesson_export.h"
#include "app/lesson/lesson_stops.h"
#include "app/render/time_axis.h"
#include "app/studio/player.h"
#include "app/studio/session.h"

#include <QStringList>

#include <cmath>
#include <vector>

namespace remat::studio {

namespace {

QString qs(const std::string &s) {
    return QString::fromStdString(s);
}

// Cut to `chars` characters (a default text must load again).
std::string fitted(const QString &text, int chars) {
    return (text.size() <= chars ? text : text.left(chars - 1) + QStringLiteral("\u2026")).toStdString();
}

} // namespace

void showChapterInSession(Session &session, const lesson::Chapter &chapter) {
    Scenario scenario;
    scenario.id = QStringLiteral("lesson");
    scenario.title = qs(chapter.title);
    scenario.layers = chapter.model->layers();
    session.loadScenario(scenario);
    if (!chapter.modelName.empty())
        session.setModel(chapter.model, qs(chapter.modelName));
    session.setSyncByTime(chapter.syncByCost);
    if (chapter.panes.empty())
        session.addPane(PaneConfig{}); // a curve chapter keeps one pane behind the curve
    for (const lesson::Pane &pane : chapter.panes)
        session.addPane(PaneConfig{pane.strategy, pane.params});
}

bool sessionShowsChapter(const Session &session, const lesson::Chapter &chapter) {
    if (session.model()->layers() != chapter.model->layers() ||
        session.paneCount() != static_cast<int>(chapter.panes.size()))
        return false;
    for (int i = 0; i < session.paneCount(); ++i)
        if (session.paneConfig(i).strategy != chapter.panes[static_cast<std::size_t>(i)].strategy)
            return false;
    return true;
}

QString chapterFromView(const Session &session, bool stackByKind, lesson::Chapter *out) {
    if (session.link().on())
        return QObject::tr("The lesson format has no link yet: turn the link off (Panes > Link and budgets) to make a chapter "
                           "of this view");
    if (!session.isChain() && session.modelFile().isEmpty())
        return QObject::tr("This model has no file a lesson could name: open it from a model file first");
    lesson::Chapter chapter;
    chapter.model = session.model();
    if (!session.isChain()) {
        chapter.modelFile = session.modelFile().toStdString();
        chapter.modelName = session.modelName().toStdString();
    }
    QStringList strategies, descriptions;
    for (int i = 0; i < session.paneCount(); ++i) {
        PaneConfig config = session.paneConfig(i);
        StrategyParams params; // only what a lesson file can say
        params.every = config.params.every;
        params.checkpoints = config.params.checkpoints;
        params.checkpointSlots = config.params.checkpointSlots;
        params.budgetBytes = config.params.budgetBytes;
        params.budgetNodes = config.params.budgetNodes;
        params.heuristic = config.params.heuristic;
        chapter.panes.push_back({config.strategy, params});
        strategies << qs(config.strategy);
        const auto &run = session.run(i);
        descriptions << (run ? qs(config.strategy) + QStringLiteral(" (") + qs(run->timeline->schedule().description) +
                                   QStringLiteral(")")
                             : qs(config.strategy));
    }
    if (chapter.panes.empty() || chapter.panes.size() > static_cast<std::size_t>(lesson::kMaxPanes))
        return QObject::tr("A chapter shows 1 to %1 panes").arg(lesson::kMaxPanes);
    chapter.syncByCost = session.syncByTime();
    chapter.stackByKind = stackByKind;
    const QString model = session.isChain() ? QObject::tr("%1 layers").arg(session.layers()) : session.modelName();
    chapter.title = fitted(strategies.join(QStringLiteral(", ")) + QStringLiteral(" on ") + model,
                           static_cast<int>(lesson::kMaxTitleChars));
    chapter.caption = fitted(descriptions.join(QStringLiteral("; ")) + QLatin1Char('.'),
                             static_cast<int>(lesson::kMaxCaptionChars));
    *out = std::move(chapter);
    return {};
}

QString stopAtPlayerMoment(const Session &session, const lesson::Chapter &chapter, lesson::Stop *out) {
    if (!sessionShowsChapter(session, chapter))
        return QObject::tr("The view is not the chapter \u201C%1\u201D: select it in Lesson > Chapters to show it, "
                           "then play to the moment")
            .arg(qs(chapter.title));
    const Player &player = session.player();
    const double now = player.time();
    if (now <= exporting::kSameMoment)
        return QObject::tr("The player is at the chapter's start: play or scrub to the moment to stop at");
    // The current pane first, then the others: a moment one of them names
    // follows the schedule when it changes; else the moment on the clock.
    const int current = std::max(0, session.currentPane());
    std::vector<int> panes{current};
    for (int i = 0; i < session.paneCount(); ++i)
        if (i != current)
            panes.push_back(i);
    lesson::Stop stop;
    stop.pane = current;
    stop.kind = lesson::StopKind::Time;
    stop.time = now;
    for (const int pane : panes) {
        const auto &run = session.run(pane);
        if (!run)
            return QObject::tr("Pane %1 is still planned").arg(pane + 1);
        for (const lesson::StopKind kind : {lesson::StopKind::Peak, lesson::StopKind::FirstRecomputation,
                                            lesson::StopKind::ForwardEnd, lesson::StopKind::FirstEviction})
            if (const auto step = lesson::stopStep(*run->timeline, kind);
                step &&
                std::abs(render::opEndTime(*run->timeline, *step, player.axis()) - now) <= exporting::kSameMoment) {
                stop = {kind, pane, 0};
                *out = stop;
                return {};
            }
    }
    *out = stop;
    return {};
}

} // namespace remat::studio
