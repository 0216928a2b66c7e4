#pragma once
// Lesson > Export lesson as GIFs…: one GIF per chapter of the open lesson
// (docs/lessons.md, the same files as `remat-studio --lesson FILE
// --export-gif DIR`), planned and written off the GUI thread with a progress
// bar and Cancel. A cancelled export keeps the chapters it finished and
// leaves the one under way as it was.
#include "app/lesson/lesson.h"

#include "app/studio/background_export_dialog.h"
#include <QString>

#include <memory>

class QCheckBox;
class QLineEdit;
class QSpinBox;

namespace remat::studio {

class Session;

class LessonGifDialog : public BackgroundExportDialog {
    Q_OBJECT
public:
    LessonGifDialog(Session &session, lesson::Lesson lesson, QWidget *parent);

    void setDirectory(const QString &directory);
    QString directory() const;
    void setMaxFramesPerChapter(int frames);

    // Starts the export; false (and a message) when it cannot start.
    bool start() override;

private:
    void browse();

    std::shared_ptr<const lesson::Lesson> lesson_;
    QLineEdit *directory_ = nullptr;
    QSpinBox *width_ = nullptr;
    QSpinBox *maxFrames_ = nullptr;
    QCheckBox *dark_ = nullptr;
};

} // namespace remat::studio
