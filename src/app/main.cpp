/// \file main.cpp
/// nbody-sandbox: the desktop app. Options (read in AppCommandLine.cpp):
///   --kernel ID            force kernel (see the Kernel menu / `nbody kernels`), default: the one
///                          remembered from the last session, else the fastest here
///   --bodies N             size of the start system, default: the remembered scenario's N, else
///                          sized for the kernel (the galaxy collision)
///   --input FILE           start from a snapshot (Tipsy, CSV or HDF5) instead
///   --scenario ID|FILE     start from a scenario (registry id or JSON file) instead of the
///                          remembered one (or the galaxy collision)
///   --steps K              run K steps, then pause
///   --dt X                 the start system's time step (a positive number) in place of its own
///   --steps-per-frame S    steps between drawn frames (1..1000)
///   --capture FILE         after the K steps, save the view as PNG or JPEG (offscreen)
///   --capture-size WxH     its size (default: the view's size in device pixels)
///   --window-capture FILE  after the K steps, save the whole window as PNG
///   --record TARGET        record from the start: a directory (PNG files) or FILE.mp4
///   --record-every K       steps between recorded frames (default 1)
///   --record-size WxH      recorded frame size (default 960x720)
///   --colour MODE          colour mode: mass, speed, group (default: group where the system has groups, else mass)
///   --quit                 exit after that (0 on success; 1 when something failed; 2 for bad
///                          options such as an unknown kernel)
///   --no-settings          start with the defaults; read and write no settings (AppSettings.h;
///                          a run with --capture, --record or --quit uses none either)

#include "AppSetup.h"
#include "AppCommandLine.h"
#include "MainWindow.h"

#include "sim/base/AtomicFile.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>
#include <QOpenGLContext>

#include <cstdio>

namespace {

int usageError(const QString& message)
{
    std::fprintf(stderr, "nbody-sandbox: %s\n", qPrintable(message));
    return 2;
}

/// Parses argv before the QApplication exists, so bad options are reported without a display.
/// --help and --version print and exit here. Returns the usage error, empty when there is none.
QString parseArguments(QCommandLineParser& parser, int argc, char* argv[])
{
    QStringList arguments;
    for (int i = 0; i < argc; ++i)
        arguments << QString::fromLocal8Bit(argv[i]);
    if (!parser.parse(arguments))
        return parser.errorText();
    if (parser.isSet(QStringLiteral("help")) || parser.isSet(QStringLiteral("version"))) {
        QCoreApplication core(argc, argv); // no display needed
        if (parser.isSet(QStringLiteral("help")))
            parser.showHelp(0);
        parser.showVersion();
    }
    return {};
}

/// The application object and the window; returns the event loop's exit code.
int runWindow(int argc, char* argv[], const nbody::app::CommandLine& commandLine)
{
    QApplication app(argc, argv);
    // The installed desktop entry and icon (cmake/Install.cmake); the compiled-in icon otherwise.
    QGuiApplication::setDesktopFileName(QStringLiteral(NBODY_APP_ID));
    QApplication::setWindowIcon(QIcon::fromTheme(QStringLiteral(NBODY_APP_ID),
                                                 QIcon(QStringLiteral(":/icons/" NBODY_APP_ID ".svg"))));
    nbody::app::registerMetaTypes();

    // The view is a QOpenGLWidget: on a display platform without OpenGL contexts (Qt's offscreen
    // and minimal platforms, a server without GLX) Qt 6.4 cannot draw it and crashes in its
    // backing store's flush, so the app asks for a context first and says why it cannot start.
    if (QOpenGLContext probe; !probe.create()) {
        std::fprintf(stderr,
                     "nbody-sandbox: the display platform '%s' gives no OpenGL context, and the view needs "
                     "one: run it on a desktop, or under xvfb-run (Mesa's llvmpipe draws without a GPU); "
                     "the command-line program nbody runs, renders and benchmarks without a display\n",
                     qPrintable(QGuiApplication::platformName()));
        return 1;
    }
    nbody::app::MainWindow window(commandLine.config, commandLine.automation);
    window.show();
    return QApplication::exec();
}

} // namespace

int main(int argc, char* argv[])
{
    // Ctrl+C, SIGTERM and SIGHUP leave no temporary files of saves in progress; a save beyond the
    // file-size limit (ulimit -f) is reported as such instead of ending the app (SIGXFSZ).
    nbody::installTemporaryFileCleanup();
    // Desktop OpenGL 3.3 core for every context, before the application object exists.
    nbody::app::setDefaultSurfaceFormat();
    // Before the options are read: they fall back on the settings these names locate.
    nbody::app::setApplicationNames();

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Interactive gravitational N-body simulator (CPU and CUDA kernels)."));
    parser.addHelpOption();
    parser.addVersionOption();
    nbody::app::addCommandLineOptions(parser);
    if (const QString error = parseArguments(parser, argc, argv); !error.isEmpty())
        return usageError(error);

    nbody::app::CommandLine commandLine;
    if (const QString error = nbody::app::readCommandLine(parser, commandLine); !error.isEmpty())
        return usageError(error);
    return runWindow(argc, argv, commandLine);
}
