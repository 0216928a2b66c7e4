#include "app/studio/settings.h"

#include "app/studio/session.h"
#include "core/strategy_registry.h"

#include <QSettings>

namespace remat::studio {

namespace {
constexpr int kVersion = 1;
}

bool hasSavedSession(const QSettings &settings) {
    return settings.value("version").toInt() == kVersion;
}

bool restoreSession(Session &session, QSettings &settings, QString *modelError) {
    if (!hasSavedSession(settings))
        return false;
    Scenario saved;
    saved.id = QStringLiteral("session");
    saved.layers = settings.value("model/layers", 16).toInt();
    if (saved.layers < 1 || saved.layers > Model::kMaxLayers)
        return false;
    const int count = settings.beginReadArray("panes");
    for (int i = 0; i < count && i < Session::kMaxPanes; ++i) {
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
        if (settings.contains("heuristic"))
            config.params.heuristic = settings.value("heuristic").toString().toStdString();
        if (settings.contains("checkpoints")) {
            std::vector<int> list;
            for (const QVariant &v : settings.value("checkpoints").toList())
                list.push_back(v.toInt());
            config.params.checkpoints = std::move(list);
        }
        saved.panes.push_back(std::move(config));
    }
    settings.endArray();
    if (saved.panes.empty())
        return false;
    // The link for offloading, as typed; one that no longer reads (settings edited by hand) is dropped.
    LinkSettings &link = saved.link;
    link.machine.link = settings.value("link/bandwidth").toString().toStdString();
    link.machine.latency = settings.value("link/latency").toString().toStdString();
    link.machine.deviceRate = settings.value("link/deviceRate").toString().toStdString();
    link.machine.deviceBudget = settings.value("link/deviceBudget").toString().toStdString();
    link.machine.hostBudget = settings.value("link/hostBudget").toString().toStdString();
    link.nodeBytes = settings.value("link/nodeBytes").toString().toStdString();
    link.forwardTime = settings.value("link/forwardTime").toString().toStdString();
    link.backwardTime = settings.value("link/backwardTime").toString().toStdString();
    try {
        const Model chain = chainFor(saved.layers, link);
        resolveLink(chain, {}, link);
    } catch (const std::exception &) {
        link = {};
    }
    session.setSyncByTime(settings.value("player/syncByTime", true).toBool());
    session.setSpeed(settings.value("player/speed", 4.0).toDouble());
    session.loadScenario(saved);
    // A model file that has gone since leaves the chain in place.
    if (const QString file = settings.value("model/file").toString(); !file.isEmpty())
        if (const QString error = session.openModelFile(file); !error.isEmpty() && modelError)
            *modelError = error;
    session.setCurrentPane(settings.value("currentPane", session.paneCount() - 1).toInt());
    return true;
}

void saveSession(const Session &session, QSettings &settings) {
    settings.setValue("version", kVersion);
    settings.setValue("player/syncByTime", session.syncByTime());
    settings.setValue("player/speed", session.speed());
    settings.setValue("model/layers", session.layers());
    settings.setValue("model/file", session.modelFile());
    settings.setValue("currentPane", session.currentPane());
    const LinkSettings &link = session.link();
    settings.setValue("link/bandwidth", QString::fromStdString(link.machine.link));
    settings.setValue("link/latency", QString::fromStdString(link.machine.latency));
    settings.setValue("link/deviceRate", QString::fromStdString(link.machine.deviceRate));
    settings.setValue("link/deviceBudget", QString::fromStdString(link.machine.deviceBudget));
    settings.setValue("link/hostBudget", QString::fromStdString(link.machine.hostBudget));
    settings.setValue("link/nodeBytes", QString::fromStdString(link.nodeBytes));
    settings.setValue("link/forwardTime", QString::fromStdString(link.forwardTime));
    settings.setValue("link/backwardTime", QString::fromStdString(link.backwardTime));
    settings.beginWriteArray("panes", session.paneCount());
    for (int i = 0; i < session.paneCount(); ++i) {
        settings.setArrayIndex(i);
        const PaneConfig &config = session.paneConfig(i);
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
        if (config.params.heuristic)
            settings.setValue("heuristic", QString::fromStdString(*config.params.heuristic));
        else
            settings.remove("heuristic");
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
