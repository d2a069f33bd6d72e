#pragma once
/// \file AppSettings.h
/// What the app remembers between sessions, kept by QSettings under the names AppSetup.h sets
/// (organisation "N-Body Sandbox", application "nbody-sandbox": on Linux the file
/// ~/.config/N-Body Sandbox/nbody-sandbox.conf, or under $XDG_CONFIG_HOME):
///
///   window/geometry, window/state   the window's size and place, its docks and toolbar
///                                   (QMainWindow::saveGeometry and saveState), written at close
///   start/scenario, start/bodies    the last scenario (a registry id or the absolute path of a
///                                   scenario file) and its N, written at close
///   start/kernel                    the kernel the user ran (not a scenario's own), written at close
///   view/…                          the View dock's values (ViewDock::values), written at close
///   autosave/intervalSeconds        the autosave's interval (Autosave.h), read only
///
/// main() reads them (readCommandLine) and the window reads and writes them only with
/// Automation::useSettings: not with --no-settings, nor in a scripted run (--capture, --record,
/// --quit), whose result depends on its command line alone.

class QSettings;

namespace nbody::app {

struct StartupConfig;

namespace settingsKey {
inline constexpr const char* kGeometry = "window/geometry";
inline constexpr const char* kState = "window/state";
inline constexpr const char* kScenario = "start/scenario";
inline constexpr const char* kBodies = "start/bodies";
inline constexpr const char* kKernel = "start/kernel";
inline constexpr const char* kViewGroup = "view";
} // namespace settingsKey

/// The remembered start where the command line leaves it open: the kernel unless --kernel was
/// given (and only a kernel of the registry that can run here), the scenario and its N unless
/// --scenario or --input was given (a scenario file only while it exists; --bodies still sets
/// N). A remembered kernel is not `kernelGiven`: a scenario with a kernel of its own (the Solar
/// System's fp64 `reference`) still runs on it.
void applyRememberedStart(StartupConfig& config, const QSettings& settings);

} // namespace nbody::app
