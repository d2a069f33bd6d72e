#pragma once
// Where tests find ../shared/data: $NBODY_DATA_DIR (the GPU check sets it), else the path
// beside the source tree that CMake compiled in.
#include <QByteArray>
#include <QString>
#include <QtGlobal>

inline QString nbodyDataDir()
{
    const QByteArray env = qgetenv("NBODY_DATA_DIR");
    return env.isEmpty() ? QStringLiteral(NBODY_DATA_DIR) : QString::fromLocal8Bit(env);
}
