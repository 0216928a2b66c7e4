#pragma once
// The session as the user left it in QSettings: n, the model file, the link
// for offloading, the panes with their parameters and which one is current,
// the sync mode and the speed. The window keeps its own look beside it (geometry, theme,
// presentation mode, the open lesson: app/studio/main_window_settings.cpp).
class QSettings;
class QString;

namespace remat::studio {

class Session;

// True when `settings` hold a session this version can read.
bool hasSavedSession(const QSettings &settings);
// False, leaving the session as it was, when there is no usable saved session
// (first run, or settings from an incompatible version): the caller then loads
// the default scenario. A saved model file that no longer opens leaves the
// chain in place, and its reason in `modelError`.
bool restoreSession(Session &session, QSettings &settings, QString *modelError = nullptr);
void saveSession(const Session &session, QSettings &settings);

} // namespace remat::studio
