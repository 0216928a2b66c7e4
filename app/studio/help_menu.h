#pragma once
// Texts of the Help menu, built from this build's versions and the window's
// actions (app/studio/help_menu.cpp).
#include <QString>

class QMenuBar;

namespace remat::studio {

// remat, Qt (run time and build), Eigen and, when built, CUDA versions (rich text).
QString aboutText();
// Every menu action that has a shortcut, as a table (rich text).
QString shortcutsText(const QMenuBar &bar);

} // namespace remat::studio
