#pragma once
// What the in-process GUI tests share: whether there is a display, a settings home of their own,
// and a main() that prepares the platform, the names and the surface format as the app's main()
// does. Header-only (tests/).
#include "AppSetup.h"

#include <QApplication>
#include <QDir>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QTest>

#include <cstdio>
#include <memory>

namespace nbody::test {

/// Points XDG_CONFIG_HOME and XDG_DATA_HOME at a temporary folder of this process (removed when
/// the returned object goes), before anything reads them: the windows' QSettings
/// (~/.config/N-Body Sandbox/…, AppSettings.h), their autosave and session marker (Autosave.h),
/// Qt's own (QtProject.conf of the file dialogs), and those of the nbody-sandbox processes the
/// test starts (they inherit the environment), never the user's. Null when no temporary folder
/// could be made.
inline std::unique_ptr<QTemporaryDir> useTemporarySettingsHome()
{
    auto home = std::make_unique<QTemporaryDir>(QDir::temp().filePath(QStringLiteral("nbody-test-home-XXXXXX")));
    if (!home->isValid())
        return nullptr;
    for (const char* name : {"XDG_CONFIG_HOME", "XDG_DATA_HOME"}) {
        const QString dir = home->filePath(QString::fromLatin1(name).toLower());
        QDir().mkpath(dir);
        qputenv(name, QFile::encodeName(dir));
    }
    return home;
}

/// True when DISPLAY or WAYLAND_DISPLAY is set (xvfb-run sets DISPLAY).
inline bool haveDisplay()
{
    const QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    return !env.value(QStringLiteral("DISPLAY")).isEmpty() ||
           !env.value(QStringLiteral("WAYLAND_DISPLAY")).isEmpty();
}

/// Runs the Qt Test object `Test` in a QApplication. The window needs desktop OpenGL, which Qt's
/// offscreen platform lacks here; without a display the offscreen platform only lets
/// QApplication start, and the test's initTestCase skips.
template <class Test>
int guiTestMain(int argc, char** argv)
{
    if (qgetenv("QT_QPA_PLATFORM") == "offscreen")
        qunsetenv("QT_QPA_PLATFORM");
    if (!haveDisplay())
        qputenv("QT_QPA_PLATFORM", "offscreen");
    const std::unique_ptr<QTemporaryDir> home = useTemporarySettingsHome();
    if (!home) {
        std::fprintf(stderr, "no temporary folder for the test's settings\n");
        return 1;
    }
    nbody::app::setDefaultSurfaceFormat(); // as the app's main() does, before the QApplication
    nbody::app::setApplicationNames();
    QApplication app(argc, argv);
    nbody::app::registerMetaTypes();
    Test test;
    return QTest::qExec(&test, argc, argv);
}

} // namespace nbody::test
