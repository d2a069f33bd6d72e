/// \file main.cpp
/// nbody-sandbox: the desktop app. Options:
///   --kernel ID            force kernel (see the Kernel menu / `nbody kernels`), default cpu
///   --bodies N             size of the start system (the galaxy collision), default: sized for the kernel
///   --input FILE           start from a snapshot (Tipsy, CSV or HDF5) instead
///   --scenario ID|FILE     start from a scenario (registry id or JSON file) instead
///   --steps K              run K steps, then pause
///   --steps-per-frame S    steps between drawn frames (1..1000)
///   --capture FILE         after the K steps, save the view as PNG or JPEG (offscreen)
///   --capture-size WxH     its size (default: the view's size in device pixels)
///   --record TARGET        record from the start: a directory (PNG files) or FILE.mp4
///   --record-every K       steps between recorded frames (default 1)
///   --record-size WxH      recorded frame size (default 960x720)
///   --colour MODE          colour mode: mass, speed, group (default: group where the system has groups, else mass)
///   --quit                 exit after that (0 on success; 1 when something failed; 2 for bad
///                          options such as an unknown kernel)

#include "AppSetup.h"
#include "CaptureDialogs.h"
#include "FrameProtocol.h"
#include "MainWindow.h"
#include "SimulationController.h"

#include "sim/core/KernelRegistry.h"
#include "sim/core/Scenario.h"

#include <QApplication>
#include "gl/ColourModes.h"
#include "gl/Renderer.h"
#include "sim/base/AtomicFile.h"

#include <QCommandLineParser>

#include <cstdio>
#include <string>

namespace {

int usageError(const QString& message)
{
    std::fprintf(stderr, "nbody-sandbox: %s\n", qPrintable(message));
    return 2;
}

QString knownKernels()
{
    QStringList ids;
    for (const nbody::KernelInfo& k : nbody::kernelRegistry())
        ids << QString::fromUtf8(k.id.data(), static_cast<qsizetype>(k.id.size()));
    return ids.join(QStringLiteral(", "));
}

} // namespace

int main(int argc, char* argv[])
{
    // Desktop OpenGL 3.3 core for every context, before the application object exists.
    nbody::app::setDefaultSurfaceFormat();

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Interactive gravitational N-body simulator (CPU and CUDA kernels)."));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption kernelOpt(QStringLiteral("kernel"),
                                       QStringLiteral("Force kernel (%1).").arg(knownKernels()),
                                       QStringLiteral("ID"), QString::fromUtf8(nbody::defaultKernelId().data(),
                                                                               qsizetype(nbody::defaultKernelId().size())));
    const QCommandLineOption bodiesOpt(QStringLiteral("bodies"),
                                       QStringLiteral("Bodies in the start system (the galaxy collision; default: as many as the "
                                                      "kernel steps 25 times a second) or in --scenario's."),
                                       QStringLiteral("N"));
    const QCommandLineOption inputOpt(QStringLiteral("input"),
                                      QStringLiteral("Start from a snapshot (Tipsy, CSV or HDF5; detected from the content)."),
                                      QStringLiteral("FILE"));
    const QCommandLineOption scenarioOpt(QStringLiteral("scenario"),
                                         QStringLiteral("Start from a scenario: a registry id (cube, plummer, "
                                                        "disk-galaxy, galaxy-collision, solar-system, figure-eight) "
                                                        "or a scenario file (.json)."),
                                         QStringLiteral("ID|FILE"));
    const QCommandLineOption stepsOpt(QStringLiteral("steps"),
                                      QStringLiteral("Run K steps, then pause."),
                                      QStringLiteral("K"), QStringLiteral("0"));
    const QCommandLineOption spfOpt(QStringLiteral("steps-per-frame"),
                                    QStringLiteral("Steps between drawn frames (1..1000)."),
                                    QStringLiteral("S"), QStringLiteral("1"));
    const QCommandLineOption captureOpt(QStringLiteral("capture"),
                                        QStringLiteral("After the steps, save a PNG of the view."),
                                        QStringLiteral("FILE.png"));
    const QCommandLineOption captureSizeOpt(QStringLiteral("capture-size"),
                                            QStringLiteral("Size of the capture (default: the view's)."),
                                            QStringLiteral("WxH"));
    const QCommandLineOption recordOpt(QStringLiteral("record"),
                                       QStringLiteral("Record from the start into a directory (PNG files) or FILE.mp4."),
                                       QStringLiteral("TARGET"));
    const QCommandLineOption recordEveryOpt(QStringLiteral("record-every"),
                                            QStringLiteral("Steps between recorded frames."), QStringLiteral("K"),
                                            QStringLiteral("1"));
    const QCommandLineOption recordSizeOpt(QStringLiteral("record-size"),
                                           QStringLiteral("Size of recorded frames."), QStringLiteral("WxH"),
                                           QStringLiteral("960x720"));
    QStringList modes;
    for (const nbody::gl::ColourMode& m : nbody::gl::colourModes())
        modes << QString::fromUtf8(m.id.data(), static_cast<qsizetype>(m.id.size()));
    const QCommandLineOption colourOpt(QStringLiteral("colour"),
                                       QStringLiteral("Colour mode (%1; default: group where the system has groups, "
                                                      "else mass).")
                                           .arg(modes.join(QStringLiteral(", "))),
                                       QStringLiteral("MODE"));
    const QCommandLineOption quitOpt(QStringLiteral("quit"),
                                     QStringLiteral("Exit after the steps (and the capture)."));
    const QCommandLineOption diagnosticsOpt(QStringLiteral("diagnostics-every"),
                                            QStringLiteral("Steps between diagnostics evaluations (0: none)."),
                                            QStringLiteral("M"), QStringLiteral("10"));
    parser.addOptions({kernelOpt, bodiesOpt, inputOpt, scenarioOpt, stepsOpt, spfOpt, captureOpt, captureSizeOpt, recordOpt,
                       recordEveryOpt, recordSizeOpt, colourOpt, quitOpt, diagnosticsOpt});
    // Parsed before the QApplication exists, so bad options are reported without a display.
    QStringList arguments;
    for (int i = 0; i < argc; ++i)
        arguments << QString::fromLocal8Bit(argv[i]);
    if (!parser.parse(arguments))
        return usageError(parser.errorText());
    if (parser.isSet(QStringLiteral("help")) || parser.isSet(QStringLiteral("version"))) {
        QCoreApplication core(argc, argv); // no display needed
        QCoreApplication::setApplicationName(QStringLiteral("nbody-sandbox"));
        QCoreApplication::setApplicationVersion(QStringLiteral(NBODY_VERSION));
        if (parser.isSet(QStringLiteral("help")))
            parser.showHelp(0);
        parser.showVersion();
    }
    if (!parser.positionalArguments().isEmpty())
        return usageError(QStringLiteral("unexpected argument '%1'").arg(parser.positionalArguments().first()));

    nbody::app::StartupConfig config;
    config.kernelId = parser.value(kernelOpt);
    config.kernelGiven = parser.isSet(kernelOpt);
    config.bodiesGiven = parser.isSet(bodiesOpt);
    const nbody::KernelInfo* kernel = nbody::findKernel(config.kernelId.toStdString());
    if (!kernel)
        return usageError(QStringLiteral("unknown kernel '%1' (known: %2)").arg(config.kernelId, knownKernels()));
    if (const nbody::Availability a = nbody::availability(*kernel); !a.available)
        return usageError(QStringLiteral("kernel '%1' is not available here: %2")
                              .arg(config.kernelId, QString::fromStdString(a.reason)));

    bool ok = true;
    if (config.bodiesGiven)
        config.bodies = parser.value(bodiesOpt).toULongLong(&ok);
    if (!ok || config.bodies == 0 || config.bodies > nbody::kMaxBodies)
        return usageError(QStringLiteral("--bodies must be an integer in 1..%1, not '%2'")
                              .arg(nbody::kMaxBodies).arg(parser.value(bodiesOpt)));
    config.stepsToRun = parser.value(stepsOpt).toInt(&ok);
    if (!ok || config.stepsToRun < 0)
        return usageError(QStringLiteral("--steps must be a non-negative integer, not '%1'")
                              .arg(parser.value(stepsOpt)));
    config.stepsPerFrame = parser.value(spfOpt).toInt(&ok);
    if (!ok || config.stepsPerFrame < 1 || config.stepsPerFrame > 1000)
        return usageError(QStringLiteral("--steps-per-frame must be an integer in 1..1000, not '%1'")
                              .arg(parser.value(spfOpt)));
    config.diagnosticsInterval = parser.value(diagnosticsOpt).toInt(&ok);
    if (!ok || config.diagnosticsInterval < 0)
        return usageError(QStringLiteral("--diagnostics-every must be a non-negative integer, not '%1'")
                              .arg(parser.value(diagnosticsOpt)));
    config.inputFile = parser.value(inputOpt);
    config.scenario = parser.value(scenarioOpt);
    if (!config.scenario.isEmpty() && !config.inputFile.isEmpty())
        return usageError(QStringLiteral("--scenario and --input both name the bodies: give one"));
    config.startRunning = config.stepsToRun > 0;
    nbody::app::chooseStartSystem(config); // the galaxy collision, sized for the kernel

    nbody::app::Automation automation;
    automation.capturePath = parser.value(captureOpt);
    automation.quit = parser.isSet(quitOpt);
    if (!automation.capturePath.isEmpty()) {
        // Refuse an unwritable target before simulating anything (and never replace a device).
        if (const nbody::WriteTarget t = nbody::resolveWriteTarget(automation.capturePath.toStdString());
            !t.problem.empty())
            return usageError(QStringLiteral("cannot write the capture '%1': %2")
                                  .arg(automation.capturePath, QString::fromStdString(t.problem)));
    }

    if (parser.isSet(captureSizeOpt)) {
        const auto size = nbody::app::parseFrameSize(parser.value(captureSizeOpt));
        if (!size)
            return usageError(QStringLiteral("--capture-size must be WxH with both in 16..16384, not '%1'")
                                  .arg(parser.value(captureSizeOpt)));
        automation.captureSize = *size;
    }
    if (!automation.capturePath.isEmpty() &&
        nbody::gl::imageFormatFor(automation.capturePath.toStdString()) == nbody::gl::ImageFormat::Unknown)
        return usageError(QStringLiteral("--capture writes PNG or JPEG: give a name ending in .png, .jpg or .jpeg"));
    automation.recordTarget = parser.value(recordOpt);
    automation.recordEvery = parser.value(recordEveryOpt).toInt(&ok);
    if (!ok || automation.recordEvery < 1)
        return usageError(QStringLiteral("--record-every must be a positive integer, not '%1'")
                              .arg(parser.value(recordEveryOpt)));
    const auto recordSize = nbody::app::parseFrameSize(parser.value(recordSizeOpt));
    if (!recordSize)
        return usageError(QStringLiteral("--record-size must be WxH with both in 16..16384, not '%1'")
                              .arg(parser.value(recordSizeOpt)));
    automation.recordSize = *recordSize;

    automation.colourMode = parser.value(colourOpt); // empty: the system's default (ViewDock::suggestColourMode)
    if (!automation.colourMode.isEmpty() && !nbody::gl::findColourMode(automation.colourMode.toStdString()))
        return usageError(QStringLiteral("unknown colour mode '%1' (known: %2)")
                              .arg(automation.colourMode, modes.join(QStringLiteral(", "))));

    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("nbody-sandbox"));
    QApplication::setApplicationDisplayName(QStringLiteral("N-Body Sandbox"));
    QApplication::setApplicationVersion(QStringLiteral(NBODY_VERSION));
    QApplication::setOrganizationName(QStringLiteral("N-Body Sandbox"));

    nbody::app::registerMetaTypes();

    nbody::app::MainWindow window(config, automation);
    window.show();
    return QApplication::exec();
}
