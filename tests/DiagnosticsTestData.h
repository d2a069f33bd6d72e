#pragma once
// Helpers shared by the diagnostics tests: an fp64 state as a World, and the `nbody` command line.
#include "contracts/World.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QString>
#include <QStringList>

/// The World holding `s` rounded to fp32 (exact when the values are fp32 already).
inline nbody::World toWorld(const nbody::Fp64State& s)
{
    nbody::World w;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const nbody::Double4 &p = s.position[i], &v = s.velocity[i];
        w.addBody({float(p.x), float(p.y), float(p.z), float(p.w)}, {float(v.x), float(v.y), float(v.z), 0.f});
    }
    return w;
}

#ifdef NBODY_CLI_PATH
struct CliResult {
    int code = -1;
    QString out, err;
};

/// Runs `nbody` ($NBODY_CLI_PATH, set by scripts/gpu-check.sh, else the path CMake compiled in).
inline CliResult runCli(const QStringList& args)
{
    const QByteArray env = qgetenv("NBODY_CLI_PATH");
    QProcess p;
    p.start(env.isEmpty() ? QStringLiteral(NBODY_CLI_PATH) : QString::fromLocal8Bit(env), args);
    if (!p.waitForFinished(240000)) {
        p.kill();
        p.waitForFinished();
        return {-2, {}, QStringLiteral("timed out")};
    }
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
            QString::fromLocal8Bit(p.readAllStandardOutput()), QString::fromLocal8Bit(p.readAllStandardError())};
}

/// Whether `nbody kernels --json` lists kernel `id` as available here.
inline bool cliKernelAvailable(const QString& id)
{
    const CliResult r = runCli({"kernels", "--json"});
    for (const QJsonValue& v : QJsonDocument::fromJson(r.out.toUtf8()).object()["kernels"].toArray())
        if (v["id"].toString() == id)
            return v["available"].toBool();
    return false;
}
#endif
