#pragma once
/// \file MachineInfo.h
/// "This machine" as ordered sections of (label, value, tooltip) rows: the CUDA runtime and
/// each device (sim/base/DeviceInfo.h), the OpenMP threads, and an OpenGL part the caller fills from
/// its own context (the app from its view's QOpenGLWidget context, `nbody devices` from a
/// headless EGL context). The Device dock, Help → About this machine and `nbody devices` all
/// print these rows, so they say the same thing. No Qt, no GL calls.

#include "sim/base/DeviceInfo.h"

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

namespace nbody {

struct MachineRow {
    std::string key;     ///< stable identifier for JSON and tests ("computeCapability")
    std::string label;   ///< "Compute capability"
    std::string value;   ///< everything a reader needs, including why not ("not in use: …")
    std::string tooltip; ///< what the row means ("" when the label says it all)
};

struct MachineSection {
    std::string key;   ///< "cuda", "cudaDevice0", "openmp", "opengl", …
    std::string title; ///< "CUDA", "CUDA device 0: NVIDIA H200", "CPU (OpenMP)", "OpenGL"
    std::vector<MachineRow> rows;

    /// The row with `key`, nullptr when absent.
    const MachineRow* row(const std::string& rowKey) const;
};

/// The OpenGL part, filled by whoever owns a context.
struct GlContextInfo {
    std::string context;  ///< which context: "the view's (Qt QOpenGLWidget, xcb)", "headless EGL: …"
    std::string vendor;   ///< glGetString(GL_VENDOR)
    std::string renderer; ///< glGetString(GL_RENDERER)
    std::string version;  ///< glGetString(GL_VERSION)
    std::string error;    ///< why there is no context ("" when there is one; then the strings are unused)
    /// true: the CLI's headless context (interop is *available* to `nbody run` / `nbody render`);
    /// false: the app's view (interop is *in use* or not for the positions drawn).
    bool headless = false;
    bool interop = false;     ///< CUDA-GL interop in use (view) or available (headless)
    std::string whyNoInterop; ///< why not ("" when interop is true)
};

/// The sections, in order: "cuda" (build, driver, runtime, device count or why none), one
/// "cudaDevice<i>" per device, "openmp" (threads, processors), "opengl". Never throws.
std::vector<MachineSection> describeMachine(const CudaRuntimeInfo& cuda, int openmpThreads, int openmpProcessors,
                                            const GlContextInfo& gl);
/// The same from queryCuda(), omp_get_max_threads() and omp_get_num_procs().
std::vector<MachineSection> describeMachine(const GlContextInfo& gl);

/// The text form: a title line per section, then "  label:  value" rows with the values aligned
/// in one column across all sections; a blank line between sections; ends with a newline.
std::string machineText(const std::vector<MachineSection>& sections);

/// [{"key", "title", "rows": [{"key", "label", "value", "tooltip"}]}] in the same order.
nlohmann::json machineJson(const std::vector<MachineSection>& sections);

/// "1.50 GiB", "48 KiB", "512 B": binary units, three significant digits.
std::string formatBytes(double bytes);

} // namespace nbody
