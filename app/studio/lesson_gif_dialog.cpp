#include "app/studio/lesson_gif_dialog.h"

#include "app/export/lesson_export.h"
#include "app/export/timeline_picture.h"
#include "app/render/palette.h"
#include "app/studio/background_export.h"
#include "app/studio/session.h"
#include "core/errors.h"
#include "core/units.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QStatusBar>
#include <QVBoxLayout>

namespace remat::studio {

LessonGifDialog::LessonGifDialog(Session &session, lesson::Lesson lesson, QWidget *parent)
    : QDialog(parent), session_(session), lesson_(std::make_shared<const lesson::Lesson>(std::move(lesson))),
      worker_(new BackgroundExport(this)) {
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
    progress_ = new QProgressBar(this);
    progress_->setObjectName(QStringLiteral("progress"));
    progress_->setVisible(false);
    message_ = new QLabel(this);
    message_->setObjectName(QStringLiteral("message"));
    message_->setWordWrap(true);
    auto *buttons = new QDialogButtonBox(this);
    exportButton_ = buttons->addButton(tr("Export"), QDialogButtonBox::AcceptRole);
    connect(exportButton_, &QPushButton::clicked, this, &LessonGifDialog::start);
    connect(buttons->addButton(QDialogButtonBox::Cancel), &QPushButton::clicked, this, &LessonGifDialog::reject);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(about);
    layout->addLayout(form);
    layout->addWidget(progress_);
    layout->addWidget(message_);
    layout->addWidget(buttons);
    connect(worker_, &BackgroundExport::progressed, this, &LessonGifDialog::showProgress);
    connect(worker_, &BackgroundExport::finished, this, &LessonGifDialog::onFinished);
}

LessonGifDialog::~LessonGifDialog() {
    worker_->stopAndWait();
}

bool LessonGifDialog::isRunning() const {
    return worker_->isRunning();
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

QString LessonGifDialog::message() const {
    return message_->text();
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
        message_->setText(tr("Choose a folder to write the GIFs into."));
        return false;
    }
    if (QFileInfo(target).exists() && !QFileInfo(target).isDir()) {
        message_->setText(tr("%1 is a file; choose a folder.").arg(QDir::toNativeSeparators(target)));
        return false;
    }
    exporting::GifExportOptions options;
    options.picture.size = exporting::TimelinePicture::defaultSize(width_->value(), false);
    options.picture.palette = render::Palette::forDarkMode(dark_->isChecked());
    options.sampling.mode = exporting::FrameSampling::Mode::MaxFrames;
    options.sampling.maxFrames = maxFrames_->value();
    progress_->setRange(0, 0); // planning: no count yet
    progress_->setVisible(true);
    exportButton_->setEnabled(false);
    message_->setText(tr("Planning %1 chapters\u2026").arg(lesson_->chapters.size()));
    auto lesson = lesson_;
    worker_->start(0, [lesson, target, options](ExportProgress &progress) -> ExportOutcome {
        int written = 0;
        std::int64_t bytes = 0;
        try {
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
            for (const auto &r : results)
                bytes += r.bytes;
            return {true, false,
                    QObject::tr("Wrote %1 GIFs (%2) into %3")
                        .arg(results.size())
                        .arg(QString::fromStdString(formatBytes(bytes)))
                        .arg(QDir::toNativeSeparators(target))};
        } catch (const Cancelled &) {
            return {false, true,
                    QObject::tr("Cancelled after %1 of %2 chapters; those are complete, the one under way was not "
                                "written.")
                        .arg(written)
                        .arg(lesson->chapters.size())};
        } catch (const std::exception &e) {
            return {false, false, QString::fromUtf8(e.what())};
        }
    });
    return true;
}

void LessonGifDialog::showProgress(int done, int total) {
    if (total > 0 && progress_->maximum() != total) {
        progress_->setRange(0, total);
        message_->setText(tr("Writing %1 frames\u2026").arg(total));
    }
    if (total > 0)
        progress_->setValue(done);
}

void LessonGifDialog::onFinished(const ExportOutcome &outcome) {
    exportButton_->setEnabled(true);
    message_->setText(outcome.message);
    emit exportFinished(outcome.ok, outcome.message);
    if (outcome.ok) {
        session_.say(outcome.message, 10000);
        accept();
    }
}

void LessonGifDialog::reject() {
    if (isRunning()) {
        worker_->cancel(); // the worker stops at the next frame; onFinished reports it
        message_->setText(tr("Cancelling\u2026"));
        return;
    }
    QDialog::reject();
}

} // namespace remat::studio
