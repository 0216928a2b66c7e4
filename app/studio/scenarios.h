#pragma once
// Example set-ups in the Scenarios menu: what a lecture would show first.
#include "app/studio/link_settings.h"
#include "app/studio/pane_run.h"

#include <QString>

#include <vector>

namespace remat::studio {

struct Scenario {
    QString id;    // for --scenario and settings
    QString title; // menu text
    int layers = 16;
    std::vector<PaneConfig> panes;
    LinkSettings link; // off unless the scenario offloads
};

// The first is the default (the three seed strategies at n = 16). Scenarios
// that need strategies not in the registry are left out.
std::vector<Scenario> builtinScenarios();
const Scenario *findScenario(const std::vector<Scenario> &scenarios, const QString &id);

} // namespace remat::studio
