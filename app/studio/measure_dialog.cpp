#include "app/studio/measure_dialog.h"

#include "app/studio/main_window.h"
#include "core/errors.h"
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
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

namespace remat::studio {

namespace {

QTableWidgetItem *cell(const QString &text, Qt::Alignment align = Qt::AlignRight | Qt::AlignVCenter) {
    auto *item = new QTableWidgetItem(text);
    item->setTextAlignment(align);
    return item;
}

QString bytesText(std::int64_t bytes) { return QString::fromStdString(formatBytes(bytes)); }

} // namespace

MeasureDialog::MeasureDialog(std::vector<PaneConfig> configs, int layers, QWidget *parent)
    : QDialog(parent), configs_(std::move(configs)), layers_(layers),
      stop_(std::make_shared<std::atomic<bool>>(false)), done_(std::make_shared<std::atomic<int>>(0)) {
    setWindowTitle(tr("Measure on the execution core"));
    auto *form = new QFormLayout;
    form->addRow(tr("Network:"), new QLabel(tr("n = %1 tanh layers, fp32 activations of width \u00D7 batch").arg(layers), this));
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
    form->addRow(tr("Width:"), width_);
    form->addRow(tr("Batch:"), batch_);
    form->addRow(tr("Timed steps:"), repeats_);
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

    table_ = new QTableWidget(0, ColumnCount, this);
    table_->setObjectName(QStringLiteral("results"));
    table_->setHorizontalHeaderLabels({tr("Strategy"), tr("Predicted peak"), tr("Measured peak"),
                                       tr("Device growth"), tr("Seconds / step"), tr("Gradients")});
    table_->horizontalHeaderItem(DevicePeak)
        ->setToolTip(tr("Growth seen outside the backend during a probe step: the process's resident memory "
                        "(CPU, what top shows) or the device's used memory (CUDA, what nvidia-smi shows)"));
    table_->horizontalHeaderItem(GradientCheck)
        ->setToolTip(tr("Gradients compared with store-all's on the same backend: \u2713 bitwise equal"));
    table_->verticalHeader()->hide();
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    status_ = new QLabel(this);
    status_->setObjectName(QStringLiteral("status"));
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    progress_ = new QProgressBar(this);
    progress_->setVisible(false);
    auto *buttons = new QDialogButtonBox(this);
    measure_ = buttons->addButton(tr("Measure"), QDialogButtonBox::ActionRole);
    QPushButton *close = buttons->addButton(QDialogButtonBox::Cancel);
    connect(measure_, &QPushButton::clicked, this, &MeasureDialog::start);
    connect(close, &QPushButton::clicked, this, &MeasureDialog::reject);
    connect(&watcher_, &QFutureWatcher<Outcome>::finished, this, &MeasureDialog::onFinished);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(table_, 1);
    layout->addWidget(status_);
    layout->addWidget(progress_);
    layout->addWidget(buttons);
    resize(820, 420);
    if (configs_.empty()) {
        status_->setText(tr("There is no pane to measure."));
        measure_->setEnabled(false);
    }
}

MeasureDialog::~MeasureDialog() {
    stop_->store(true);
    watcher_.waitForFinished();
}

QString MeasureDialog::statusText() const { return status_->text(); }

bool MeasureDialog::start() {
    if (isRunning() || configs_.empty())
        return false;
    MeasureSettings settings;
    settings.backend = backend_->currentData().toString().toStdString();
    settings.width = width_->value();
    settings.batch = batch_->value();
    settings.repeats = repeats_->value();
    stop_->store(false);
    done_->store(0);
    progress_->setRange(0, static_cast<int>(configs_.size()));
    progress_->setValue(0);
    progress_->setVisible(true);
    measure_->setEnabled(false);
    status_->setText(tr("Measuring %1 strategies on %2\u2026").arg(configs_.size()).arg(backend_->currentText()));
    auto stop = stop_;
    auto done = done_;
    watcher_.setFuture(QtConcurrent::run([configs = configs_, layers = layers_, settings, stop, done]() -> Outcome {
        try {
            return {measurePanes(
                        configs, layers, settings, [done](int d, int) { done->store(d); },
                        [stop] { return stop->load(); }),
                    false, {}};
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
    emit measured(true);
}

void MeasureDialog::showReport(const MeasureReport &report) {
    table_->setRowCount(static_cast<int>(report.panes.size()));
    QStringList problems;
    const QColor bad(0xc0, 0x2a, 0x2a);
    for (std::size_t i = 0; i < report.panes.size(); ++i) {
        const MeasuredPane &p = report.panes[i];
        const int row = static_cast<int>(i);
        QString name = QString::fromStdString(p.strategy);
        if (!p.description.empty())
            name += QStringLiteral(" (%1)").arg(QString::fromStdString(p.description));
        table_->setItem(row, Strategy, cell(name, Qt::AlignLeft | Qt::AlignVCenter));
        if (!p.ok()) {
            table_->setItem(row, Predicted, cell(tr("error")));
            table_->item(row, Predicted)->setForeground(bad);
            table_->item(row, Predicted)->setToolTip(QString::fromStdString(p.error));
            for (int c = Measured; c < ColumnCount; ++c)
                table_->setItem(row, c, cell(QStringLiteral("\u2014")));
            problems << tr("%1: %2").arg(name, QString::fromStdString(p.error));
            continue;
        }
        table_->setItem(row, Predicted, cell(bytesText(p.predicted.peakBytes)));
        table_->setItem(row, Measured, cell(bytesText(p.measuredPeakBytes)));
        table_->setItem(row, DevicePeak, cell(p.devicePeakBytes ? bytesText(*p.devicePeakBytes) : tr("n/a")));
        table_->setItem(row, SecondsPerStep, cell(QString::number(p.secondsPerStep, 'g', 4)));
        table_->setItem(row, GradientCheck,
                        cell(p.gradientsBitwiseEqual ? QStringLiteral("\u2713")
                                                     : QStringLiteral("\u2717 max |diff| %1").arg(p.maxGradientDiff, 0, 'g', 3),
                             Qt::AlignCenter));
        if (!p.peakMatches()) {
            table_->item(row, Measured)->setForeground(bad);
            table_->item(row, Measured)->setBackground(QColor(0xff, 0xe0, 0xe0));
            problems << tr("%1: measured peak %2 differs from the predicted %3")
                            .arg(name, bytesText(p.measuredPeakBytes), bytesText(p.predicted.peakBytes));
        }
        if (!p.gradientsBitwiseEqual) {
            table_->item(row, GradientCheck)->setForeground(bad);
            problems << tr("%1: gradients differ from store-all's").arg(name);
        }
    }
    const QString where = tr("%1, n = %2, width %3, batch %4")
                              .arg(QString::fromStdString(report.device))
                              .arg(report.shape.layers)
                              .arg(report.shape.width)
                              .arg(report.shape.batch);
    status_->setText(problems.isEmpty()
                         ? tr("Measured on %1: every peak as predicted, every gradient equal to store-all's.").arg(where)
                         : tr("ERROR on %1:\n%2").arg(where, problems.join(QStringLiteral("\n"))));
    QPalette pal = status_->palette();
    pal.setColor(QPalette::WindowText, problems.isEmpty() ? palette().color(QPalette::WindowText) : bad);
    status_->setPalette(pal);
}

void MeasureDialog::reject() {
    if (isRunning()) {
        stop_->store(true); // stops before the next strategy
        status_->setText(tr("Cancelling after the current strategy\u2026"));
        return;
    }
    QDialog::reject();
}

void addMeasureAction(QMenu *menu, MainWindow &window) {
    QAction *action = menu->addAction(QObject::tr("&Measure on the execution core\u2026"), &window, [&window] {
        std::vector<PaneConfig> configs;
        for (int i = 0; i < window.paneCount(); ++i)
            configs.push_back(window.paneConfig(i));
        auto *dialog = new MeasureDialog(std::move(configs), window.layers(), &window);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->show();
    });
    action->setShortcut(QKeySequence(QObject::tr("Ctrl+M")));
}

} // namespace remat::studio
