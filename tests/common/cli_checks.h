#pragma once
// The CLI's promise for bad input, checked the same way by every CLI suite:
// exit status 2, nothing on stdout, one line on stderr that holds `message`.
#include "tests/common/run_process.h"

#include <QtTest>

namespace remat::test {

inline void checkRefused(const QStringList &args, const QString &message) {
    const ProcessResult r = runRemat(args);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.out.isEmpty(), r.out.constData());
    QVERIFY2(QString(r.err).contains(message), r.err.constData());
    QCOMPARE(r.err.count('\n'), 1); // one line
}

} // namespace remat::test
