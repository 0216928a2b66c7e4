// The session's model and machine: model files, the uniform chain of n
// layers, a plan for a budget, and the link for offloading (docs/studio.md,
// "Offloading") with the default link an offload strategy gets when it is
// picked without one.
#include "app/studio/player.h"
#include "app/studio/session.h"
#include "app/studio/starter_panes.h"
#include "core/errors.h"
#include "core/model_io.h"
#include "core/op_plan.h"
#include "core/strategy_registry.h"
#include "core/units.h"

#include <QFileInfo>
#include <QRegularExpression>

#include <algorithm>

namespace remat::studio {

namespace {

// What a pane planning only chains switches to on a DAG: `auto` checkpoints
// the graph's articulation points, the nearest thing to periodic and revolve.
std::string graphStrategyFor(const std::string &chainStrategy) {
    const Strategy *s = StrategyRegistry::builtin().find(chainStrategy);
    if (s && s->worksOnGraphs())
        return chainStrategy;
    const Strategy *fallback = StrategyRegistry::builtin().find("auto");
    return fallback && fallback->worksOnGraphs() ? "auto" : "store-all";
}

bool usesLink(const PaneConfig &config) {
    const Strategy *strategy = StrategyRegistry::builtin().find(config.strategy);
    return strategy && strategy->usesLink();
}

// A budget in bytes with a unit, at least 1; throws InvalidArgument.
std::int64_t budgetBytes(const QString &text) {
    const std::int64_t bytes = parseBytes(text.toStdString(), "budget");
    if (bytes < 1)
        throw InvalidArgument("a budget must be at least 1 byte, got '" + text.toStdString() + "'");
    return bytes;
}

} // namespace

std::shared_ptr<const Model> Session::chainModel(int layers) const {
    return std::make_shared<const Model>(chainFor(layers, link_));
}

QString Session::openModelFile(const QString &path) {
    ModelFile file;
    try {
        file = loadModelFile(path.toStdString()); // all or nothing
    } catch (const std::exception &e) {
        return QString::fromUtf8(e.what());
    }
    const QString name =
        QString::fromStdString(file.name.empty() ? QFileInfo(path).fileName().toStdString() : file.name);
    fileMachine_ = file.machine;
    replaceModel(std::make_shared<const Model>(std::move(file.model)), name, QFileInfo(path).absoluteFilePath());
    say(tr("Opened %1: %2 layers%3")
            .arg(name)
            .arg(layers_)
            .arg(model_->isChain() ? QString() : tr(", with skip connections")),
        8000);
    return {};
}

void Session::useStarterPanes() {
    std::vector<PaneConfig> configs;
    try {
        configs = starterPanes(*model_);
    } catch (const std::exception &e) {
        say(tr("Keeping the panes: %1").arg(QString::fromUtf8(e.what())));
        return;
    }
    if (configs.empty())
        return;
    while (paneCount() > 1)
        removePane(paneCount() - 1);
    setPaneConfig(0, configs.front());
    for (std::size_t k = 1; k < configs.size(); ++k)
        addPane(configs[k]);
    setCurrentPane(paneCount() - 1);
}

void Session::setModel(std::shared_ptr<const Model> model, const QString &name) {
    replaceModel(std::move(model), name, QString());
}

void Session::replaceModel(std::shared_ptr<const Model> model, const QString &name, const QString &file) {
    player_.pause();
    if (openedBlock_ >= 0) {
        openedBlock_ = -1;
        emit openedBlockChanged(-1);
    }
    model_ = std::move(model);
    modelName_ = name;
    modelFile_ = file;
    if (name.isEmpty())
        fileMachine_ = {};
    layers_ = model_->layers();
    emit modelChanged();
    emit linkChanged(); // described differently for a chain and a file
    if (link_.on()) {
        try {
            resolveLink(*model_, fileMachine_, link_);
        } catch (const std::exception &e) {
            say(tr("The link cannot time this model: %1. Panes > Link and budgets… sets what it needs.")
                    .arg(QString::fromUtf8(e.what())));
        }
    }
    const bool graph = !model_->isChain();
    for (int i = 0; i < paneCount(); ++i) {
        PaneConfig &config = pane(i).config;
        if (graph && graphStrategyFor(config.strategy) != config.strategy) {
            config.strategy = graphStrategyFor(config.strategy);
            config.params = StrategyParams{};
        }
        config = fittedTo(config, layers_);
        emit paneConfigChanged(i);
    }
    if (paneCount() > 0)
        simulate(allPanes());
}

void Session::setLayers(int layers) {
    if (layers == layers_ && model_ && modelName_.isEmpty())
        return;
    std::shared_ptr<const Model> chain;
    try {
        chain = chainModel(layers);
    } catch (const std::exception &e) {
        say(QString::fromUtf8(e.what()));
        return;
    }
    setModel(std::move(chain), QString());
}

QString Session::planForBudget(const QString &text) {
    if (model_->isOpLevel())
        return addOpLevelPlan("op-budget", text);
    PaneConfig config;
    config.strategy = "budget";
    const QString t = text.trimmed();
    static const QRegularExpression nodes(QStringLiteral("^(\\d+)\\s*(nodes?)?$"),
                                          QRegularExpression::CaseInsensitiveOption);
    try {
        if (const QRegularExpressionMatch m = nodes.match(t); m.hasMatch()) {
            // A bare number on a model whose sizes are bytes is ambiguous: say both readings.
            if (m.captured(2).isEmpty() && !model_->sizesInNodes())
                return tr("%1 is a bare number, and this model's sizes are bytes: write \"%1 B\" or \"%2\", or "
                          "\"%1 nodes\" to count nodes.")
                    .arg(t, QString::fromStdString(formatBytes(m.captured(1).toLongLong())));
            bool ok = false;
            const qlonglong count = m.captured(1).toLongLong(&ok);
            if (!ok || count < 1)
                throw InvalidArgument("a budget in nodes must be at least 1, got '" + t.toStdString() + "'");
            config.params.budgetNodes = count;
        } else {
            config.params.budgetBytes = budgetBytes(t);
        }
    } catch (const std::exception &e) {
        return tr("%1\n\nGive bytes with a unit (\"2 GiB\", \"512MB\") or a number of nodes (\"12 nodes\").")
            .arg(QString::fromUtf8(e.what()));
    }
    if (paneCount() >= kMaxPanes)
        return tr("At most %1 panes side by side: remove a pane first.").arg(kMaxPanes);
    // Planned in the background with progress and Cancel (plansSlowly); a
    // budget below the model's minimum comes back as the pane's error.
    addPane(config);
    return {};
}

void Session::setOpenedBlock(int block) {
    int blocks = 0;
    try {
        const OpGraph graph = opGraph(*model_);
        blocks = static_cast<int>(
            std::count_if(graph.groups.begin(), graph.groups.end(), [](const OpGroup &g) { return g.selectable; }));
    } catch (const std::exception &e) {
        say(tr("No block to open: %1").arg(QString::fromUtf8(e.what())));
        return;
    }
    if (block < -1 || block >= blocks) {
        say(tr("Block %1 does not exist; the model has blocks 0 to %2.").arg(block).arg(blocks - 1));
        return;
    }
    openedBlock_ = block == openedBlock_ ? -1 : block;
    emit openedBlockChanged(openedBlock_);
}

const std::vector<std::string> &Session::opLevelStrategies() {
    static const std::vector<std::string> names{"op-budget", "save-matmuls", "attention-core", "per-block"};
    return names;
}

QString Session::addOpLevelPlan(const std::string &strategy, const QString &budget) {
    if (!model_->isOpLevel())
        return tr("%1 plans op-level models only; this model has no \"op\" per node. Open one "
                  "(File > Open model, e.g. gpt2-2layers-seq1024-ops.json) or trace one with "
                  "python3 -m remat_torch trace --granularity op.")
            .arg(QString::fromStdString(strategy));
    PaneConfig config;
    config.strategy = strategy;
    if (strategy == "op-budget") {
        try {
            config.params.budgetBytes = budgetBytes(budget.trimmed());
        } catch (const std::exception &e) {
            return tr("%1\n\nAn op-level plan takes a budget in bytes with a unit (\"300 MiB\", \"2 GiB\").")
                .arg(QString::fromUtf8(e.what()));
        }
    }
    if (paneCount() >= kMaxPanes)
        return tr("At most %1 panes side by side: remove a pane first.").arg(kMaxPanes);
    addPane(config); // a budget below every plan's peak comes back as the pane's error
    return {};
}

QString Session::setLink(const LinkSettings &settings) {
    const bool chain = isChain();
    std::shared_ptr<const Model> model = model_;
    try {
        if (chain)
            model = std::make_shared<const Model>(chainFor(layers_, settings));
        resolveLink(*model, fileMachine_, settings); // every field checked before anything changes
    } catch (const std::exception &e) {
        return QString::fromUtf8(e.what());
    }
    link_ = settings;
    emit linkChanged();
    if (chain)
        setModel(std::move(model), QString());
    else
        simulate(allPanes());
    return {};
}

bool Session::linkOfferedFor(const std::vector<int> &panes) {
    if (link_.on())
        return false;
    QString strategy;
    for (const int index : panes)
        if (usesLink(paneConfig(index)))
            strategy = QString::fromStdString(paneConfig(index).strategy);
    if (strategy.isEmpty())
        return false;
    // Not a dead end: the default link, said in the status bar and shown in the toolbar.
    const QString refused = setLink(LinkSettings::defaults());
    if (!refused.isEmpty()) {
        say(tr("%1 moves activations to host: set a link in Panes > Link and budgets\u2026 (%2)")
                .arg(strategy, refused));
        return false;
    }
    say(tr("%1 needs a link between device and host: using the default, %2. "
           "Change it in Panes > Link and budgets\u2026 (Ctrl+Shift+L).")
            .arg(strategy, QString::fromStdString(describeLink(link_, true))),
        12000);
    return true;
}

} // namespace remat::studio
