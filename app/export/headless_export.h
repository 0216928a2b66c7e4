#pragma once
// `remat-studio --export-gif out.gif --n 16 --strategies store-all,periodic ...`:
// the studio's exports without a window (works with QT_QPA_PLATFORM=offscreen).
// Every option is checked before anything is written; each file is written
// through a QSaveFile, so a bad option or a failure leaves existing files as
// they were. Options and exit codes are in docs/export.md.
#include <QStringList>

namespace remat::exporting {

// True when `args` (argv, program name first) ask for a headless export:
// any --export-* option, or --help-export.
bool wantsHeadlessExport(const QStringList &args);

// Runs the export. Returns 0 when every file asked for is complete; 2 with one
// line on stderr (nothing written) for a bad option or a failed export.
// Needs a QGuiApplication (fonts); main() creates it first.
int runHeadlessExport(const QStringList &args);

} // namespace remat::exporting
