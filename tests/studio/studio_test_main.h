#pragma once
// What every offscreen studio test needs: a private runtime dir (keeps Qt
// quiet), settings in test mode and under the test's own application name
// (out of the user's settings, apart from other tests running in parallel),
// and a window that does not restore the last session.
#include "app/studio/main_window.h"

#include <QApplication>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

namespace remat::testing {

inline studio::MainWindow::Options freshWindow() {
    studio::MainWindow::Options o;
    o.restoreSession = false;
    return o;
}

inline int runStudioTest(QObject &test, const char *applicationName, int argc, char **argv) {
    QTemporaryDir runtime;
    qputenv("XDG_RUNTIME_DIR", runtime.path().toLocal8Bit());
    QFile::setPermissions(runtime.path(), QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    QStandardPaths::setTestModeEnabled(true);
    QApplication app(argc, argv);
    QApplication::setOrganizationName("remat-test");
    QApplication::setApplicationName(QString::fromLatin1(applicationName));
    return QTest::qExec(&test, argc, argv);
}

} // namespace remat::testing
