#pragma once
// Lesson > Export lesson as GIFs…: one GIF per chapter of the open lesson
// (docs/lessons.md, the same files as `remat-studio --lesson FILE
// --export-gif DIR`), planned and written off the GUI thread with a progress
// bar and Cancel. A cancelled export keeps the chapters it finished and
// leaves the one under way as it was.
#include "app/lesson/lesson.h"

#include <QDialog>
#include <QString>

#include <memory>

class QCheckBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace remat::studio {

class BackgroundExport;
class Session;
struct ExportOutcome;

class LessonGifDialog : public QDialog {
    Q_OBJECT
public:
    LessonGifDialog(Session &session, lesson::Lesson lesson, QWidget *parent);
    ~LessonGifDialog() override;

    void setDirectory(const QString &directory);
    QString directory() const;
    void setMaxFramesPerChapter(int frames);
    bool isRunning() const;
    QString message() const;

public slots:
    // Starts the export; false (and a message) when it cannot start.
    bool start();
    // While exporting: cancels (the dialog stays until the worker stops).
    void reject() override;

signals:
    void exportFinished(bool ok, const QString &message);

private:
    void browse();
    void showProgress(int done, int total);
    void onFinished(const ExportOutcome &outcome);

    Session &session_;
    std::shared_ptr<const lesson::Lesson> lesson_;
    QLineEdit *directory_ = nullptr;
    QSpinBox *width_ = nullptr;
    QSpinBox *maxFrames_ = nullptr;
    QCheckBox *dark_ = nullptr;
    QProgressBar *progress_ = nullptr;
    QLabel *message_ = nullptr;
    QPushButton *exportButton_ = nullptr;
    BackgroundExport *worker_ = nullptr;
};

} // namespace remat::studio
