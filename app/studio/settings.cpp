#include "app/studio/settings.h"

#include "app/studio/lesson_controller.h"
#include "app/studio/main_window.h"
#include "core/strategy_registry.h"

#include <QSettings>
#include <QSplitter>
#include <QStatusBar>

namespace remat::studio {

namespace {
constexpr int kVersion = 1;
}

bool restoreSession(MainWindow &window) {
    QSettings settings;
    if (settings.value("version").toInt() != kVersion)
        return false;
    window.restoreGeometry(settings.value("window/geometry").toByteArray());
    window.restoreState(settings.value("window/state").toByteArray());
    if (auto *splitter = window.findChild<QSplitter *>("mainSplitter"))
        splitter->restoreState(settings.value("window/splitter").toByteArray());
    window.setTheme(static_cast<Theme>(std::clamp(settings.value("view/theme", 0).toInt(), 0, 2)));
    window.setSyncByTime(settings.value("player/syncByTime", true).toBool());
    window.setSpeed(settings.value("player/speed", 4.0).toDouble());

    Scenario session;
    session.id = QStringLiteral("session");
    session.layers = settings.value("model/layers", 16).toInt();
    if (session.layers < 1 || session.layers > Model::kMaxLayers)
        return false;
    const int count = settings.beginReadArray("panes");
    for (int i = 0; i < count && i < MainWindow::kMaxPanes; ++i) {
        settings.setArrayIndex(i);
        PaneConfig config;
        config.strategy = settings.value("strategy").toString().toStdString();
        if (!StrategyRegistry::builtin().find(config.strategy))
            continue; // a strategy this build does not have
        if (settings.contains("every"))
            config.params.every = settings.value("every").toInt();
        if (settings.contains("slots"))
            config.params.checkpointSlots = settings.value("slots").toInt();
        if (settings.contains("budgetNodes"))
            config.params.budgetNodes = settings.value("budgetNodes").toLongLong();
        if (settings.contains("budgetBytes"))
            config.params.budgetBytes = settings.value("budgetBytes").toLongLong();
        if (settings.contains("checkpoints")) {
            std::vector<int> list;
            for (const QVariant &v : settings.value("checkpoints").toList())
                list.push_back(v.toInt());
            config.params.checkpoints = std::move(list);
        }
        session.panes.push_back(std::move(config));
    }
    settings.endArray();
    if (session.panes.empty())
        return false;
    // The link for offloading, as typed; one that no longer reads (settings edited by hand) is dropped.
    LinkSettings &link = session.link;
    link.machine.link = settings.value("link/bandwidth").toString().toStdString();
    link.machine.latency = settings.value("link/latency").toString().toStdString();
    link.machine.deviceRate = settings.value("link/deviceRate").toString().toStdString();
    link.machine.deviceBudget = settings.value("link/deviceBudget").toString().toStdString();
    link.machine.hostBudget = settings.value("link/hostBudget").toString().toStdString();
    link.nodeBytes = settings.value("link/nodeBytes").toString().toStdString();
    link.forwardTime = settings.value("link/forwardTime").toString().toStdString();
    link.backwardTime = settings.value("link/backwardTime").toString().toStdString();
    try {
        const Model chain = chainFor(session.layers, link);
        resolveLink(chain, {}, link);
    } catch (const std::exception &) {
        link = {};
    }
    window.loadScenario(session);
    // A model file that has gone since is reported by openModelFile; the chain stays.
    if (const QString file = settings.value("model/file").toString(); !file.isEmpty())
        window.openModelFile(file);
    // The lesson where it was left (it sets the panes itself); one that no longer loads is said in the status bar.
    if (const QString lesson = settings.value("lesson/file").toString(); !lesson.isEmpty())
        if (const QString error = window.lesson()->open(lesson, settings.value("lesson/chapter", 0).toInt());
            !error.isEmpty())
            window.statusBar()->showMessage(QObject::tr("The last lesson did not open: %1").arg(error), 10000);
    if (settings.value("view/presentation", false).toBool())
        window.setPresentationMode(true);
    return true;
}

void saveSession(const MainWindow &window, bool presenting) {
    QSettings settings;
    settings.setValue("version", kVersion);
    settings.setValue("window/geometry", window.saveGeometry());
    settings.setValue("window/state", window.saveState());
    if (auto *splitter = window.findChild<QSplitter *>("mainSplitter"))
        settings.setValue("window/splitter", splitter->saveState());
    settings.setValue("view/theme", static_cast<int>(window.theme()));
    settings.setValue("view/presentation", presenting);
    settings.setValue("lesson/file", window.lesson()->file());
    settings.setValue("lesson/chapter", window.lesson()->chapter());
    settings.setValue("player/syncByTime", window.syncByTime());
    settings.setValue("player/speed", window.player()->speed());
    settings.setValue("model/layers", window.layers());
    settings.setValue("model/file", window.modelFile());
    const LinkSettings &link = window.link();
    settings.setValue("link/bandwidth", QString::fromStdString(link.machine.link));
    settings.setValue("link/latency", QString::fromStdString(link.machine.latency));
    settings.setValue("link/deviceRate", QString::fromStdString(link.machine.deviceRate));
    settings.setValue("link/deviceBudget", QString::fromStdString(link.machine.deviceBudget));
    settings.setValue("link/hostBudget", QString::fromStdString(link.machine.hostBudget));
    settings.setValue("link/nodeBytes", QString::fromStdString(link.nodeBytes));
    settings.setValue("link/forwardTime", QString::fromStdString(link.forwardTime));
    settings.setValue("link/backwardTime", QString::fromStdString(link.backwardTime));
    settings.beginWriteArray("panes", window.paneCount());
    for (int i = 0; i < window.paneCount(); ++i) {
        settings.setArrayIndex(i);
        const PaneConfig &config = window.paneConfig(i);
        settings.setValue("strategy", QString::fromStdString(config.strategy));
        if (config.params.every)
            settings.setValue("every", *config.params.every);
        else
            settings.remove("every");
        if (config.params.checkpointSlots)
            settings.setValue("slots", *config.params.checkpointSlots);
        else
            settings.remove("slots");
        if (config.params.budgetNodes)
            settings.setValue("budgetNodes", static_cast<qlonglong>(*config.params.budgetNodes));
        else
            settings.remove("budgetNodes");
        if (config.params.budgetBytes)
            settings.setValue("budgetBytes", static_cast<qlonglong>(*config.params.budgetBytes));
        else
            settings.remove("budgetBytes");
        if (config.params.checkpoints) {
            QVariantList list;
            for (const int c : *config.params.checkpoints)
                list << c;
            settings.setValue("checkpoints", list);
        } else {
            settings.remove("checkpoints");
        }
    }
    settings.endArray();
}

} // namespace remat::studio
