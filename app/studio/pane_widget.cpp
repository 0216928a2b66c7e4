#include "app/studio/pane_widget.h"

#include "app/render/narration.h"
#include "app/render/stream_narration.h"
#include "core/planners/dtr_runtime.h"
#include "core/strategy_registry.h"
#include "core/units.h"

#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMouseEvent>
#include <QPainter>
#include <QRegularExpression>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QToolButton>
#include <QVBoxLayout>

#include <cmath>

namespace remat::studio {

PaneWidget::PaneWidget(QWidget *parent) : QWidget(parent) {
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->setSpacing(3);

    controls_ = new QWidget(this);
    auto *controls = new QHBoxLayout(controls_);
    controls->setContentsMargins(0, 0, 0, 0);
    controls->setSpacing(6);
    swatch_ = new QLabel(this);
    swatch_->setFixedSize(12, 12);
    controls->addWidget(swatch_);
    strategy_ = new QComboBox(this);
    strategy_->setObjectName("strategy");
    // Every registered strategy appears here, planners included, as they are added to the registry.
    for (const Strategy *s : StrategyRegistry::builtin().all()) {
        strategy_->addItem(QString::fromUtf8(s->name().data(), static_cast<int>(s->name().size())));
        strategy_->setItemData(strategy_->count() - 1,
                               QString::fromUtf8(s->summary().data(), static_cast<int>(s->summary().size())),
                               Qt::ToolTipRole);
    }
    controls->addWidget(strategy_);
    everyLabel_ = new QLabel(tr("every k ="), this);
    every_ = new QSpinBox(this);
    every_->setObjectName("every");
    every_->setRange(1, 1);
    every_->setToolTip(tr("Keep a checkpoint at every k-th forward node"));
    checkpointsLabel_ = new QLabel(tr("keep"), this);
    checkpoints_ = new QLineEdit(this);
    checkpoints_->setObjectName("checkpoints");
    checkpoints_->setPlaceholderText(tr("e.g. 4, 8, 12"));
    checkpoints_->setToolTip(tr("Forward nodes kept between the passes (1 to n-1). Or click nodes in the picture."));
    slotsLabel_ = new QLabel(tr("slots"), this);
    slots_ = new QSpinBox(this);
    slots_->setObjectName("slots");
    slots_->setRange(1, 1);
    slots_->setToolTip(tr("Checkpoint slots the planner may fill (a_0 takes one)"));
    budgetLabel_ = new QLabel(tr("memory \u2264"), this);
    budget_ = new QSpinBox(this);
    budget_->setObjectName("budget");
    budget_->setRange(1, 1);
    budget_->setSuffix(tr(" nodes"));
    budget_->setToolTip(tr("Most nodes the schedule may hold at once; the planner finds the least compute within it"));
    controls->addWidget(everyLabel_);
    controls->addWidget(every_);
    controls->addWidget(checkpointsLabel_);
    controls->addWidget(checkpoints_, 1);
    controls->addWidget(slotsLabel_);
    controls->addWidget(slots_);
    // The title and the table name the heuristic (the Schedule's description), the narration of each
    // eviction too (RuntimeEvent::weighsIdle).
    heuristicLabel_ = new QLabel(tr("evict by"), this);
    heuristic_ = new QComboBox(this);
    heuristic_->setObjectName("heuristic");
    heuristic_->setToolTip(
        tr("Which resident tensor the runtime evicts when memory is full: the one with the lowest h"));
    for (const auto &[heuristic, why] :
         {std::pair{planners::DtrHeuristic::Dtr,
                    tr("the DTR paper's: recompute cost, with the evicted neighbourhood it would lengthen, over size "
                       "times ops since last use")},
          std::pair{planners::DtrHeuristic::CostPerByte,
                    tr("cost per byte: its own recompute cost over its size; no staleness, no neighbourhood")}}) {
        const std::string_view formula = planners::dtrHeuristicFormula(heuristic);
        const std::string_view name = planners::dtrHeuristicName(heuristic);
        heuristic_->addItem(QString::fromUtf8(formula.data(), static_cast<int>(formula.size())),
                            QString::fromUtf8(name.data(), static_cast<int>(name.size())));
        heuristic_->setItemData(heuristic_->count() - 1, why, Qt::ToolTipRole);
    }
    controls->addWidget(budgetLabel_);
    controls->addWidget(budget_);
    controls->addWidget(heuristicLabel_);
    controls->addWidget(heuristic_);
    controls->addStretch();
    remove_ = new QToolButton(this);
    remove_->setText(QStringLiteral("\u2715"));
    remove_->setToolTip(tr("Remove this pane"));
    remove_->setAutoRaise(true);
    controls->addWidget(remove_);
    layout->addWidget(controls_);

    title_ = new QLabel(this);
    title_->setObjectName("title");
    title_->setTextFormat(Qt::RichText);
    // Long titles are cut rather than widening their pane: panes share the width equally.
    title_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    layout->addWidget(title_);

    view_ = new ScheduleView(this);
    view_->setObjectName("scheduleView");
    layout->addWidget(view_, 1);

    position_ = new QLabel(this);
    position_->setObjectName("position");
    position_->setTextFormat(Qt::RichText);
    position_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    layout->addWidget(position_);
    narration_ = new QLabel(this);
    narration_->setObjectName("narration");
    narration_->setWordWrap(true);
    narration_->setTextFormat(Qt::PlainText);
    narration_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    narration_->setMinimumHeight(narration_->fontMetrics().lineSpacing() * 3);
    narration_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    layout->addWidget(narration_);

    connect(strategy_, &QComboBox::currentIndexChanged, this, [this] {
        if (updating_)
            return;
        updateParamControls();
        emitConfig();
    });
    connect(heuristic_, &QComboBox::currentIndexChanged, this, [this] {
        if (!updating_)
            emitConfig();
    });
    for (QSpinBox *spin : {every_, slots_, budget_}) {
        spin->setKeyboardTracking(false);
        connect(spin, &QSpinBox::valueChanged, this, [this] {
            if (!updating_)
                emitConfig();
        });
    }
    connect(checkpoints_, &QLineEdit::editingFinished, this, [this] {
        if (!updating_ && checkpoints_->isModified()) {
            checkpoints_->setModified(false);
            emitConfig();
        }
    });
    connect(remove_, &QToolButton::clicked, this, &PaneWidget::removeRequested);
    connect(view_, &ScheduleView::nodeClicked, this, &PaneWidget::nodeClicked);
    // A click or focus anywhere in the pane makes it the current one.
    for (QWidget *child : findChildren<QWidget *>())
        child->installEventFilter(this);
    updateParamControls();
}

void PaneWidget::updateParamControls() {
    const QString name = strategy_->currentText();
    const bool every = name == QLatin1String("periodic");
    const bool list = name == QLatin1String("checkpoints");
    everyLabel_->setVisible(every);
    every_->setVisible(every);
    checkpointsLabel_->setVisible(list);
    checkpoints_->setVisible(list);
    const bool usesSlots = name == QLatin1String("revolve");
    slotsLabel_->setVisible(usesSlots);
    slots_->setVisible(usesSlots);
    const bool budget = name == QLatin1String("budget") || name == QLatin1String("dtr");
    budgetLabel_->setVisible(budget);
    budget_->setVisible(budget && !budgetBytes_);
    budgetLabel_->setText(budgetBytes_ ? tr("memory \u2264 %1").arg(QString::fromStdString(formatBytes(*budgetBytes_)))
                                       : tr("memory \u2264"));
    const bool runtime = name == QLatin1String("dtr");
    heuristicLabel_->setVisible(runtime);
    heuristic_->setVisible(runtime);
}

void PaneWidget::setGraphModel(bool graph) {
    auto *items = qobject_cast<QStandardItemModel *>(strategy_->model());
    for (int i = 0; i < strategy_->count(); ++i) {
        const Strategy *s = StrategyRegistry::builtin().find(strategy_->itemText(i).toStdString());
        const bool usable = !graph || (s && s->worksOnGraphs());
        items->item(i)->setEnabled(usable);
        if (!usable)
            items->item(i)->setToolTip(tr("Plans chains only; this model has skip connections"));
        else if (s)
            items->item(i)->setToolTip(QString::fromUtf8(s->summary().data(), static_cast<int>(s->summary().size())));
    }
}

void PaneWidget::setConfig(const PaneConfig &config, int layers) {
    updating_ = true;
    strategy_->setCurrentText(QString::fromStdString(config.strategy));
    every_->setRange(1, std::max(1, layers));
    const int defaultEvery = std::max(1, static_cast<int>(std::lround(std::sqrt(double(layers)))));
    every_->setValue(config.params.every.value_or(defaultEvery));
    // Slots and budgets: sqrt(n) slots, or about the memory periodic needs, as a start.
    slots_->setRange(1, std::max(1, layers + 1));
    slots_->setValue(config.params.checkpointSlots.value_or(defaultEvery));
    // Any budget shows as given (1 node too: the planner then says why it is too small).
    budget_->setRange(1, static_cast<int>(std::clamp<std::int64_t>(config.params.budgetNodes.value_or(1), layers + 2,
                                                                   1'000'000'000)));
    budget_->setValue(static_cast<int>(config.params.budgetNodes.value_or(2 * defaultEvery + 1)));
    budgetBytes_ = config.params.budgetBytes;
    const std::string_view defaultHeuristic = planners::dtrHeuristicName(planners::DtrHeuristic::Dtr);
    heuristic_->setCurrentIndex(std::max(0, heuristic_->findData(QString::fromStdString(
                                                config.params.heuristic.value_or(std::string(defaultHeuristic))))));
    QStringList list;
    if (config.params.checkpoints)
        for (const int c : *config.params.checkpoints)
            list << QString::number(c);
    checkpoints_->setText(list.join(QStringLiteral(", ")));
    checkpoints_->setModified(false);
    updateParamControls();
    updating_ = false;
}

void PaneWidget::emitConfig() {
    PaneConfig config;
    config.strategy = strategy_->currentText().toStdString();
    if (config.strategy == "periodic")
        config.params.every = every_->value();
    if (config.strategy == "revolve")
        config.params.checkpointSlots = slots_->value();
    // The budget planner and the runtime (dtr) both run within the pane's budget.
    const bool budget = config.strategy == "budget" || config.strategy == "dtr";
    if (budget && budgetBytes_)
        config.params.budgetBytes = budgetBytes_;
    else if (budget)
        config.params.budgetNodes = budget_->value();
    if (config.strategy == "dtr")
        config.params.heuristic = heuristic_->currentData().toString().toStdString();
    if (config.strategy == "checkpoints") {
        std::vector<int> list;
        const QStringList parts =
            checkpoints_->text().split(QRegularExpression(QStringLiteral("[,\\s]+")), Qt::SkipEmptyParts);
        for (const QString &part : parts) {
            bool ok = false;
            const int v = QString(part).remove(QRegularExpression(QStringLiteral("^a_"))).toInt(&ok);
            if (!ok) {
                setError(tr("'%1' is not a forward node number; list numbers like 4, 8, 12").arg(part));
                return;
            }
            list.push_back(v);
        }
        std::sort(list.begin(), list.end());
        config.params.checkpoints = std::move(list);
    }
    emit configEdited(config);
}

void PaneWidget::setRun(std::shared_ptr<const PaneRun> run) {
    run_ = std::move(run);
    view_->setTimeline(run_ ? run_->timeline : nullptr);
    if (!run_)
        return;
    const Schedule &s = run_->timeline->schedule();
    title_->setText(
        tr("<b>%1</b> &mdash; %2")
            .arg(QString::fromStdString(s.strategy), QString::fromStdString(s.description).toHtmlEscaped()));
    // The title may be cut at the pane's width; the tooltip has it whole.
    title_->setToolTip(QStringLiteral("%1: %2\n%3")
                           .arg(QString::fromStdString(s.strategy), QString::fromStdString(s.description),
                                QString::fromUtf8(run_->strategy->summary().data(),
                                                  static_cast<int>(run_->strategy->summary().size()))));
    setStep(-1);
}

void PaneWidget::setError(const QString &message) {
    run_.reset();
    view_->setTimeline(nullptr);
    view_->setPlaceholder(message);
    title_->setText(tr("<b>%1</b> &mdash; not simulated").arg(strategy_->currentText()));
    narration_->setText(message);
    position_->clear();
}

void PaneWidget::setBusy(const QString &message) {
    view_->setPlaceholder(message);
    narration_->setText(message);
}

void PaneWidget::setStep(std::int64_t step, double time) {
    if (!run_)
        return;
    view_->setStep(step, time);
    const Timeline &tl = *run_->timeline;
    const std::int64_t shown = view_->step();
    const std::int64_t bytes = shown >= 0 ? tl.bytesAt(shown) : tl.model().bytes(tl.model().inputNode());
    const int nodes = shown >= 0 ? tl.residentCountAt(shown) : 1;
    const QString held =
        tl.model().sizesInNodes() ? QString() : QStringLiteral(" (%1)").arg(QString::fromStdString(formatBytes(bytes)));
    position_->setText(
        tr("op %1 of %2 &middot; %3 nodes in memory%4%5")
            .arg(shown + 1)
            .arg(tl.steps())
            .arg(nodes)
            .arg(held)
            .arg(shown >= 0 && shown == run_->summary.peakStep ? tr(" &middot; <b>peak</b>") : QString()));
    if (shown >= 0 && tl.hostBytesAt(shown) > 0)
        position_->setText(position_->text() + tr(" &middot; host %1")
                                                   .arg(QString::fromStdString(
                                                       formatSize(tl.hostBytesAt(shown), tl.model().sizesInNodes()))));
    // Timed: the stall or the copy on the link beside the op (render::narrateAt).
    const QString said =
        QString::fromStdString(render::narrateAt(tl, render::checkpointMask(tl), view_->state(), time));
    if (said != narration_->text())
        narration_->setText(said);
}

QString PaneWidget::narration() const {
    return narration_->text();
}

void PaneWidget::setPalette(const render::Palette &palette, QColor seriesColor) {
    view_->setPalette(palette);
    seriesColor_ = seriesColor;
    update();
    QPixmap pixmap(12, 12);
    pixmap.fill(seriesColor);
    swatch_->setPixmap(pixmap);
}

void PaneWidget::setRemovable(bool removable) {
    remove_->setVisible(removable);
}

void PaneWidget::setPresenting(bool on) {
    controls_->setVisible(!on);
    narrationLines_ = 3; // a narrow pane's narration needs three lines at the larger size too
    narration_->setMinimumHeight(fontMetrics().lineSpacing() * narrationLines_);
}

void PaneWidget::setCurrent(bool current) {
    if (current == current_)
        return;
    current_ = current;
    update();
}

void PaneWidget::paintEvent(QPaintEvent *) {
    if (!current_)
        return;
    // In the layout's margin, around everything the pane shows.
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setPen(QPen(seriesColor_, 3));
    painter.drawRoundedRect(QRectF(rect()).adjusted(1.5, 1.5, -1.5, -1.5), 5, 5);
}

void PaneWidget::mousePressEvent(QMouseEvent *event) {
    emit selectRequested();
    QWidget::mousePressEvent(event);
}

bool PaneWidget::eventFilter(QObject *, QEvent *event) {
    // Focus the user moved here (Tab, a mouse click), not focus the window
    // hands out at start, which would take the selection from the right-most pane.
    const auto userFocus = [event] {
        const Qt::FocusReason why = static_cast<const QFocusEvent *>(event)->reason();
        return why == Qt::TabFocusReason || why == Qt::BacktabFocusReason || why == Qt::MouseFocusReason;
    };
    if (event->type() == QEvent::MouseButtonPress || (event->type() == QEvent::FocusIn && userFocus()))
        emit selectRequested();
    return false;
}

void PaneWidget::changeEvent(QEvent *event) {
    // The narration's lines at any text size (presentation mode enlarges it).
    if (event->type() == QEvent::FontChange)
        narration_->setMinimumHeight(fontMetrics().lineSpacing() * narrationLines_);
    QWidget::changeEvent(event);
}

} // namespace remat::studio
