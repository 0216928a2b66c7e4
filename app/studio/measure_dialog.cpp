#include "app/studio/measure_dialog.h"

#include "app/studio/measure_overlay.h"
#include "app/studio/memory_chart_view.h"
#include "app/studio/session.h"
#include "app/studio/summary_table.h"
#include "core/errors.h"
#include "core/executor/transformer.h"
#include "core/units.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QStatusBar>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>

namespace remat::studio {

MeasureDialog::MeasureDialog(std::vector<PaneConfig> configs, int layers, QWidget *parent)
    : QDialog(parent), configs_(std::move(configs)), layers_(layers), stop_(std::make_shared<std::atomic<bool>>(false)),
      done_(std::make_shared<std::atomic<int>>(0)) {
    setWindowTitle(tr("Measure on the execution core"));
    auto *form = new QFormLayout;
    network_ = new QLabel(tr("n = %1 tanh layers, fp32 activations of width \u00D7 batch").arg(layers), this);
    network_->setObjectName(QStringLiteral("network"));
    network_->setWordWrap(true);
    form->addRow(tr("Network:"), network_);
    width_ = new QSpinBox(this);
    width_->setObjectName(QStringLiteral("width"));
    width_->setRange(1, exec::NetworkShape::kMaxWidth);
    width_->setValue(256);
    batch_ = new QSpinBox(this);
    batch_->setObjectName(QStringLiteral("batch"));
    batch_->setRange(1, exec::NetworkShape::kMaxBatch);
    batch_->setValue(64);
    repeats_ = new QSpinBox(this);
    repeats_->setObjectName(QStringLiteral("repeats"));
    repeats_->setRange(1, 1000);
    repeats_->setValue(3);
    // Every core by default; the gradients are the same bits for any count.
    threads_ = new QSpinBox(this);
    threads_->setObjectName(QStringLiteral("threads"));
    threads_->setRange(1, exec::kMaxThreads);
    threads_->setValue(std::min(exec::kMaxThreads, exec::availableCores()));
    const int cores = exec::availableCores();
    threads_->setSuffix(cores == 1 ? tr(" of 1 core") : tr(" of %1 cores").arg(cores));
    threads_->setToolTip(tr("CPU threads. Each op is cut into the same tasks whatever the count, so the results are "
                            "the same bits on 1 thread or many."));
    form->addRow(tr("Width:"), width_);
    form->addRow(tr("Batch:"), batch_);
    form->addRow(tr("Timed steps:"), repeats_);
    form->addRow(tr("CPU threads:"), threads_);
    backend_ = new QComboBox(this);
    backend_->setObjectName(QStringLiteral("backend"));
    backend_->addItem(tr("CPU (Eigen)"), QStringLiteral("cpu"));
    backend_->addItem(tr("CUDA"), QStringLiteral("cuda"));
    auto *note = new QLabel(this);
    note->setObjectName(QStringLiteral("backendNote"));
    note->setWordWrap(true);
    if (const std::optional<QString> why = cudaUnavailable()) {
        // Shown, not hidden: the user learns why there is no GPU run.
        qobject_cast<QStandardItemModel *>(backend_->model())->item(1)->setEnabled(false);
        note->setText(*why);
    } else {
        backend_->setCurrentIndex(0); // CPU by default; CUDA one click away
        note->setText(tr("CUDA device available."));
    }
    form->addRow(tr("Backend:"), backend_);
    form->addRow(QString(), note);
    // Threads are the CPU's; CUDA computes on the GPU.
    const auto cpuOnly = [this] { threads_->setEnabled(backend_->currentData().toString() == QLatin1String("cpu")); };
    connect(backend_, &QComboBox::currentIndexChanged, this, cpuOnly);
    cpuOnly();

    status_ = new QLabel(this);
    status_->setObjectName(QStringLiteral("status"));
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    progress_ = new QProgressBar(this);
    progress_->setVisible(false);
    auto *buttons = new QDialogButtonBox(this);
    measure_ = buttons->addButton(tr("Measure"), QDialogButtonBox::ActionRole);
    close_ = buttons->addButton(QDialogButtonBox::Close);
    close_->setObjectName(QStringLiteral("close"));
    connect(measure_, &QPushButton::clicked, this, &MeasureDialog::start);
    connect(close_, &QPushButton::clicked, this, &MeasureDialog::reject);
    connect(&watcher_, &QFutureWatcher<Outcome>::finished, this, &MeasureDialog::onFinished);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    auto *where = new QLabel(tr("Results go to the summary table (measured columns) and the memory chart "
                                "(measured memory, dashed)."),
                             this);
    where->setWordWrap(true);
    layout->addWidget(where);
    layout->addWidget(status_, 1);
    layout->addWidget(progress_);
    layout->addWidget(buttons);
    resize(560, 360);
    if (configs_.empty()) {
        status_->setText(tr("There is no pane to measure."));
        measure_->setEnabled(false);
    }
}

MeasureDialog::~MeasureDialog() {
    stop_->store(true);
    watcher_.waitForFinished();
}

void MeasureDialog::setPaneModel(std::shared_ptr<const Model> model) {
    paneModel_ = std::move(model);
    const std::optional<exec::TransformerShape> transformer =
        paneModel_ ? exec::recognizeTransformer(*paneModel_) : std::nullopt;
    if (transformer)
        network_->setText(tr("the opened model itself: remat's transformer, %1, fp32")
                              .arg(QString::fromStdString(transformer->describe())));
    width_->setEnabled(!transformer);
    batch_->setEnabled(!transformer);
}

QString MeasureDialog::statusText() const {
    return status_->text();
}

bool MeasureDialog::start() {
    if (isRunning() || configs_.empty())
        return false;
    MeasureSettings settings;
    settings.backend = backend_->currentData().toString().toStdString();
    settings.width = width_->value();
    settings.batch = batch_->value();
    settings.repeats = repeats_->value();
    settings.threads = threads_->value();
    if (settingsHook_)
        settingsHook_(settings);
    stop_->store(false);
    done_->store(0);
    progress_->setRange(0, 1000);
    progress_->setValue(0);
    progress_->setVisible(true);
    measure_->setEnabled(false);
    close_->setText(tr("Cancel"));
    status_->setText(tr("Measuring %1 strategies on %2\u2026").arg(configs_.size()).arg(backend_->currentText()));
    auto stop = stop_;
    auto done = done_;
    watcher_.setFuture(QtConcurrent::run(
        [configs = configs_, layers = layers_, settings, stop, done, model = paneModel_]() -> Outcome {
            try {
                return {measurePanes(
                            configs, layers, settings,
                            [done](double fraction) { done->store(static_cast<int>(fraction * 1000)); },
                            [stop] { return stop->load(); }, model.get()),
                        false,
                        {}};
            } catch (const Cancelled &) {
                return {std::nullopt, true, {}};
            } catch (const std::exception &e) {
                return {std::nullopt, false, QString::fromUtf8(e.what())};
            }
        }));
    auto *timer = new QTimer(this);
    connect(timer, &QTimer::timeout, this, [this] { progress_->setValue(done_->load()); });
    connect(&watcher_, &QFutureWatcher<Outcome>::finished, timer, &QObject::deleteLater);
    timer->start(50);
    return true;
}

void MeasureDialog::onFinished() {
    const Outcome outcome = watcher_.result();
    progress_->setVisible(false);
    measure_->setEnabled(true);
    close_->setText(tr("Close"));
    if (outcome.cancelled) {
        status_->setText(tr("Cancelled."));
        emit measured(false);
        return;
    }
    if (!outcome.report) {
        status_->setText(tr("Could not measure: %1").arg(outcome.error));
        emit measured(false);
        return;
    }
    showReport(*outcome.report);
    emit reportReady(std::make_shared<const MeasureReport>(*outcome.report));
    emit measured(true);
}

void MeasureDialog::showReport(const MeasureReport &report) {
    QStringList problems;
    for (std::size_t i = 0; i < report.panes.size(); ++i)
        for (const QString &p : measureProblems(report.panes[i]))
            problems << tr("%1: %2").arg(QString::fromStdString(report.panes[i].strategy), p);
    const QString where =
        tr("%1 on %2").arg(QString::fromStdString(report.network), QString::fromStdString(report.device));
    // Measured time beside the predicted overhead, pane by pane.
    QStringList times;
    for (const MeasuredPane &pane : report.panes)
        if (pane.ok() && pane.timeVsStoreAll > 0)
            times << tr("%1: %2 ms a step, %3\u00D7 store-all's time (predicted compute %4\u00D7)")
                             .arg(QString::fromStdString(pane.strategy))
                             .arg(pane.secondsPerStep * 1e3, 0, 'f', 1)
                             .arg(pane.timeVsStoreAll, 0, 'f', 2)
                             .arg(pane.predictedCostVsStoreAll, 0, 'f', 2) +
                         (pane.predicted.offloads > 0
                              ? tr("; %1 offloaded, host peak %2 (predicted %3)")
                                    .arg(pane.predicted.offloads)
                                    .arg(QString::fromStdString(formatBytes(pane.measuredHostPeakBytes)))
                                    .arg(QString::fromStdString(formatBytes(pane.predicted.peakHostBytes)))
                              : QString());
    QString text = problems.isEmpty()
                       ? tr("Measured %1: every peak as predicted, every gradient equal to store-all's.").arg(where)
                       : tr("ERROR measuring %1:\n%2").arg(where, problems.join(QStringLiteral("\n")));
    if (!report.ranPaneModel)
        text += tr("\nThis is not the opened model: the executor runs remat's tanh MLP and transformer networks "
                   "only, so these results stay here and are not put beside the model's rows.");
    if (!times.isEmpty())
        text += QStringLiteral("\n") + times.join(QStringLiteral("\n"));
    status_->setText(text);
    QPalette pal = status_->palette();
    pal.setColor(QPalette::WindowText,
                 problems.isEmpty() ? palette().color(QPalette::WindowText) : QColor(0xb0, 0x1c, 0x1c));
    status_->setPalette(pal);
}

void MeasureDialog::reject() {
    if (isRunning()) {
        stop_->store(true); // the executor stops before its next op
        status_->setText(tr("Cancelling\u2026"));
        return;
    }
    QDialog::reject();
}

void showMeasurement(Session &session, SummaryTable &table, MemoryChartView &chart, const MeasureReport &report,
                     const std::vector<std::shared_ptr<const PaneRun>> &runs) {
    if (!report.ranPaneModel) {
        // Never a tick beside numbers that did not run on this model.
        session.say(QObject::tr("Measure ran %1 on %2, not the opened model (the executor cannot run its layers): "
                                "results in the Measure dialog only")
                        .arg(QString::fromStdString(report.network), QString::fromStdString(report.device)),
                    0);
        return;
    }
    const QStringList problems = table.setMeasurements(report, runs);
    std::vector<MemoryChartView::MeasuredTrace> traces;
    QStringList noOverlay;
    for (std::size_t i = 0; i < report.panes.size() && i < runs.size(); ++i) {
        if (!runs[i])
            continue;
        PaneOverlay overlay = measuredInPaneBytes(*runs[i]->timeline, report.panes[i], report.shape.nodeBytes());
        if (overlay.bytes.empty() && report.panes[i].ok() && report.panes[i].schedule &&
            report.panes[i].schedule->ops == runs[i]->timeline->schedule().ops &&
            report.shape.nodeBytes() == 0) { // the pane's own model ran: its bytes are the pane's
            overlay.bytes.assign(report.panes[i].trace.after.begin(), report.panes[i].trace.after.end());
            overlay.refused.clear();
        }
        if (overlay.bytes.empty())
            noOverlay << QObject::tr("pane %1: %2").arg(i + 1).arg(overlay.refused);
        else
            traces.emplace_back(runs[i]->timeline,
                                std::make_shared<const std::vector<double>>(std::move(overlay.bytes)));
    }
    chart.setMeasured(std::move(traces));
    if (!problems.isEmpty()) {
        // The first problem in full; all of them are in the red cells' tooltips.
        session.say(problems.size() == 1 ? QObject::tr("Measure: ERROR, %1").arg(problems.first())
                                         : QObject::tr("Measure: ERROR, %1 (and %2 more: see the red cells)")
                                               .arg(problems.first())
                                               .arg(problems.size() - 1),
                    0);
        return;
    }
    QString message = QObject::tr("Measured on %1: every peak as predicted, every gradient equal to store-all's")
                          .arg(QString::fromStdString(report.device));
    if (!noOverlay.isEmpty())
        message += QObject::tr(" (no measured curve for %1)").arg(noOverlay.join(QStringLiteral("; ")));
    session.say(message, 15000);
}

void addMeasureAction(QMenu *menu, Session &session, SummaryTable &table, MemoryChartView &chart) {
    QAction *action = menu->addAction(QObject::tr("&Measure on the execution core\u2026"), &chart, [&] {
        std::vector<PaneConfig> configs;
        std::vector<std::shared_ptr<const PaneRun>> runs;
        for (int i = 0; i < session.paneCount(); ++i) {
            configs.push_back(session.paneConfig(i));
            runs.push_back(session.run(i));
        }
        auto *dialog = new MeasureDialog(std::move(configs), session.layers(), chart.window());
        dialog->setPaneModel(session.model());
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        QObject::connect(dialog, &MeasureDialog::reportReady, &chart,
                         [&session, &table, &chart, runs](const std::shared_ptr<const MeasureReport> &report) {
                             showMeasurement(session, table, chart, *report, runs);
                         });
        dialog->show();
    });
    action->setShortcut(QKeySequence(QObject::tr("Ctrl+M")));
    QAction *overlay = menu->addAction(QObject::tr("Overlay measured &memory on the chart"));
    overlay->setObjectName(QStringLiteral("overlayMeasured"));
    overlay->setCheckable(true);
    overlay->setChecked(chart.showMeasured());
    overlay->setShortcut(QKeySequence(QObject::tr("Ctrl+Shift+M")));
    QObject::connect(overlay, &QAction::toggled, &chart, &MemoryChartView::setShowMeasured);
}

} // namespace remat::studio
