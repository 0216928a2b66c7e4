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
// line on stderr for a bad option (nothing written) or a failed export (the
// file is left as it was). Call it before any QApplication exists: it creates
// a QGuiApplication on the offscreen platform unless QT_QPA_PLATFORM says
// otherwise, so no display is needed.
int runHeadlessExport(const QStringList &args);

// The usage text of the export options (--help-export, and the end of --help).
const char *exportUsage();

// argv as a QStringList, before a QCoreApplication exists.
QStringList argumentList(int argc, char **argv);

} // namespace remat::exporting
