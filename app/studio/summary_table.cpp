#include "app/studio/summary_table.h"

#include "core/rates.h"
#include "core/units.h"

#include <QHeaderView>

#include <algorithm>

namespace remat::studio {

namespace {
QString fromView(std::string_view s) {
    return QString::fromUtf8(s.data(), static_cast<int>(s.size()));
}
QString bytesText(std::int64_t bytes) {
    return QString::fromStdString(formatBytes(bytes));
}
const QColor kErrorText(0xb0, 0x1c, 0x1c);
const QColor kErrorBackground(0xff, 0xd8, 0xd8);
} // namespace

QStringList measureProblems(const MeasuredPane &p) {
    QStringList out;
    if (!p.ok())
        return {QString::fromStdString(p.error)};
    if (p.measuredPeakBytes != p.predicted.peakBytes)
        out << QObject::tr("measured peak %1 (%2 bytes) differs from the predicted %3 (%4 bytes)")
                   .arg(bytesText(p.measuredPeakBytes))
                   .arg(p.measuredPeakBytes)
                   .arg(bytesText(p.predicted.peakBytes))
                   .arg(p.predicted.peakBytes);
    if (p.measuredHostPeakBytes != p.predicted.peakHostBytes)
        out << QObject::tr("measured host peak %1 bytes differs from the predicted %2 bytes")
                   .arg(p.measuredHostPeakBytes)
                   .arg(p.predicted.peakHostBytes);
    if (p.firstTraceMismatch >= 0)
        out << QObject::tr("measured bytes differ from the timeline from op %1 on").arg(p.firstTraceMismatch + 1);
    if (!p.gradientsBitwiseEqual)
        out << QObject::tr("gradients differ from store-all's (max |diff| %1)").arg(p.maxGradientDiff, 0, 'g', 3);
    return out;
}

SummaryTable::SummaryTable(QWidget *parent) : QTableWidget(parent) {
    setColumnCount(ColumnCount);
    setHorizontalHeaderLabels({tr("Strategy"), tr("Parameters"), tr("Peak nodes"), tr("Peak memory"),
                               tr("Forward evaluations"), tr("Recomputations"), tr("Compute vs store-all"),
                               tr("Memory"), tr("Compute"), tr("Host peak"), tr("Stalls"), tr("Step time"),
                               tr("Predicted on network"), tr("Measured"), tr("Device growth"), tr("s / step"),
                               tr("Gradients")});
    horizontalHeaderItem(NetworkPredicted)
        ->setToolTip(
            tr("The simulator's peak for the real network Measure ran (n tanh layers, width \u00D7 batch fp32)"));
    horizontalHeaderItem(MeasuredPeak)
        ->setToolTip(tr("Peak activation bytes the execution core's allocator counted; must equal the prediction"));
    horizontalHeaderItem(DevicePeak)
        ->setToolTip(tr("Growth seen outside the backend during a probe step: the process's resident memory "
                        "(CPU, what top shows) or the device's used memory (CUDA, what nvidia-smi shows)"));
    horizontalHeaderItem(SecondsPerStep)->setToolTip(tr("Median wall time of one training step"));
    horizontalHeaderItem(GradientCheck)
        ->setToolTip(tr("Gradients compared with store-all's on the same backend: \u2713 bitwise equal"));
    for (int c = kFirstMeasured; c < ColumnCount; ++c)
        setColumnHidden(c, true); // until Measure ran
    horizontalHeaderItem(Overhead)->setToolTip(
        tr("Extra compute paid for the memory saved: cost / cost(store-all) - 1"));
    horizontalHeaderItem(HostPeak)->setToolTip(tr("Most bytes of host copies at once (offloaded activations)"));
    horizontalHeaderItem(StallTime)->setToolTip(tr("Time the compute stream waits for a copy on the link"));
    horizontalHeaderItem(Makespan)->setToolTip(
        tr("The step on two streams: compute + stalls (the simulator's makespan)"));
    for (int c : {HostPeak, StallTime, Makespan})
        setColumnHidden(c, true); // until a link is set
    horizontalHeaderItem(MemoryClass)->setToolTip(tr("How peak memory grows with n"));
    horizontalHeaderItem(ComputeClass)->setToolTip(tr("How forward evaluations grow with n"));
    verticalHeader()->setVisible(false);
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setSelectionMode(QAbstractItemView::NoSelection);
    setFocusPolicy(Qt::NoFocus);
    horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    horizontalHeader()->setSectionResizeMode(Parameters, QHeaderView::Interactive);
    horizontalHeader()->setStretchLastSection(true);
    setTextElideMode(Qt::ElideRight);
}

QSize SummaryTable::sizeHint() const {
    const int rows = std::max(rowCount(), 4);
    return {800, horizontalHeader()->height() + rows * verticalHeader()->defaultSectionSize() + 2 * frameWidth() + 2};
}

void SummaryTable::setRuns(const std::vector<std::shared_ptr<const PaneRun>> &runs, const std::vector<QColor> &colors) {
    runs_ = runs;
    setRowCount(static_cast<int>(runs.size()));
    bool timed = false;
    for (const auto &run : runs)
        timed = timed || (run && run->summary.timed);
    for (int c : {HostPeak, StallTime, Makespan})
        setColumnHidden(c, !timed);
    for (int row = 0; row < static_cast<int>(runs.size()); ++row) {
        const PaneRun *run = runs[static_cast<std::size_t>(row)].get();
        auto set = [&](int column, const QString &text, bool number = true) {
            auto *item = new QTableWidgetItem(text);
            item->setTextAlignment(Qt::AlignVCenter | (number ? Qt::AlignRight : Qt::AlignLeft));
            setItem(row, column, item);
        };
        showMeasured(row);
        if (!run) {
            set(Strategy, tr("(not simulated)"), false);
            for (int c = Parameters; c < kFirstMeasured; ++c)
                set(c, QStringLiteral("\u2013"));
            continue;
        }
        const Summary &s = run->summary;
        set(Strategy, fromView(run->strategy->name()), false);
        item(row, Strategy)->setData(Qt::DecorationRole, colors[static_cast<std::size_t>(row) % colors.size()]);
        set(Parameters, QString::fromStdString(run->timeline->schedule().description), false);
        item(row, Parameters)->setToolTip(item(row, Parameters)->text());
        set(PeakNodes, QString::number(s.peakNodes));
        set(PeakBytes, QString::fromStdString(formatSize(s.peakBytes, run->model->sizesInNodes())));
        set(ForwardEvaluations, QString::number(s.forwardEvaluations));
        set(Recomputations, QString::number(s.recomputations));
        set(Overhead, run->costOverhead == 0 ? QStringLiteral("\u00B10%")
                                             : QStringLiteral("+%1%").arg(run->costOverhead * 100, 0, 'f', 1));
        set(MemoryClass, fromView(run->strategy->memoryClass()), false);
        set(ComputeClass, fromView(run->strategy->computeClass()), false);
        if (s.timed) {
            set(HostPeak, QString::fromStdString(formatSize(s.peakHostBytes, run->model->sizesInNodes())));
            set(StallTime, QString::fromStdString(formatSeconds(s.stallSeconds)));
            set(Makespan, QString::fromStdString(formatSeconds(s.makespanSeconds)));
        }
    }
    // A long checkpoint list must not push the other columns off-screen.
    resizeColumnToContents(Parameters);
    setColumnWidth(Parameters, std::min(columnWidth(Parameters), fontMetrics().averageCharWidth() * kParametersChars));
}

QStringList SummaryTable::setMeasurements(const MeasureReport &report,
                                          const std::vector<std::shared_ptr<const PaneRun>> &runs) {
    const QString where = tr("%1 on %2 (%3)")
                              .arg(QString::fromStdString(report.network), QString::fromStdString(report.device),
                                   QString::fromStdString(report.backend));
    measured_.clear();
    QStringList problems;
    for (std::size_t i = 0; i < report.panes.size() && i < runs.size(); ++i) {
        measured_.push_back({runs[i], report.panes[i], where});
        for (const QString &p : measureProblems(report.panes[i]))
            problems << tr("pane %1 (%2): %3").arg(i + 1).arg(QString::fromStdString(report.panes[i].strategy), p);
    }
    for (int c = kFirstMeasured; c < ColumnCount; ++c)
        setColumnHidden(c, false);
    for (int row = 0; row < rowCount(); ++row)
        showMeasured(row);
    return problems;
}

int SummaryTable::errorRows() const {
    int n = 0;
    for (int row = 0; row < rowCount(); ++row) {
        for (int c = kFirstMeasured; c < ColumnCount; ++c)
            if (const QTableWidgetItem *it = item(row, c); it && it->background().color() == kErrorBackground) {
                ++n;
                break;
            }
    }
    return n;
}

void SummaryTable::showMeasured(int row) {
    const auto r = static_cast<std::size_t>(row);
    auto set = [&](int column, const QString &text, bool error = false, const QString &tip = {}) {
        auto *it = new QTableWidgetItem(text);
        it->setTextAlignment(Qt::AlignVCenter | Qt::AlignRight);
        if (error) {
            it->setForeground(kErrorText);
            it->setBackground(kErrorBackground);
        }
        it->setToolTip(tip);
        setItem(row, column, it);
    };
    // Measured for another run (the pane changed since), or never: nothing to show.
    if (r >= measured_.size() || r >= runs_.size() || !measured_[r].run || measured_[r].run != runs_[r]) {
        for (int c = kFirstMeasured; c < ColumnCount; ++c)
            set(c, QStringLiteral("\u2013"), false,
                hasMeasurements() ? tr("Changed since it was measured") : QString());
        return;
    }
    const MeasuredPane &p = measured_[r].pane;
    const QString tip = tr("Measured on %1").arg(measured_[r].where);
    if (!p.ok()) {
        set(NetworkPredicted, tr("error"), true, QString::fromStdString(p.error));
        for (int c = MeasuredPeak; c < ColumnCount; ++c)
            set(c, QStringLiteral("\u2014"), true, QString::fromStdString(p.error));
        return;
    }
    const QStringList problems = measureProblems(p);
    set(NetworkPredicted, bytesText(p.predicted.peakBytes), false, tip);
    const bool peakWrong = p.measuredPeakBytes != p.predicted.peakBytes || p.firstTraceMismatch >= 0;
    set(MeasuredPeak, bytesText(p.measuredPeakBytes), peakWrong, peakWrong ? problems.join('\n') : tip);
    set(DevicePeak, p.devicePeakBytes ? bytesText(*p.devicePeakBytes) : tr("n/a"), false, tip);
    set(SecondsPerStep, QString::number(p.secondsPerStep, 'g', 4), false, tip);
    set(GradientCheck,
        p.gradientsBitwiseEqual ? QStringLiteral("\u2713")
                                : QStringLiteral("\u2717 %1").arg(p.maxGradientDiff, 0, 'g', 3),
        !p.gradientsBitwiseEqual, tip);
    item(row, GradientCheck)->setTextAlignment(Qt::AlignCenter);
}

} // namespace remat::studio
