// `nbody devices`: the rows of sim/base/MachineInfo.h (the same as the app's Device dock), with the
// OpenGL part from a headless EGL context set up as `nbody run --capture` and `nbody render` do.
#include "Commands.h"

#include "gl/CudaGlInterop.h"
#include "gl/EglContext.h"
#include "gl/Renderer.h"
#include "sim/base/MachineInfo.h"

#include <nlohmann/json.hpp>

#include <omp.h>

#include <cstdio>
#include <iostream>
#include <memory>

namespace nbody::cli {

namespace {

/// The headless context as `nbody run` / `nbody render` make it (HeadlessView, Headless.h): the EGL
/// context, the two particle buffers, and the same CudaGlInterop::create that decides whether
/// the kernels write into them. `description` gets EglContext::description().
GlContextInfo headlessGl(std::string* description)
{
    GlContextInfo gl;
    gl.headless = true;
    try {
        gl::EglContext context; // current on this thread
        *description = context.description();
        const gl::Renderer::ContextStrings s = gl::Renderer::contextStrings();
        gl.context = "headless EGL: " + context.platform();
        gl.vendor = s.vendor;
        gl.renderer = s.renderer;
        gl.version = s.version;
        gl::ParticleBuffers buffers;
        buffers.allocate(1);
        const std::unique_ptr<gl::CudaGlInterop> interop = gl::CudaGlInterop::create(buffers, &gl.whyNoInterop);
        gl.interop = interop != nullptr;
        if (gl.interop && context.cudaDevice() >= 0)
            gl.context += " (on CUDA device " + std::to_string(context.cudaDevice()) + ")";
        else if (!gl.interop && gl.whyNoInterop.empty())
            gl.whyNoInterop = "CUDA-GL interop unavailable";
    } catch (const std::exception& e) {
        gl.error = e.what();
        gl.interop = false;
        gl.whyNoInterop = "no OpenGL context";
    }
    return gl;
}

nlohmann::json deviceJson(const CudaDeviceInfo& d)
{
    return {{"index", d.index},
            {"name", d.name},
            {"computeCapability", std::to_string(d.major) + "." + std::to_string(d.minor)},
            {"multiprocessors", d.multiprocessors},
            {"globalMemoryBytes", d.globalMemoryBytes},
            {"sharedMemoryPerBlock", d.sharedMemoryPerBlock},
            {"sharedMemoryPerBlockOptin", d.sharedMemoryPerBlockOptin},
            {"maxThreadsPerBlock", d.maxThreadsPerBlock},
            {"warpSize", d.warpSize},
            {"clockKHz", d.clockKHz},
            {"memoryClockKHz", d.memoryClockKHz},
            {"memoryBusWidthBits", d.memoryBusWidthBits},
            {"peakMemoryBandwidthBytesPerSecond", peakMemoryBandwidth(d)},
            {"l2CacheBytes", d.l2CacheBytes},
            {"eccEnabled", d.eccEnabled},
            {"pciBusId", d.pciBusId},
            {"integrated", d.integrated},
            {"concurrentManagedAccess", d.concurrentManagedAccess},
            {"kernelTimeout", d.kernelTimeout}};
}

} // namespace

int devicesCommand(bool json)
{
    const CudaRuntimeInfo cuda = queryCuda();
    const int threads = omp_get_max_threads();
    const int processors = omp_get_num_procs();
    std::string eglDescription;
    const GlContextInfo gl = headlessGl(&eglDescription);
    const std::vector<MachineSection> sections = describeMachine(cuda, threads, processors, gl);
    if (!json) {
        std::fputs(machineText(sections).c_str(), stdout);
        return 0;
    }
    // The rows, and the raw values for scripts (numbers in base units).
    nlohmann::json out;
    out["sections"] = machineJson(sections);
    out["builtWithCuda"] = cuda.builtWithCuda;
    out["driverVersion"] = cudaVersionString(cuda.driverVersion);
    out["runtimeVersion"] = cudaVersionString(cuda.runtimeVersion);
    out["whyNoDevice"] = cuda.whyNone;
    nlohmann::json devs = nlohmann::json::array();
    for (const CudaDeviceInfo& d : cuda.devices)
        devs.push_back(deviceJson(d));
    out["cudaDevices"] = devs;
    out["openmpThreads"] = threads;
    out["openmpProcessors"] = processors;
    out["headlessOpenGL"] = eglDescription;
    out["headlessOpenGLError"] = gl.error;
    out["openGL"] = {{"vendor", gl.vendor},     {"renderer", gl.renderer},
                     {"version", gl.version},   {"interopAvailable", gl.interop},
                     {"whyNoInterop", gl.whyNoInterop}};
    std::cout << out.dump(2) << "\n";
    return 0;
}

} // namespace nbody::cli
