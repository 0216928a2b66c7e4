#pragma once
// Between a lesson's chapters and what the session shows: a chapter shown in
// the session (the lesson player and the editor's chapter list), a chapter
// made from the current view (Lesson > Add chapter from the current view),
// and a stop at the player's current moment (Lesson > Add a stop here).
#include "app/lesson/lesson.h"

#include <QString>

namespace remat::studio {

class Session;

// The chapter's model, clock and panes in place of the session's; each pane
// is planned once (the panes are added after the model is in place).
void showChapterInSession(Session &session, const lesson::Chapter &chapter);

// Whether the session shows `chapter`'s scenario: its model's size and its
// panes' strategies, in order.
bool sessionShowsChapter(const Session &session, const lesson::Chapter &chapter);

// The current view as a chapter: the model (a chain's n, or the opened model
// file), the panes with their strategies and parameters, the clock (cost or
// ops) and `stackByKind`; a title and caption to edit. "" and `*out` set, or
// why the view cannot be a chapter (a model with no file, the link on: the
// lesson format has no link yet).
QString chapterFromView(const Session &session, bool stackByKind, lesson::Chapter *out);

// A stop at the player's moment: the kind of stop that falls there (peak,
// first recomputation, end of the forward pass, first eviction) in the
// current pane, else in another pane, else a time on the chapter's clock. "" and `*out` set, or why
// not (the session does not show `chapter`, the player is at the start).
QString stopAtPlayerMoment(const Session &session, const lesson::Chapter &chapter, lesson::Stop *out);

} // namespace remat::studio
