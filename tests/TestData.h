#pragma once
// Where tests find the external data files (galaxy_20K.bin): $NBODY_DATA_DIR (the GPU check sets
// it), else the path beside the source tree that CMake compiled in (cmake/NBodyHelpers.cmake).
#include <QByteArray>
#include <QFileInfo>
#include <QString>
#include <QtGlobal>

inline QString nbodyDataDir()
{
    const QByteArray env = qgetenv("NBODY_DATA_DIR");
    return env.isEmpty() ? QStringLiteral(NBODY_DATA_DIR) : QString::fromLocal8Bit(env);
}

/// A file of the repository's tests/data (small inputs kept with the tests): beside the source
/// tree CMake compiled in (NBODY_SOURCE_DIR), else under the working directory (the GPU check
/// runs the tests from the root of a copy of the working tree); "" when neither has it.
inline QString nbodyTestDataFile(const QString& name)
{
    for (const QString& dir : {QStringLiteral(NBODY_SOURCE_DIR "/tests/data"), QStringLiteral("tests/data")})
        if (QFileInfo::exists(dir + "/" + name))
            return dir + "/" + name;
    return {};
}
