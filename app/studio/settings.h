#pragma once
// The last session (n, panes with their parameters, the open lesson and its
// chapter) and the preferences (theme, presentation mode, sync mode, speed,
// window geometry) in QSettings.
namespace remat::studio {

class MainWindow;

// False when there is no usable saved session (first run, or settings from
// an incompatible version): the caller then loads the default scenario.
bool restoreSession(MainWindow &window);
// `presenting`: the window was in presentation mode (it leaves it to save the full layout).
void saveSession(const MainWindow &window, bool presenting);

} // namespace remat::studio
