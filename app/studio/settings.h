#pragma once
// The last session (n, panes with their parameters) and the preferences
// (theme, sync mode, speed, window geometry) in QSettings.
namespace remat::studio {

class MainWindow;

// False when there is no usable saved session (first run, or settings from
// an incompatible version): the caller then loads the default scenario.
bool restoreSession(MainWindow &window);
void saveSession(const MainWindow &window);

} // namespace remat::studio
