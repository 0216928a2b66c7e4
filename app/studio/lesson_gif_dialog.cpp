#include "app/studio/lesson_gif_dialog.h"

#include "app/export/lesson_export.h"
#include "app/export/timeline_picture.h"
#include "app/render/palette.h"
#include "app/studio/background_export.h"
#include "app/studio/session.h"
#include "core/errors.h"
#include "core/units.h"

#include <QCheckBox>
#include <QDir>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace remat::studio {

LessonGifDialog::LessonGifDialog(Session &session, lesson::Lesson lesson, QWidget *parent)
    : BackgroundExportDialog(session, parent), lesson_(std::make_shared<const lesson::Lesson>(std::move(lesson))) {
    setWindowTitle(tr("Export lesson as GIFs"));
    auto *form = new QFormLayout;
    directory_ = new QLineEdit(QDir::home().filePath(QStringLiteral("lesson-gifs")), this);
    directory_->setObjectName(QStringLiteral("directory"));
    auto *browse = new QPushButton(tr("Browse\u2026"), this);
    connect(browse, &QPushButton::clicked, this, &LessonGifDialog::browse);
    auto *row = new QHBoxLayout;
    row->addWidget(directory_);
    row->addWidget(browse);
    form->addRow(tr("Folder:"), row);
    width_ = new QSpinBox(this);
    width_->setRange(320, 4096);
    width_->setValue(960);
    width_->setSuffix(tr(" px"));
    form->addRow(tr("Width:"), width_);
    maxFrames_ = new QSpinBox(this);
    maxFrames_->setRange(2, 100000);
    maxFrames_->setValue(300);
    form->addRow(tr("At most, frames a chapter:"), maxFrames_);
    dark_ = new QCheckBox(tr("Dark theme"), this);
    form->addRow(QString(), dark_);

    auto *about = new QLabel(tr("%1 chapters of \u201C%2\u201D, one GIF each (title card, then the chapter, pausing "
                                "at its stops), named 01-\u2026gif, 02-\u2026gif.")
                                 .arg(lesson_->chapters.size())
                                 .arg(QString::fromStdString(lesson_->title)),
                             this);
    about->setWordWrap(true);
    auto *options = new QVBoxLayout;
    options->addWidget(about);
    options->addLayout(form);
    setOptionsLayout(options);
}

void LessonGifDialog::setDirectory(const QString &directory) {
    directory_->setText(directory);
}

QString LessonGifDialog::directory() const {
    return directory_->text().trimmed();
}

void LessonGifDialog::setMaxFramesPerChapter(int frames) {
    maxFrames_->setValue(frames);
}

void LessonGifDialog::browse() {
    const QString chosen = QFileDialog::getExistingDirectory(this, tr("Folder for the chapters' GIFs"), directory());
    if (!chosen.isEmpty())
        directory_->setText(chosen);
}

bool LessonGifDialog::start() {
    if (isRunning())
        return false;
    const QString target = directory();
    if (target.isEmpty()) {
        setMessage(tr("Choose a folder to write the GIFs into."));
        return false;
    }
    if (QFileInfo(target).exists() && !QFileInfo(target).isDir()) {
        setMessage(tr("%1 is a file; choose a folder.").arg(QDir::toNativeSeparators(target)));
        return false;
    }
    exporting::GifExportOptions options;
    options.picture.size = exporting::TimelinePicture::defaultSize(width_->value(), false);
    options.picture.palette = render::Palette::forDarkMode(dark_->isChecked());
    options.sampling.mode = exporting::FrameSampling::Mode::MaxFrames;
    options.sampling.maxFrames = maxFrames_->value();
    auto lesson = lesson_;
    run(0, tr("Planning %1 chapters\u2026").arg(lesson_->chapters.size()), // no count until planned
        [lesson, target, options](ExportProgress &progress) {
            int written = 0;
            return exportOutcome(
                [&] {
                    exporting::LessonGifExport job(*lesson, target, options);
                    progress.total.store(job.totalFrames());
                    const auto results = job.run(
                        [&progress, &written, &job](int d, int) {
                            progress.done.store(d);
                            // Chapters are written in order: those whose frames are all counted are done.
                            int frames = 0;
                            written = 0;
                            for (const auto &chapter : job.chapters())
                                if ((frames += chapter.frames) <= d)
                                    ++written;
                        },
                        [&progress] { return progress.cancel.load(); });
                    std::int64_t bytes = 0;
                    for (const auto &r : results)
                        bytes += r.bytes;
                    return QObject::tr("Wrote %1 GIFs (%2) into %3")
                        .arg(results.size())
                        .arg(QString::fromStdString(formatBytes(bytes)))
                        .arg(QDir::toNativeSeparators(target));
                },
                [&] {
                    return QObject::tr("Cancelled after %1 of %2 chapters; those are complete, the one under way "
                                       "was not written.")
                        .arg(written)
                        .arg(lesson->chapters.size());
                });
        });
    return true;
}

} // namespace remat::studio
