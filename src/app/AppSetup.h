#pragma once
/// \file AppSetup.h
/// What a process must do before it shows a MainWindow: the app's main() and the in-process GUI
/// test call the same two functions, so the test runs the window as the app does.

namespace nbody::app {

/// Desktop OpenGL 3.3 core, 24-bit depth, vsync for every context. Call before the
/// QApplication exists (Qt reads the default format when it creates the first context).
void setDefaultSurfaceFormat();

/// Registers the types that travel through queued signals between MainWindow and the
/// SimulationController (FrameRequest, FrameResult, StartupConfig, SimParams).
void registerMetaTypes();

} // namespace nbody::app
