#pragma once
/// \file AppSetup.h
/// What a process must do before it shows a MainWindow: the app's main() and the in-process GUI
/// tests call the same functions, so the tests run the window as the app does.

namespace nbody::app {

/// Desktop OpenGL 3.3 core, 24-bit depth, vsync for every context. Call before the
/// QApplication exists (Qt reads the default format when it creates the first context).
void setDefaultSurfaceFormat();

/// The organisation and application names ("N-Body Sandbox", "nbody-sandbox") that QSettings
/// (AppSettings.h) and QStandardPaths (the autosave's folder, Autosave.h) are named after; the
/// display name and the version. Call once, before the first QSettings (it may precede the
/// QApplication).
void setApplicationNames();

/// Registers the types that travel through queued signals between MainWindow and the
/// SimulationController (FrameRequest, FrameResult, StartupConfig, SimParams).
void registerMetaTypes();

} // namespace nbody::app
