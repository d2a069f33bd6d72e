#pragma once
// What the in-process GUI tests share: whether there is a display, and a main() that prepares
// the platform and the surface format as the app's main() does. Header-only (tests/).
#include "AppSetup.h"

#include <QApplication>
#include <QProcessEnvironment>
#include <QStandardPaths>
#include <QTest>

namespace nbody::test {

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
    nbody::app::setDefaultSurfaceFormat(); // as the app's main() does, before the QApplication
    QApplication app(argc, argv);
    // The windows' autosave and session marker (app/Autosave.h) and QSettings go to the test
    // locations (~/.qttest, ~/.local/share/qttest), never the user's.
    QStandardPaths::setTestModeEnabled(true);
    nbody::app::registerMetaTypes();
    Test test;
    return QTest::qExec(&test, argc, argv);
}

} // namespace nbody::test
