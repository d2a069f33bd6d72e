#pragma once
/// \file RenderCommand.h
/// `nbody render`: simulates a system headless (EGL) and writes a frame every K steps as
/// numbered PNG files in a directory or as an MP4 video through ffmpeg.

#include "Headless.h"

#include <string>

namespace nbody::cli {

struct RenderOptions {
    SystemOptions system;
    std::string kernel;        ///< empty: the fastest available (tiled, else cpu)
    LaunchOptions launch;       ///< --block-size … --unroll (0: auto)
    bool noTune = false;       ///< --no-tune: auto parameters take the defaults, nothing is measured
    int frames = 0;            ///< frames to write (≥ 1); frame 0 is the initial state
    int every = 1;             ///< steps between frames
    std::string size = "1280x720"; ///< WxH in pixels
    double fps = 30.0;         ///< frame rate of an MP4
    std::string out;           ///< a directory (PNG sequence) or FILE.mp4
    bool progress = true;      ///< progress bar on stderr
    bool energy = true;        ///< evaluate the energy (fp64) at the start, each tenth of the frames and the end
    double energyTolerance = kEnergyTolerance; ///< the largest |dE/E0| above this is warned about (checkEnergyTolerance)
    bool strict = false;       ///< exit 1 when the energy tolerance is exceeded
    std::string colour; ///< a row of gl::colourModes(): mass, speed, group; empty: group where the system has groups, else mass
};

/// Exit code: 0 success, 1 a failure while running (GPU error, a system that is no longer
/// finite, a failed write: what was written is kept readable, see gl/FrameSink.h; with --strict
/// an energy change beyond --energy-tolerance), 2 bad options
/// or input.
int renderCommand(const RenderOptions& o);

} // namespace nbody::cli
