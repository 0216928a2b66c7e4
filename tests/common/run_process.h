#pragma once
// Runs a program as a user would and keeps what it printed: the CLI and
// headless-export tests check exit status, stdout and stderr separately.
#include <QProcess>
#include <QStringList>

namespace remat::test {

struct ProcessResult {
    int exitCode; // -1: did not finish in time; -2: crashed
    QByteArray out;
    QByteArray err;
};

inline ProcessResult runProcess(const QString &program, const QStringList &args,
                                const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment(),
                                int timeoutMs = 120'000) {
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(program, args);
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        return {-1, p.readAllStandardOutput(), "timed out"};
    }
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2, p.readAllStandardOutput(),
            p.readAllStandardError()};
}

#ifdef REMAT_CLI_PATH // tests of other programs include this without it
// The `remat` command built with the tests (REMAT_CLI_PATH).
inline ProcessResult runRemat(const QStringList &args) {
    return runProcess(QStringLiteral(REMAT_CLI_PATH), args);
}
#endif

} // namespace remat::test
