#include "app/studio/scenarios.h"

#include "core/strategy_registry.h"

#include <QObject>

namespace remat::studio {

namespace {
PaneConfig pane(std::string strategy) {
    PaneConfig c;
    c.strategy = std::move(strategy);
    return c;
}
} // namespace

std::vector<Scenario> builtinScenarios() {
    const StrategyRegistry &registry = StrategyRegistry::builtin();
    std::vector<Scenario> out;
    out.push_back({QStringLiteral("seed"),
                   QObject::tr("Three seed strategies side by side (n = 16)"),
                   16,
                   {pane("store-all"), pane("recompute-all"), pane("periodic")},
                   {}});

    PaneConfig own = pane("checkpoints");
    own.params.checkpoints = std::vector<int>{3, 7, 12};
    out.push_back({QStringLiteral("own"),
                   QObject::tr("Your own checkpoints against sqrt(n) (n = 16)"),
                   16,
                   {own, pane("periodic")},
                   {}});

    PaneConfig coarse = pane("periodic");
    coarse.params.every = 4;
    PaneConfig fine = pane("periodic");
    fine.params.every = 2;
    out.push_back({QStringLiteral("k"),
                   QObject::tr("Choosing k: every 2nd against every 4th node (n = 16)"),
                   16,
                   {fine, coarse},
                   {}});

    // sqrt(n) against the optimal planners, when they are built in: revolve
    // with as many slots as periodic keeps checkpoints, and the budget planner
    // held to periodic's peak memory.
    Scenario optimal{QStringLiteral("optimal"),
                     QObject::tr("sqrt(n) against the optimal planners (n = 64)"),
                     64,
                     {pane("periodic")},
                     {}};
    if (registry.find("revolve")) {
        PaneConfig revolve = pane("revolve");
        revolve.params.checkpointSlots = 8;
        optimal.panes.push_back(revolve);
    }
    if (registry.find("budget")) {
        PaneConfig budget = pane("budget");
        budget.params.budgetNodes = 17; // periodic's peak at n = 64, k = 8
        optimal.panes.push_back(budget);
    }
    if (optimal.panes.size() > 1)
        out.push_back(optimal);

    // No plan: the runtime (dtr) within the budget planner's memory, with h_DTR and with h = c/m.
    if (registry.find("dtr") && registry.find("budget")) {
        PaneConfig dtr = pane("dtr"), plain = pane("dtr"), budget = pane("budget");
        dtr.params.budgetNodes = plain.params.budgetNodes = budget.params.budgetNodes = 12;
        plain.params.heuristic = "cost-per-byte";
        out.push_back({QStringLiteral("runtime"),
                       QObject::tr("What if the runtime decides? dtr against the optimal plan (n = 32, 12 nodes)"),
                       32,
                       {dtr, plain, budget},
                       {}});
    }

    out.push_back({QStringLiteral("deep"),
                   QObject::tr("A deep chain: store-all against sqrt(n) (n = 256)"),
                   256,
                   {pane("store-all"), pane("periodic")},
                   {}});
    out.push_back({QStringLiteral("deep-all"),
                   QObject::tr("A deep chain, all three seed strategies (n = 512)"),
                   512,
                   {pane("store-all"), pane("recompute-all"), pane("periodic")},
                   {}});
    // Offloading (docs/studio.md): the documented example, a chain of 64 MiB
    // activations, 2 ms a layer forward, on a 16 GB/s link. An offload takes
    // 4.2 ms: each forward layer waits for the copy before it (a stall, hatched
    // in the host lane), while the backward's prefetches hide behind 4 ms of compute.
    if (registry.find("offload-all"))
        out.push_back({QStringLiteral("offload"),
                       QObject::tr("Offload to host: store-all, sqrt(n), offload-all on a 16 GB/s link (n = 16)"),
                       16,
                       {pane("store-all"), pane("periodic"), pane("offload-all")},
                       LinkSettings::defaults()});
    return out;
}

const Scenario *findScenario(const std::vector<Scenario> &scenarios, const QString &id) {
    for (const Scenario &s : scenarios)
        if (s.id == id)
            return &s;
    return nullptr;
}

} // namespace remat::studio
