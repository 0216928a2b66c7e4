// Models and plans in the studio: opening model files (File > Open model,
// File > Examples), showing one model in every pane, and Plan for budget.
#include "app/studio/import_dialog.h"
#include "app/studio/legend_widget.h"
#include "app/studio/main_window.h"
#include "app/studio/pane_widget.h"
#include "app/studio/resource_files.h"
#include "core/errors.h"
#include "core/model_io.h"
#include "core/strategy_registry.h"
#include "core/units.h"

#include <QAction>
#include <QCoreApplication>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QRegularExpression>
#include <QSpinBox>
#include <QStatusBar>

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

} // namespace

QString MainWindow::examplesDirectory() {
    return resourceDirectory(QStringLiteral("models"));
}

void MainWindow::showMessageBox(const QString &title, const QString &text, bool error) {
    // Window-modal and non-blocking: the window stays in charge, tests can read it.
    auto *box =
        new QMessageBox(error ? QMessageBox::Warning : QMessageBox::Information, title, text, QMessageBox::Ok, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setTextFormat(Qt::PlainText);
    box->open();
}

bool MainWindow::openModelFile(const QString &path) {
    const QString error = tryOpenModelFile(path);
    if (!error.isEmpty())
        showMessageBox(tr("Cannot open the model"), error, true);
    return error.isEmpty();
}

QString MainWindow::tryOpenModelFile(const QString &path) {
    ModelFile file;
    try {
        file = loadModelFile(path.toStdString()); // all or nothing
    } catch (const std::exception &e) {
        return QString::fromUtf8(e.what());
    }
    const QString name =
        QString::fromStdString(file.name.empty() ? QFileInfo(path).fileName().toStdString() : file.name);
    fileMachine_ = file.machine;
    setModel(std::make_shared<const Model>(std::move(file.model)), name);
    modelFile_ = QFileInfo(path).absoluteFilePath();
    statusBar()->showMessage(tr("Opened %1: %2 layers%3")
                                 .arg(name)
                                 .arg(layers_)
                                 .arg(model_->isChain() ? QString() : tr(", with skip connections")),
                             8000);
    return {};
}

void MainWindow::setModel(std::shared_ptr<const Model> model, const QString &name) {
    player_->pause();
    model_ = std::move(model);
    modelName_ = name;
    modelFile_.clear();
    if (name.isEmpty())
        fileMachine_ = {};
    layers_ = model_->layers();
    layersSpin_->blockSignals(true);
    layersSpin_->setValue(layers_);
    layersSpin_->blockSignals(false);
    if (modelLabel_)
        modelLabel_->setText(name.isEmpty() ? QString() : tr(" Model: %1 ").arg(name));
    legend_->setShowsSavedInternals(model_->hasSavedBytes());
    showLink();
    if (link_.on()) {
        try {
            resolveLink(*model_, fileMachine_, link_);
        } catch (const std::exception &e) {
            showError(tr("The link cannot time this model: %1. Panes > Link and budgets… sets what it needs.")
                          .arg(QString::fromUtf8(e.what())));
        }
    }
    const bool graph = !model_->isChain();
    std::vector<int> all;
    for (int i = 0; i < paneCount(); ++i) {
        Slot &slot = slots_[static_cast<std::size_t>(i)];
        StrategyParams &params = slot.config.params;
        if (graph && graphStrategyFor(slot.config.strategy) != slot.config.strategy) {
            slot.config.strategy = graphStrategyFor(slot.config.strategy);
            params = StrategyParams{};
        }
        slot.config = fittedTo(slot.config, layers_);
        slot.widget->setConfig(slot.config, layers_);
        slot.widget->setGraphModel(graph);
        all.push_back(i);
    }
    if (!all.empty())
        simulate(all);
}

bool MainWindow::planForBudget(const QString &text) {
    PaneConfig config;
    config.strategy = "budget";
    QString t = text.trimmed();
    static const QRegularExpression nodes(QStringLiteral("^(\\d+)\\s*(nodes?)?$"),
                                          QRegularExpression::CaseInsensitiveOption);
    try {
        if (const QRegularExpressionMatch m = nodes.match(t); m.hasMatch()) {
            bool ok = false;
            const qlonglong count = m.captured(1).toLongLong(&ok);
            if (!ok || count < 1)
                throw InvalidArgument("a budget in nodes must be at least 1, got '" + t.toStdString() + "'");
            config.params.budgetNodes = count;
        } else {
            config.params.budgetBytes = parseBytes(t.toStdString(), "budget");
            if (*config.params.budgetBytes < 1)
                throw InvalidArgument("a budget must be at least 1 byte, got '" + t.toStdString() + "'");
        }
    } catch (const std::exception &e) {
        showMessageBox(tr("Plan for budget"),
                       tr("%1\n\nGive bytes with a unit (\"2 GiB\", \"512MB\") or a number of nodes (\"12 nodes\").")
                           .arg(QString::fromUtf8(e.what())),
                       true);
        return false;
    }
    if (paneCount() >= kMaxPanes) {
        showMessageBox(tr("Plan for budget"), tr("At most %1 panes side by side: remove a pane first.").arg(kMaxPanes),
                       true);
        return false;
    }
    // Planned in the background with progress and Cancel (plansSlowly); a
    // budget below the model's minimum comes back as the pane's error.
    addPane(config);
    return true;
}

void MainWindow::buildModelMenu(QMenu *file) {
    QAction *open = file->addAction(tr("&Open model\u2026"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open a model"), examplesDirectory(),
                                                          tr("Model files (*.json);;All files (*)"));
        if (!path.isEmpty())
            openModelFile(path);
    });
    open->setShortcut(QKeySequence::Open);
    QAction *import = file->addAction(tr("&Import PyTorch model\u2026"), this, [this] {
        auto *dialog = new ImportDialog(this); // traces in a QProcess (docs/pytorch.md)
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        connect(dialog, &ImportDialog::imported, this, [this](const QString &path) { openModelFile(path); });
        dialog->open();
    });
    import->setObjectName("importPyTorchAction");
    import->setShortcut(QKeySequence(tr("Ctrl+I")));
    QMenu *examples = file->addMenu(tr("&Examples"));
    examples->setObjectName("examplesMenu");
    addFileEntries(
        examples, examplesDirectory(),
        [](const QString &path) { return loadModelFile(path.toStdString()).name; }, // the file's own name
        [this](const QString &path) { openModelFile(path); }, tr("(no example models found)"));
    file->addAction(tr("&Uniform chain of n layers"), this, [this] { setModel(chainModel(layers_), QString()); });
}

} // namespace remat::studio
