// The window's link for offloading (docs/studio.md, "Offloading"): Panes >
// Link and budgets…, the machine every pane is timed on, and the default
// link an offload strategy gets when it is picked without one.
#include "app/studio/legend_widget.h"
#include "app/studio/link_dialog.h"
#include "app/studio/main_window.h"

#include "core/strategy_registry.h"

#include <QLabel>
#include <QMenu>
#include <QStatusBar>

namespace remat::studio {

namespace {

bool usesLink(const PaneConfig &config) {
    const Strategy *strategy = StrategyRegistry::builtin().find(config.strategy);
    return strategy && strategy->usesLink();
}

} // namespace

std::shared_ptr<const Model> MainWindow::chainModel(int layers) const {
    return std::make_shared<const Model>(chainFor(layers, link_));
}

QString MainWindow::setLink(const LinkSettings &settings) {
    const bool chain = modelFile_.isEmpty() && modelName_.isEmpty();
    std::shared_ptr<const Model> model = model_;
    try {
        if (chain)
            model = std::make_shared<const Model>(chainFor(layers_, settings));
        resolveLink(*model, fileMachine_, settings); // every field checked before anything changes
    } catch (const std::exception &e) {
        return QString::fromUtf8(e.what());
    }
    link_ = settings;
    showLink();
    if (chain) {
        setModel(std::move(model), QString());
    } else {
        std::vector<int> all;
        for (int i = 0; i < paneCount(); ++i)
            all.push_back(i);
        simulate(all);
    }
    return {};
}

void MainWindow::showLink() {
    const bool chain = modelFile_.isEmpty() && modelName_.isEmpty();
    const QString text = QString::fromStdString(describeLink(link_, chain));
    if (linkLabel_) {
        linkLabel_->setText(text.isEmpty() ? QString() : QStringLiteral(" %1 ").arg(text));
        linkLabel_->setVisible(!text.isEmpty());
    }
    legend_->setShowsOffload(link_.on());
}

void MainWindow::openLinkDialog() {
    const bool chain = modelFile_.isEmpty() && modelName_.isEmpty();
    // An empty dialog offers the default link to start from.
    LinkDialog dialog(
        link_.on() ? link_ : LinkSettings::defaults(), chain, [this](const LinkSettings &s) { return setLink(s); },
        this);
    dialog.exec();
}

bool MainWindow::linkOfferedFor(const std::vector<int> &panes) {
    if (link_.on())
        return false;
    QString strategy;
    for (const int index : panes)
        if (usesLink(slots_[static_cast<std::size_t>(index)].config))
            strategy = QString::fromStdString(slots_[static_cast<std::size_t>(index)].config.strategy);
    if (strategy.isEmpty())
        return false;
    // Not a dead end: the default link, said in the status bar and shown in the toolbar.
    const QString refused = setLink(LinkSettings::defaults());
    if (!refused.isEmpty()) {
        showError(tr("%1 moves activations to host: set a link in Panes > Link and budgets\u2026 (%2)")
                      .arg(strategy, refused));
        return false;
    }
    statusBar()->showMessage(tr("%1 needs a link between device and host: using the default, %2. "
                                "Change it in Panes > Link and budgets\u2026 (Ctrl+Shift+L).")
                                 .arg(strategy, QString::fromStdString(describeLink(link_, true))),
                             12000);
    return true;
}

PaneConfig MainWindow::withLink(PaneConfig config, const ResolvedLink &link) const {
    config.params.machine = link.machine;
    if (config.strategy == "offload-budget" && !config.params.budgetBytes && !config.params.budgetNodes)
        config.params.budgetBytes = link.deviceBudget;
    return config;
}

void MainWindow::addLinkAction(QMenu *menu) {
    QAction *action = menu->addAction(tr("&Link and budgets\u2026"), this, &MainWindow::openLinkDialog);
    action->setObjectName("linkAndBudgets");
    action->setShortcut(QKeySequence(tr("Ctrl+Shift+L")));
    action->setToolTip(tr("The link between device and host memory, and the budgets: every pane then runs on a "
                          "compute and a copy stream"));
}

} // namespace remat::studio
