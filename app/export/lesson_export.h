#pragma once
// `remat-studio --lesson FILE --export-gif DIR`: one GIF per chapter of a
// lesson (docs/lessons.md), ready to paste into slides. Each opens with a
// title card (the chapter's title and caption, its panes' peaks), then plays
// the chapter's panes and pauses at each of its stops; a trade-off curve
// chapter holds its curve. Every chapter is planned before anything is
// written, and each file goes through GifEncoder (a failure leaves the files
// there as they were).
#include "app/export/timeline_gif_export.h"
#include "app/export/title_card.h"
#include "app/lesson/lesson.h"
#include "core/frontier.h"

#include <QString>
#include <QStringList>

#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace remat::exporting {

// Stops closer than this on the time axis are one moment.
inline constexpr double kSameMoment = 1e-9;

// Where a chapter's stops fall on the time axis, increasing, each once (the
// studio adds the chapter's end); `panes` are the chapter's timelines in
// order. Stops that never happen (store-all recomputes nothing) are left out
// and named in `never` ("first-recomputation of pane 1").
std::vector<double> chapterStopTimes(const lesson::Chapter &chapter, const std::vector<const Timeline *> &panes,
                                     render::TimeAxis axis, QStringList *never = nullptr);

// What a chapter's title card and picture say under the title: its caption,
// and for an exercise its question ("Exercise, budget 7 nodes: <prompt>"):
// an exported exercise chapter is the question, its panes as the file sets
// them; the answer is the file's next chapter, exported like any other.
QString chapterDescription(const lesson::Chapter &chapter);

// "03-a-checkpoint-every-n-th-node.gif": the chapter's number from 1 and its
// title as lower-case ASCII words.
QString chapterGifName(int index, const std::string &title);

class LessonGifExport {
public:
    struct Chapter {
        QString path;
        bool curve = false;
        int frames = 0; // planned, the title card included
        QStringList skippedStops;
    };

    // Plans every chapter with `options` (size, palette, fps, sampling...);
    // each chapter sets its own caption, description, clock and stops.
    // Throws what planning throws (InvalidArgument, LimitExceeded).
    LessonGifExport(const lesson::Lesson &lesson, const QString &directory, GifExportOptions options);
    ~LessonGifExport();
    const std::vector<Chapter> &chapters() const { return chapters_; }

    // Frames of every chapter together: what run()'s progress counts to.
    int totalFrames() const;

    // Writes every GIF (making the directory when it is missing), one result
    // per chapter; `progress(done, total)` in frames over all chapters (from
    // the thread that runs it). When `cancelled()` returns true the run stops
    // at the next frame and throws remat::Cancelled: the chapters written
    // before are complete, the one under way is left as it was. Throws
    // remat::Error naming the file that could not be written.
    std::vector<GifExportResult> run(const std::function<void(int, int)> &progress = {},
                                     const std::function<bool()> &cancelled = {});

private:
    struct Plan;
    GifExportResult writeCurve(const Plan &plan, const Chapter &chapter) const;

    QString directory_;
    GifExportOptions options_;
    std::vector<Chapter> chapters_;
    std::vector<std::unique_ptr<Plan>> plans_;
};

} // namespace remat::exporting
