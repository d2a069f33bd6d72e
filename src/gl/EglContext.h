#pragma once
/// \file EglContext.h
/// A headless OpenGL 3.3 core context through EGL: the EGL device platform
/// (EGL_EXT_platform_device: NVIDIA's driver on a GPU server, Mesa llvmpipe on a CPU machine),
/// falling back to Mesa's surfaceless platform. On NVIDIA it prefers the EGL device that is the
/// current CUDA device (EGL_NV_device_cuda) so CUDA-GL interop works.

#include <memory>
#include <string>

namespace nbody::gl {

class EglContext {
public:
    /// Creates the display and context and makes the context current on this thread.
    /// Tries the EGL devices (the CUDA device first, then other CUDA devices, DRM devices,
    /// Mesa's software device), Mesa's surfaceless platform, then EGL_DEFAULT_DISPLAY; the
    /// environment variable NBODY_EGL_PLATFORM=device|surfaceless|default allows only one.
    /// Throws GlError naming the step that failed on every platform tried.
    EglContext();
    /// As above, preferring the EGL device whose EGL_CUDA_DEVICE_NV is `preferredCudaDevice`
    /// (the default constructor prefers CUDA device 0).
    explicit EglContext(int preferredCudaDevice);
    ~EglContext();
    EglContext(const EglContext&) = delete;
    EglContext& operator=(const EglContext&) = delete;

    /// Makes the context current on the calling thread (released from any other first).
    /// Throws GlError.
    void makeCurrent();
    /// Releases the context from the calling thread if it is current there.
    void doneCurrent();
    /// "EGL device platform (device 0 of 2, /dev/dri/card1, CUDA device 0), EGL 1.5: NVIDIA
    /// Corporation / NVIDIA H200/PCIe/SSE2 / 3.3.0 NVIDIA 580…" (captured at creation).
    std::string description() const;
    /// The platform part of description(): "EGL device platform (device 0 of 2, …), EGL 1.5".
    std::string platform() const;
    /// The CUDA device of the EGL device in use (EGL_NV_device_cuda), −1 when not known.
    int cudaDevice() const;

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

} // namespace nbody::gl
