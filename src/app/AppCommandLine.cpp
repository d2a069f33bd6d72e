/// \file AppCommandLine.cpp
/// The options of nbody-sandbox (see AppCommandLine.h and main.cpp's list).

#include "AppCommandLine.h"

#include "AppSettings.h"
#include "CaptureDialogs.h"

#include "sim/base/AtomicFile.h"
#include "sim/core/KernelRegistry.h"
#include "sim/core/ParamTable.h"
#include "sim/core/Scenario.h"
#include "sim/io/Scenarios.h"
#include "gl/ColourModes.h"
#include "gl/FrameSink.h"
#include "gl/Renderer.h"

#include <QCommandLineParser>
#include <QSettings>

#include <cmath>

namespace nbody::app {

namespace {

QString knownKernels()
{
    QStringList ids;
    for (const nbody::KernelInfo& k : nbody::kernelRegistry())
        ids << QString::fromUtf8(k.id.data(), static_cast<qsizetype>(k.id.size()));
    return ids.join(QStringLiteral(", "));
}

QStringList colourModeIds()
{
    QStringList modes;
    for (const nbody::gl::ColourMode& m : nbody::gl::colourModes())
        modes << QString::fromUtf8(m.id.data(), static_cast<qsizetype>(m.id.size()));
    return modes;
}

/// The command line's options, in the order --help lists them.
struct Options {
    QStringList modes = colourModeIds();
    QCommandLineOption kernel{QStringLiteral("kernel"), QStringLiteral("Force kernel (%1).").arg(knownKernels()),
                              QStringLiteral("ID"),
                              QString::fromUtf8(nbody::defaultKernelId().data(),
                                                qsizetype(nbody::defaultKernelId().size()))};
    QCommandLineOption bodies{QStringLiteral("bodies"),
                              QStringLiteral("Bodies in the start system (the galaxy collision; default: as many as the "
                                             "kernel steps 25 times a second) or in --scenario's."),
                              QStringLiteral("N")};
    QCommandLineOption input{QStringLiteral("input"),
                             QStringLiteral("Start from a snapshot (Tipsy, CSV or HDF5; detected from the content)."),
                             QStringLiteral("FILE")};
    QCommandLineOption scenario{QStringLiteral("scenario"),
                                QStringLiteral("Start from a scenario: a registry id (%1) or a scenario file (.json).")
                                    .arg(QString::fromStdString(nbody::knownScenarioIds())),
                                QStringLiteral("ID|FILE")};
    QCommandLineOption steps{QStringLiteral("steps"), QStringLiteral("Run K steps, then pause."), QStringLiteral("K"),
                             QStringLiteral("0")};
    QCommandLineOption dt{QStringLiteral("dt"),
                          QStringLiteral("Time step of the start system in place of its own (a positive number; "
                                         "Simulation > Reverse time runs backwards)."),
                          QStringLiteral("X")};
    QCommandLineOption stepsPerFrame{QStringLiteral("steps-per-frame"),
                                     QStringLiteral("Steps between drawn frames (1..1000)."), QStringLiteral("S"),
                                     QStringLiteral("1")};
    QCommandLineOption capture{QStringLiteral("capture"), QStringLiteral("After the steps, save a PNG of the view."),
                               QStringLiteral("FILE.png")};
    QCommandLineOption windowCapture{QStringLiteral("window-capture"),
                                     QStringLiteral("After the steps, save a PNG of the whole window."),
                                     QStringLiteral("FILE.png")};
    QCommandLineOption captureSize{QStringLiteral("capture-size"),
                                   QStringLiteral("Size of the capture (default: the view's)."), QStringLiteral("WxH")};
    QCommandLineOption record{QStringLiteral("record"),
                              QStringLiteral("Record from the start into a directory (PNG files) or FILE.mp4."),
                              QStringLiteral("TARGET")};
    QCommandLineOption recordEvery{QStringLiteral("record-every"), QStringLiteral("Steps between recorded frames."),
                                   QStringLiteral("K"), QStringLiteral("1")};
    QCommandLineOption recordSize{QStringLiteral("record-size"), QStringLiteral("Size of recorded frames."),
                                  QStringLiteral("WxH"), QStringLiteral("960x720")};
    QCommandLineOption colour{QStringLiteral("colour"),
                              QStringLiteral("Colour mode (%1; default: group where the system has groups, "
                                             "else mass).")
                                  .arg(modes.join(QStringLiteral(", "))),
                              QStringLiteral("MODE")};
    QCommandLineOption quit{QStringLiteral("quit"), QStringLiteral("Exit after the steps (and the capture).")};
    QCommandLineOption diagnostics{QStringLiteral("diagnostics-every"),
                                   QStringLiteral("Steps between diagnostics evaluations (0: none)."),
                                   QStringLiteral("M"), QStringLiteral("10")};

    QCommandLineOption noSettings{QStringLiteral("no-settings"),
                                  QStringLiteral("Start with the defaults: read and write no settings (the window's "
                                                 "layout, recent files, last scenario, kernel and view; a run with "
                                                 "--capture, --record or --quit uses none either).")};

    void addTo(QCommandLineParser& parser) const
    {
        parser.addOptions({kernel, bodies, input, scenario, steps, dt, stepsPerFrame, capture, windowCapture, captureSize, record,
                           recordEvery, recordSize, colour, quit, diagnostics, noSettings});
    }
};

/// --kernel, --bodies, --steps, --dt, --steps-per-frame, --diagnostics-every, --input and
/// --scenario into `config`. Returns the usage error, empty when there is none.
QString readStartupConfig(const QCommandLineParser& parser, const Options& o, StartupConfig& config)
{
    config.kernelId = parser.value(o.kernel);
    config.kernelGiven = parser.isSet(o.kernel);
    config.bodiesGiven = parser.isSet(o.bodies);
    const nbody::KernelInfo* kernel = nbody::findKernel(config.kernelId.toStdString());
    if (!kernel)
        return QStringLiteral("unknown kernel '%1' (known: %2)").arg(config.kernelId, knownKernels());
    if (const nbody::Availability a = nbody::availability(*kernel); !a.available)
        return QStringLiteral("kernel '%1' is not available here: %2")
            .arg(config.kernelId, QString::fromStdString(a.reason));

    bool ok = true;
    if (config.bodiesGiven)
        config.bodies = parser.value(o.bodies).toULongLong(&ok);
    if (!ok || config.bodies == 0 || config.bodies > nbody::kMaxBodies)
        return QStringLiteral("--bodies must be an integer in 1..%1, not '%2'")
            .arg(nbody::kMaxBodies)
            .arg(parser.value(o.bodies));
    config.stepsToRun = parser.value(o.steps).toInt(&ok);
    if (!ok || config.stepsToRun < 0)
        return QStringLiteral("--steps must be a non-negative integer, not '%1'").arg(parser.value(o.steps));
    if (parser.isSet(o.dt)) {
        // The value is the argument after --dt whatever it starts with (QCommandLineParser takes
        // it as the option's value), so "--dt -1" reaches this check, as `nbody`'s --dt does.
        const QString text = parser.value(o.dt);
        if (const std::string why = nbody::numberTextProblem(text.toStdString(), false); !why.empty())
            return QStringLiteral("--dt: %1%2")
                .arg(QString::fromStdString(why),
                     text.startsWith(QLatin1Char('-'))
                         ? QStringLiteral("; to run backwards in time, use Simulation > Reverse time")
                         : QString());
        config.dt = text.toDouble();
        if (static_cast<float>(config.dt) == 0.f || !std::isfinite(static_cast<float>(config.dt)))
            return QStringLiteral("--dt %1 is outside the range of fp32 (about 1.2e-38 to 3.4e38)").arg(text);
    }
    config.stepsPerFrame = parser.value(o.stepsPerFrame).toInt(&ok);
    if (!ok || config.stepsPerFrame < 1 || config.stepsPerFrame > 1000)
        return QStringLiteral("--steps-per-frame must be an integer in 1..1000, not '%1'")
            .arg(parser.value(o.stepsPerFrame));
    config.diagnosticsInterval = parser.value(o.diagnostics).toInt(&ok);
    if (!ok || config.diagnosticsInterval < 0)
        return QStringLiteral("--diagnostics-every must be a non-negative integer, not '%1'")
            .arg(parser.value(o.diagnostics));
    config.inputFile = parser.value(o.input);
    config.scenario = parser.value(o.scenario);
    if (!config.scenario.isEmpty() && !config.inputFile.isEmpty())
        return QStringLiteral("--scenario and --input both name the bodies: give one");
    config.startRunning = config.stepsToRun > 0;
    return {};
}

/// --capture, --capture-size and --quit into `automation`. Returns the usage error, empty when
/// there is none.
QString readCapture(const QCommandLineParser& parser, const Options& o, Automation& automation)
{
    automation.capturePath = parser.value(o.capture);
    automation.quit = parser.isSet(o.quit);
    if (!automation.capturePath.isEmpty()) {
        // Refuse an unwritable target before simulating anything (and never replace a device).
        if (const nbody::WriteTarget t = nbody::resolveWriteTarget(automation.capturePath.toStdString());
            !t.problem.empty())
            return QStringLiteral("cannot write the capture '%1': %2")
                .arg(automation.capturePath, QString::fromStdString(t.problem));
    }

    automation.windowCapturePath = parser.value(o.windowCapture);
    if (!automation.windowCapturePath.isEmpty()) {
        if (!automation.windowCapturePath.endsWith(QStringLiteral(".png"), Qt::CaseInsensitive))
            return QStringLiteral("--window-capture writes PNG: give a name ending in .png");
        if (const nbody::WriteTarget t = nbody::resolveWriteTarget(automation.windowCapturePath.toStdString());
            !t.problem.empty())
            return QStringLiteral("cannot write the window capture '%1': %2")
                .arg(automation.windowCapturePath, QString::fromStdString(t.problem));
    }

    if (parser.isSet(o.captureSize)) {
        const auto size = parseFrameSize(parser.value(o.captureSize));
        if (!size)
            return QStringLiteral("--capture-size must be WxH with both in 16..16384, not '%1'")
                .arg(parser.value(o.captureSize));
        automation.captureSize = *size;
    }
    if (!automation.capturePath.isEmpty() &&
        nbody::gl::imageFormatFor(automation.capturePath.toStdString()) == nbody::gl::ImageFormat::Unknown)
        return QStringLiteral("--capture writes PNG or JPEG: give a name ending in .png, .jpg or .jpeg");
    return {};
}

/// --record, --record-every, --record-size and --colour into `automation`. Returns the usage
/// error, empty when there is none.
QString readRecording(const QCommandLineParser& parser, const Options& o, Automation& automation)
{
    bool ok = true;
    automation.recordTarget = parser.value(o.record);
    automation.recordEvery = parser.value(o.recordEvery).toInt(&ok);
    if (!ok || automation.recordEvery < 1)
        return QStringLiteral("--record-every must be a positive integer, not '%1'").arg(parser.value(o.recordEvery));
    const auto recordSize = parseFrameSize(parser.value(o.recordSize));
    if (!recordSize)
        return QStringLiteral("--record-size must be WxH with both in 16..16384, not '%1'")
            .arg(parser.value(o.recordSize));
    automation.recordSize = *recordSize;
    // Checked here, before a window opens, as a bad --capture is: the same checks as the
    // recording's start (openFrameSink), which still refuses what changed in between.
    if (!automation.recordTarget.isEmpty())
        if (const std::string problem = nbody::gl::recordTargetProblem(automation.recordTarget.toStdString());
            !problem.empty())
            return QStringLiteral("cannot record to '%1': %2")
                .arg(automation.recordTarget, QString::fromStdString(problem));

    automation.colourMode = parser.value(o.colour); // empty: the system's default (ViewDock::suggestColourMode)
    if (!automation.colourMode.isEmpty() && !nbody::gl::findColourMode(automation.colourMode.toStdString()))
        return QStringLiteral("unknown colour mode '%1' (known: %2)")
            .arg(automation.colourMode, o.modes.join(QStringLiteral(", ")));
    return {};
}

} // namespace

void addCommandLineOptions(QCommandLineParser& parser)
{
    const Options options;
    options.addTo(parser);
}

QString readCommandLine(const QCommandLineParser& parser, CommandLine& out)
{
    if (!parser.positionalArguments().isEmpty())
        return QStringLiteral("unexpected argument '%1'").arg(parser.positionalArguments().first());
    const Options options;
    if (const QString error = readStartupConfig(parser, options, out.config); !error.isEmpty())
        return error;
    if (const QString error = readCapture(parser, options, out.automation); !error.isEmpty())
        return error;
    if (const QString error = readRecording(parser, options, out.automation); !error.isEmpty())
        return error;
    // A scripted run depends on its command line alone; --no-settings asks for the defaults.
    out.automation.useSettings = !parser.isSet(options.noSettings) && !out.automation.active();
    if (out.automation.useSettings)
        applyRememberedStart(out.config, QSettings());
    chooseStartSystem(out.config); // the galaxy collision, sized for the kernel
    return {};
}

QString parseCommandLine(const QStringList& arguments, CommandLine& out)
{
    QCommandLineParser parser;
    addCommandLineOptions(parser);
    if (!parser.parse(arguments))
        return parser.errorText();
    return readCommandLine(parser, out);
}

} // namespace nbody::app
