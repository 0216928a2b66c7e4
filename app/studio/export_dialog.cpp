#include "app/studio/export_dialog.h"

#include "app/export/export_files.h"
#include "app/studio/player.h"
#include "app/studio/session.h"
#include "core/errors.h"
#include "core/units.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>

namespace remat::studio {

using exporting::ExportPane;
using exporting::FrameSampling;
using exporting::GifExportOptions;
using exporting::TimelineGifExport;
using exporting::TimelinePicture;

std::vector<ExportPane> exportPanesOf(const Session &session) {
    std::vector<ExportPane> panes;
    for (int i = 0; i < session.paneCount(); ++i) {
        const std::shared_ptr<const PaneRun> &run = session.run(i);
        if (!run || !run->timeline)
            continue;
        panes.push_back(exporting::makeExportPane(run->strategy, run->summary, run->costOverhead, run->timeline));
        panes.back().pane = i; // the colour it has on screen
    }
    return panes;
}

render::Palette renderPaletteOf() {
    return render::Palette::forDarkMode(QApplication::palette().color(QPalette::Window).lightness() < 128);
}

namespace {

QSize viewSizeOf(const QWidget *view) {
    const QSize s = view->size();
    return {std::clamp(s.width(), 160, 4096), std::clamp(s.height(), 90, 4096)};
}

// Runs `write` and reports the outcome in the status bar or a message box.
template <class F>
void saveWith(Session &session, QWidget *parent, const QString &title, const QString &filter, const QString &suffix,
              F &&write) {
    const std::vector<ExportPane> panes = exportPanesOf(session);
    if (panes.empty()) {
        QMessageBox::information(parent, title, QObject::tr("There is no simulated pane to export yet."));
        return;
    }
    QString path = QFileDialog::getSaveFileName(parent, title, QString(), filter);
    if (path.isEmpty())
        return;
    if (QFileInfo(path).suffix().isEmpty())
        path += suffix;
    try {
        write(path, panes);
        session.say(QObject::tr("Wrote %1").arg(QDir::toNativeSeparators(path)), 8000);
    } catch (const std::exception &e) {
        QMessageBox::warning(parent, title, QString::fromUtf8(e.what()));
    }
}

} // namespace

void addExportActions(QMenu *menu, Session &session, QWidget *view) {
    QWidget *window = view->window();
    QAction *gif = menu->addAction(QObject::tr("Export timeline as &GIF\u2026"), window, [&session, view] {
        auto *dialog = new ExportGifDialog(session, view);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->open();
    });
    gif->setShortcut(QKeySequence(QObject::tr("Ctrl+E")));
    QAction *png = menu->addAction(QObject::tr("Export this moment as &PNG\u2026"), window, [&session, view] {
        saveWith(session, view->window(), QObject::tr("Export PNG"), QObject::tr("PNG images (*.png)"),
                 QStringLiteral(".png"), [&session, view](const QString &path, const std::vector<ExportPane> &panes) {
                     TimelinePicture::Options options;
                     options.size = viewSizeOf(view);
                     options.axis = session.player().axis();
                     options.palette = renderPaletteOf();
                     options.caption =
                         exporting::defaultCaption(panes.front().timeline->model(), panes, session.modelName());
                     TimelinePicture picture(panes, options);
                     exporting::writePngFile(path, picture, session.player().time());
                 });
    });
    png->setShortcut(QKeySequence(QObject::tr("Ctrl+Shift+P")));
    QAction *csv = menu->addAction(QObject::tr("Export timelines as &CSV\u2026"), window, [&session, window] {
        saveWith(session, window, QObject::tr("Export timelines"), QObject::tr("CSV files (*.csv)"),
                 QStringLiteral(".csv"), [](const QString &path, const std::vector<ExportPane> &panes) {
                     exporting::writeTimelineCsvFile(path, panes);
                 });
    });
    csv->setShortcut(QKeySequence(QObject::tr("Ctrl+Shift+C")));
    menu->addAction(QObject::tr("Export summary as CS&V\u2026"), window, [&session, window] {
        saveWith(session, window, QObject::tr("Export summary"), QObject::tr("CSV files (*.csv)"),
                 QStringLiteral(".csv"), [](const QString &path, const std::vector<ExportPane> &panes) {
                     exporting::writeSummaryCsvFile(path, panes.front().timeline->model(), panes);
                 });
    });
    QAction *json = menu->addAction(QObject::tr("Export summary as &JSON\u2026"), window, [&session, window] {
        saveWith(session, window, QObject::tr("Export summary"), QObject::tr("JSON files (*.json)"),
                 QStringLiteral(".json"), [](const QString &path, const std::vector<ExportPane> &panes) {
                     exporting::writeSummaryJsonFile(path, panes.front().timeline->model(), panes);
                 });
    });
    json->setShortcut(QKeySequence(QObject::tr("Ctrl+Shift+J")));
}

ExportGifDialog::ExportGifDialog(Session &session, QWidget *view)
    : BackgroundExportDialog(session, view->window()), session_(session), view_(view), panes_(exportPanesOf(session)) {
    setWindowTitle(tr("Export timeline as GIF"));
    auto *form = new QFormLayout;

    path_ = new QLineEdit(QDir::home().filePath(QStringLiteral("timeline.gif")), this);
    auto *browse = new QPushButton(tr("Browse\u2026"), this);
    connect(browse, &QPushButton::clicked, this, &ExportGifDialog::browse);
    auto *pathRow = new QHBoxLayout;
    pathRow->addWidget(path_);
    pathRow->addWidget(browse);
    form->addRow(tr("File:"), pathRow);

    what_ = new QComboBox(this);
    what_->addItem(tr("Side-by-side view with the memory chart"), -1);
    for (std::size_t i = 0; i < panes_.size(); ++i)
        what_->addItem(tr("One pane: %1").arg(panes_[i].title), static_cast<int>(i));
    form->addRow(tr("Show:"), what_);

    viewSize_ = new QCheckBox(
        tr("The view's size (%1 \u00D7 %2)").arg(viewSizeOf(view).width()).arg(viewSizeOf(view).height()), this);
    width_ = new QSpinBox(this);
    width_->setRange(160, 4096);
    width_->setValue(960);
    width_->setSuffix(tr(" px wide"));
    auto *sizeRow = new QHBoxLayout;
    sizeRow->addWidget(width_);
    sizeRow->addWidget(viewSize_);
    form->addRow(tr("Size:"), sizeRow);

    fps_ = new QDoubleSpinBox(this);
    fps_->setRange(0.1, 50);
    fps_->setDecimals(1);
    fps_->setValue(8);
    fps_->setSuffix(tr(" frames/s"));
    fps_->setToolTip(tr("At most 50: browsers show frames shorter than 20 ms for 100 ms."));
    form->addRow(tr("Frame rate:"), fps_);

    sampling_ = new QComboBox(this);
    sampling_->addItem(tr("At most this many frames"), static_cast<int>(FrameSampling::Mode::MaxFrames));
    sampling_->addItem(tr("Every k-th op"), static_cast<int>(FrameSampling::Mode::EveryKth));
    sampling_->addItem(tr("Every op"), static_cast<int>(FrameSampling::Mode::EveryOp));
    samplingValue_ = new QSpinBox(this);
    samplingValue_->setRange(2, 100000);
    samplingValue_->setValue(300);
    auto *samplingRow = new QHBoxLayout;
    samplingRow->addWidget(sampling_);
    samplingRow->addWidget(samplingValue_);
    form->addRow(tr("Frames:"), samplingRow);

    forever_ = new QCheckBox(tr("Loop forever"), this);
    forever_->setChecked(true);
    loops_ = new QSpinBox(this);
    loops_->setRange(1, 65536);
    loops_->setValue(1);
    loops_->setSuffix(tr(" times"));
    auto *loopRow = new QHBoxLayout;
    loopRow->addWidget(forever_);
    loopRow->addWidget(loops_);
    form->addRow(tr("Play:"), loopRow);

    hold_ = new QSpinBox(this);
    hold_->setRange(0, 60000);
    hold_->setSingleStep(500);
    hold_->setValue(2000);
    hold_->setSuffix(tr(" ms"));
    form->addRow(tr("Hold the last frame:"), hold_);
    titleFrame_ = new QSpinBox(this);
    titleFrame_->setRange(0, 60000);
    titleFrame_->setSingleStep(500);
    titleFrame_->setSpecialValueText(tr("none"));
    titleFrame_->setSuffix(tr(" ms"));
    // On by default (slides need the legend and the panes' names); the choice is remembered.
    titleFrame_->setValue(
        QSettings().value(QStringLiteral("export/titleFrameMs"), exporting::kDefaultTitleFrameMs).toInt());
    connect(titleFrame_, &QSpinBox::valueChanged, this,
            [](int ms) { QSettings().setValue(QStringLiteral("export/titleFrameMs"), ms); });
    form->addRow(tr("Title card first:"), titleFrame_);
    caption_ = new QLineEdit(
        panes_.empty() ? QString()
                       : exporting::defaultCaption(panes_.front().timeline->model(), panes_, session.modelName()),
        this);
    caption_->setPlaceholderText(tr("no caption"));
    form->addRow(tr("Caption:"), caption_);

    setOptionsLayout(form);

    // Names for tests and accessibility tools.
    path_->setObjectName(QStringLiteral("path"));
    what_->setObjectName(QStringLiteral("what"));
    width_->setObjectName(QStringLiteral("width"));
    fps_->setObjectName(QStringLiteral("fps"));
    sampling_->setObjectName(QStringLiteral("sampling"));
    samplingValue_->setObjectName(QStringLiteral("samplingValue"));
    forever_->setObjectName(QStringLiteral("forever"));
    loops_->setObjectName(QStringLiteral("loops"));
    titleFrame_->setObjectName(QStringLiteral("titleFrame"));

    connect(viewSize_, &QCheckBox::toggled, this, &ExportGifDialog::updateControls);
    connect(forever_, &QCheckBox::toggled, this, &ExportGifDialog::updateControls);
    connect(sampling_, &QComboBox::currentIndexChanged, this, &ExportGifDialog::updateControls);
    updateControls();
    if (panes_.empty()) {
        setMessage(tr("There is no simulated pane to export yet."));
        exportButton()->setEnabled(false);
    }
}

void ExportGifDialog::updateControls() {
    width_->setEnabled(!viewSize_->isChecked());
    loops_->setEnabled(!forever_->isChecked());
    const auto mode = static_cast<FrameSampling::Mode>(sampling_->currentData().toInt());
    samplingValue_->setVisible(mode != FrameSampling::Mode::EveryOp);
    samplingValue_->setMinimum(mode == FrameSampling::Mode::MaxFrames ? 2 : 1);
}

void ExportGifDialog::browse() {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export GIF"), path_->text(), tr("GIF images (*.gif)"));
    if (!path.isEmpty())
        path_->setText(QFileInfo(path).suffix().isEmpty() ? path + QStringLiteral(".gif") : path);
}

QString ExportGifDialog::path() const {
    return path_->text().trimmed();
}

std::vector<ExportPane> ExportGifDialog::chosenPanes() const {
    const int pane = what_->currentData().toInt();
    if (pane < 0)
        return panes_;
    return {panes_[static_cast<std::size_t>(pane)]};
}

GifExportOptions ExportGifDialog::options() const {
    GifExportOptions o;
    const bool onePane = what_->currentData().toInt() >= 0;
    o.picture.paneOnly = onePane;
    o.picture.size =
        viewSize_->isChecked() ? viewSizeOf(view_) : TimelinePicture::defaultSize(width_->value(), onePane);
    o.picture.axis = session_.player().axis();
    o.picture.palette = renderPaletteOf();
    o.picture.caption = caption_->text();
    o.fps = fps_->value();
    o.loops = forever_->isChecked() ? 0 : loops_->value();
    o.finalHoldMs = hold_->value();
    o.titleFrameMs = titleFrame_->value();
    o.sampling.mode = static_cast<FrameSampling::Mode>(sampling_->currentData().toInt());
    o.sampling.every = samplingValue_->value();
    o.sampling.maxFrames = samplingValue_->value();
    return o;
}

bool ExportGifDialog::start() {
    if (isRunning())
        return false;
    const QString target = path();
    if (target.isEmpty()) {
        setMessage(tr("Choose a file to write."));
        return false;
    }
    std::shared_ptr<TimelineGifExport> job;
    try {
        job = std::make_shared<TimelineGifExport>(chosenPanes(), options());
    } catch (const Error &e) {
        setMessage(QString::fromUtf8(e.what()));
        return false;
    }
    const int total = static_cast<int>(job->frames().size());
    run(total, tr("Exporting %1 frames\u2026").arg(total), [job, target](ExportProgress &progress) {
        return exportOutcome(
            [&] {
                const exporting::GifExportResult r = job->run(
                    target, [&progress](int d, int) { progress.done.store(d); },
                    [&progress] { return progress.cancel.load(); });
                return QObject::tr("Wrote %1: %2 frames, %3")
                    .arg(QDir::toNativeSeparators(target))
                    .arg(r.framesWritten)
                    .arg(QString::fromStdString(formatBytes(r.bytes)));
            },
            [] { return QObject::tr("Cancelled; nothing was written."); });
    });
    return true;
}

} // namespace remat::studio
