#pragma once
// Runs the `nbody` command-line tool from a test: $NBODY_CLI_PATH (set by scripts/gpu-check.sh,
// where the build tree does not travel), else the path CMake compiled in (NBODY_CLI_PATH).
#include <QProcess>
#include <QString>
#include <QStringList>

namespace nbody_test {

struct CliResult {
    int code = -1; ///< exit code; -1 killed by a signal, -2 timed out
    QString out, err;
};

inline QString cliPath()
{
    const QByteArray env = qgetenv("NBODY_CLI_PATH");
    return env.isEmpty() ? QStringLiteral(NBODY_CLI_PATH) : QString::fromLocal8Bit(env);
}

/// Runs `nbody args…` to the end (at most timeoutMs), with `extra` added to the environment.
inline CliResult runCli(const QStringList& args, int timeoutMs = 240000, const QProcessEnvironment& extra = {})
{
    QProcess p;
    if (!extra.isEmpty()) {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(extra);
        p.setProcessEnvironment(env);
    }
    p.start(cliPath(), args);
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        return {-2, {}, QStringLiteral("timed out")};
    }
    CliResult r;
    r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = QString::fromLocal8Bit(p.readAllStandardOutput());
    r.err = QString::fromLocal8Bit(p.readAllStandardError());
    return r;
}

} // namespace nbody_test
