#pragma once
/// \file AppCommandLine.h
/// The command line of nbody-sandbox, read into the first system (StartupConfig) and what is
/// asked beyond it (Automation). main() and the in-process GUI tests read it through the same
/// functions. Nothing here prints or exits: --help and --version are main()'s.

#include "MainWindow.h"
#include "SimulationController.h"

#include <QString>
#include <QStringList>

class QCommandLineParser;

namespace nbody::app {

/// What the command line asks for.
struct CommandLine {
    StartupConfig config;
    Automation automation;
};

/// Adds the app's options (--kernel … --no-settings), in the order --help lists them.
void addCommandLineOptions(QCommandLineParser& parser);

/// Reads the options of `parser`, which has parsed the arguments (addCommandLineOptions), into
/// `out`; with Automation::useSettings (neither --no-settings nor a scripted run) the remembered
/// kernel and scenario fill in what the options leave open (applyRememberedStart, AppSettings.h);
/// then it chooses the start system (chooseStartSystem). Returns the usage error ("unknown
/// kernel 'x' (known: …)"), empty when there is none.
QString readCommandLine(const QCommandLineParser& parser, CommandLine& out);

/// A parser of its own (without --help and --version) for `arguments` (the program's name
/// first), then readCommandLine. Returns the usage error, empty when there is none.
QString parseCommandLine(const QStringList& arguments, CommandLine& out);

} // namespace nbody::app
