#include "app/studio/summary_table.h"

#include "core/units.h"

#include <QHeaderView>

namespace remat::studio {

namespace {
QString fromView(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<int>(s.size())); }
} // namespace

SummaryTable::SummaryTable(QWidget *parent) : QTableWidget(parent) {
    setColumnCount(ColumnCount);
    setHorizontalHeaderLabels({tr("Strategy"), tr("Parameters"), tr("Peak nodes"), tr("Peak memory"),
                               tr("Forward evaluations"), tr("Recomputations"), tr("Compute vs store-all"),
                               tr("Memory"), tr("Compute")});
    horizontalHeaderItem(Overhead)->setToolTip(tr("Extra compute paid for the memory saved: cost / cost(store-all) - 1"));
    horizontalHeaderItem(MemoryClass)->setToolTip(tr("How peak memory grows with n"));
    horizontalHeaderItem(ComputeClass)->setToolTip(tr("How forward evaluations grow with n"));
    verticalHeader()->setVisible(false);
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setSelectionMode(QAbstractItemView::NoSelection);
    setFocusPolicy(Qt::NoFocus);
    horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    horizontalHeader()->setStretchLastSection(true);
}

QSize SummaryTable::sizeHint() const {
    const int rows = std::max(rowCount(), 4);
    return {800, horizontalHeader()->height() + rows * verticalHeader()->defaultSectionSize() + 2 * frameWidth() + 2};
}

void SummaryTable::setRuns(const std::vector<std::shared_ptr<const PaneRun>> &runs, const std::vector<QColor> &colors) {
    setRowCount(static_cast<int>(runs.size()));
    for (int row = 0; row < static_cast<int>(runs.size()); ++row) {
        const PaneRun *run = runs[static_cast<std::size_t>(row)].get();
        auto set = [&](int column, const QString &text, bool number = true) {
            auto *item = new QTableWidgetItem(text);
            item->setTextAlignment(Qt::AlignVCenter | (number ? Qt::AlignRight : Qt::AlignLeft));
            setItem(row, column, item);
        };
        if (!run) {
            set(Strategy, tr("(not simulated)"), false);
            for (int c = Parameters; c < ColumnCount; ++c)
                set(c, QStringLiteral("\u2013"));
            continue;
        }
        const Summary &s = run->summary;
        set(Strategy, fromView(run->strategy->name()), false);
        item(row, Strategy)->setData(Qt::DecorationRole, colors[static_cast<std::size_t>(row) % colors.size()]);
        set(Parameters, QString::fromStdString(run->timeline->schedule().description), false);
        set(PeakNodes, QString::number(s.peakNodes));
        set(PeakBytes, QString::fromStdString(formatBytes(s.peakBytes)));
        set(ForwardEvaluations, QString::number(s.forwardEvaluations));
        set(Recomputations, QString::number(s.recomputations));
        set(Overhead, run->costOverhead == 0 ? QStringLiteral("\u00B10%")
                                              : QStringLiteral("+%1%").arg(run->costOverhead * 100, 0, 'f', 1));
        set(MemoryClass, fromView(run->strategy->memoryClass()), false);
        set(ComputeClass, fromView(run->strategy->computeClass()), false);
    }
}

} // namespace remat::studio
