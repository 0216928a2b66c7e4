#include "app/export/lesson_export.h"

#include "app/export/gif_encoder.h"
#include "app/lesson/lesson_stops.h"
#include "app/render/frontier_painter.h"
#include "core/errors.h"
#include "core/units.h"

#include <QDir>
#include <QImage>
#include <QPainter>

#include <algorithm>
#include <cctype>

namespace remat::exporting {

namespace {

QString qs(const std::string &s) {
    return QString::fromStdString(s);
}

} // namespace

std::vector<double> chapterStopTimes(const lesson::Chapter &chapter, const std::vector<const Timeline *> &panes,
                                     render::TimeAxis axis, QStringList *never) {
    std::vector<double> times;
    for (const lesson::Stop &stop : chapter.stops) {
        const Timeline &timeline = *panes[static_cast<std::size_t>(stop.pane)];
        if (stop.kind == lesson::StopKind::Time) {
            // The author's moment; past the chapter's end (a shorter schedule since) it is the end.
            double end = 0;
            for (const Timeline *pane : panes)
                end = std::max(end, render::opEndTime(*pane, pane->steps() - 1, axis));
            times.push_back(std::min(stop.time, end));
            continue;
        }
        if (const auto step = lesson::stopStep(timeline, stop.kind))
            times.push_back(render::opEndTime(timeline, *step, axis));
        else if (never)
            *never << QStringLiteral("%1 of pane %2")
                          .arg(QLatin1String(lesson::stopKindName(stop.kind)))
                          .arg(stop.pane + 1);
    }
    std::sort(times.begin(), times.end());
    times.erase(std::unique(times.begin(), times.end(), [](double a, double b) { return b - a <= kSameMoment; }),
                times.end());
    std::erase_if(times, [](double t) { return t <= kSameMoment; });
    return times;
}

QString chapterDescription(const lesson::Chapter &chapter) {
    QString text = qs(chapter.caption);
    if (chapter.exercise)
        text += QStringLiteral(" Exercise, budget %1: %2").arg(qs(chapter.exercise->budgetWritten), qs(chapter.exercise->prompt));
    return text;
}

QString chapterGifName(int index, const std::string &title) {
    QString slug;
    bool dash = false;
    for (const char c : title) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x80 && std::isalnum(u)) {
            if (dash && !slug.isEmpty())
                slug += QLatin1Char('-');
            slug += QLatin1Char(static_cast<char>(std::tolower(u)));
            dash = false;
        } else {
            dash = true;
        }
    }
    return QStringLiteral("%1-%2.gif").arg(index + 1, 2, 10, QLatin1Char('0')).arg(slug.left(60));
}

struct LessonGifExport::Plan {
    std::unique_ptr<TimelineGifExport> timeline; // a timeline chapter
    std::optional<Frontier> frontier;            // a curve chapter
    std::shared_ptr<const Model> model;
    TitleCard card;
};

LessonGifExport::~LessonGifExport() = default;

LessonGifExport::LessonGifExport(const lesson::Lesson &lesson, const QString &directory, GifExportOptions options)
    : directory_(directory), options_(std::move(options)) {
    for (std::size_t c = 0; c < lesson.chapters.size(); ++c) {
        const lesson::Chapter &chapter = lesson.chapters[c];
        auto plan = std::make_unique<Plan>();
        Chapter out;
        out.path = QDir(directory).filePath(chapterGifName(static_cast<int>(c), chapter.title));
        plan->model = chapter.model;
        if (chapter.view == lesson::ChapterView::TradeOffCurve) {
            out.curve = true;
            plan->frontier = computeFrontier(*chapter.model, {});
            const bool nodes = chapter.model->sizesInNodes();
            plan->card.title = qs(chapter.title);
            plan->card.description = qs(chapter.caption);
            plan->card.legend = false;
            for (std::size_t i = 0; i < plan->frontier->named.size(); ++i) {
                const NamedPoint &p = plan->frontier->named[i];
                plan->card.rows.push_back({render::namedPointColour(i, options_.picture.palette),
                                           QStringLiteral("%1 \u2014 peak %2, compute %3")
                                               .arg(qs(p.label), qs(formatSize(p.peakBytes, nodes)),
                                                    qs(formatCost(p.cost, chapter.model->costUnit())))});
            }
            out.frames = (options_.titleFrameMs > 0 ? 1 : 0) + 1;
        } else {
            std::vector<ExportPane> panes;
            for (std::size_t i = 0; i < chapter.panes.size(); ++i) {
                panes.push_back(simulateExportPane(chapter.model, chapter.panes[i].strategy, chapter.panes[i].params));
                panes.back().pane = static_cast<int>(i);
            }
            GifExportOptions own = options_;
            own.picture.axis = chapter.syncByCost ? render::TimeAxis::Cost : render::TimeAxis::Ops;
            own.picture.caption = qs(chapter.title);
            own.picture.description = chapterDescription(chapter);
            own.picture.stackByKind = chapter.stackByKind;
            std::vector<const Timeline *> timelines;
            for (const ExportPane &pane : panes)
                timelines.push_back(pane.timeline.get());
            own.holdAt = chapterStopTimes(chapter, timelines, own.picture.axis, &out.skippedStops);
            plan->timeline = std::make_unique<TimelineGifExport>(std::move(panes), own);
            out.frames = static_cast<int>(plan->timeline->frames().size());
        }
        chapters_.push_back(std::move(out));
        plans_.push_back(std::move(plan));
    }
}

GifExportResult LessonGifExport::writeCurve(const Plan &plan, const Chapter &chapter) const {
    const QSize size = options_.picture.size;
    const render::Palette &palette = options_.picture.palette;
    GifEncoder encoder(chapter.path, size.width(), size.height(), GifPalette::fromPalette(palette), options_.loops);
    QImage image;
    if (options_.titleFrameMs > 0) {
        plan.card.paint(image, size, palette);
        encoder.addFrame(image, options_.titleFrameMs);
    }
    image = QImage(size, QImage::Format_RGB32);
    {
        QPainter painter(&image);
        painter.setFont(exportFont(size.width()));
        render::paintFrontier(painter, QRectF(QPointF(0, 0), QSizeF(size)), &*plan.frontier, plan.model->sizesInNodes(),
                              plan.model->costUnit(), palette);
    }
    encoder.addFrame(image, std::max({options_.finalHoldMs, options_.holdMs, GifEncoder::kMinDelayMs}));
    encoder.finish();
    GifExportResult result;
    result.framesPainted = encoder.framesAdded();
    result.framesWritten = encoder.framesWritten();
    result.bytes = encoder.bytesWritten();
    return result;
}

int LessonGifExport::totalFrames() const {
    int total = 0;
    for (const Chapter &chapter : chapters_)
        total += chapter.frames;
    return total;
}

std::vector<GifExportResult> LessonGifExport::run(const std::function<void(int, int)> &progress,
                                                  const std::function<bool()> &cancelled) {
    if (!QDir().mkpath(directory_))
        throw Error("cannot make the folder '" + directory_.toStdString() + "' for the chapters' GIFs");
    const int total = totalFrames();
    int before = 0; // frames of the chapters already written
    std::vector<GifExportResult> results;
    for (std::size_t c = 0; c < plans_.size(); ++c) {
        if (cancelled && cancelled())
            throw Cancelled();
        const Plan &plan = *plans_[c];
        if (plan.timeline)
            results.push_back(plan.timeline->run(
                chapters_[c].path,
                [&](int done, int) {
                    if (progress)
                        progress(before + done, total);
                },
                cancelled));
        else
            results.push_back(writeCurve(plan, chapters_[c]));
        before += chapters_[c].frames;
        if (progress)
            progress(before, total);
    }
    return results;
}

} // namespace remat::exporting
