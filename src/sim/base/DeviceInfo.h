#pragma once
/// \file DeviceInfo.h
/// What the CUDA runtime reports about the devices (empty in a CPU-only build).

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nbody {

struct CudaDeviceInfo {
    int index = 0;
    std::string name;
    int major = 0, minor = 0;            ///< compute capability
    int multiprocessors = 0;
    std::size_t globalMemoryBytes = 0;
    std::size_t sharedMemoryPerBlock = 0; ///< bytes, default limit (opt-in limit below)
    std::size_t sharedMemoryPerBlockOptin = 0;
    int maxThreadsPerBlock = 0;
    int warpSize = 0;
    int clockKHz = 0;                    ///< SM clock
    int memoryClockKHz = 0;
    int memoryBusWidthBits = 0;
    bool kernelTimeout = false;          ///< the kernel-execution watchdog is on (display GPU)
    std::size_t l2CacheBytes = 0;
    bool eccEnabled = false;
    bool integrated = false;             ///< an integrated GPU sharing memory with the host (Jetson)
    bool concurrentManagedAccess = false; ///< CPU and GPU may touch managed memory at the same time
    std::string pciBusId;                ///< "0000:18:00.0" ("" when not reported)
    /// Why this build's CUDA kernels cannot run on this device ("" when they can, as far as the
    /// architectures they were compiled for tell: whyNoCudaCode)
    std::string whyNoCode;
};

/// Theoretical peak memory bandwidth in bytes per second: 2 × memory clock × bus width / 8
/// (double data rate; the CUDA samples' bandwidthTest formula). 0 when the clock or width is unknown.
double peakMemoryBandwidth(const CudaDeviceInfo& d);

struct CudaRuntimeInfo {
    bool builtWithCuda = false;
    int driverVersion = 0;  ///< e.g. 13000 for 13.0; 0 when there is no driver
    int runtimeVersion = 0;
    std::vector<CudaDeviceInfo> devices;
    std::string whyNone;    ///< why there is no usable device ("" when there is one)
};

/// Queries the runtime once per call; never throws (errors go to whyNone). Creates no CUDA context.
CudaRuntimeInfo queryCuda();

/// The CUDA architectures this build's kernels were compiled for, as CMake was given them
/// ("75-real;80-real;…;120-real;120-virtual"); "" in a CPU-only build.
std::string builtCudaArchitectures();

/// Why code compiled for `built` (a CMake CUDA_ARCHITECTURES list) cannot run on a device of
/// compute capability major.minor, with the fix; "" when it can. The rules are those of the
/// CUDA C++ Programming Guide ("Binary Compatibility", "PTX Compatibility"): machine code for
/// sm_XY (entries "XY-real" and "XY") runs on X.Z for every Z ≥ Y of the same major X; the
/// arch-specific sm_XYa only on X.Y; PTX for compute_XY ("XY-virtual" and "XY") is compiled by
/// the driver for any capability ≥ X.Y. A list CMake resolves itself ("all", "native", …) gives
/// "" (the load probe at the first CUDA kernel decides then). Example: whyNoCudaCode(8, 9,
/// "90-real;90-virtual") is "built for sm_90 and compute_90 PTX; this GPU is sm_89: rebuild with
/// -DNBODY_CUDA_ARCHITECTURES=89".
std::string whyNoCudaCode(int major, int minor, std::string_view built);

/// Why no CUDA kernel of this build can run on the device, "" when they can: queryCuda().whyNone
/// (no build with CUDA, no driver or device), else device 0's whyNoCode (the architectures the
/// build has code for, DeviceInfo.h whyNoCudaCode), else a failing load of the kernels' module
/// (gpu::probeKernelImage, kernels/KernelImage.h: e.g. a driver too old for the PTX). Asked once per process; the
/// probe creates the CUDA context, so it runs only when a device with code for it is present.
const std::string& cudaKernelsUnavailable();

/// Why a CUDA row of a registry (a force kernel, a contact search: `what` and `id` name it in the
/// message) cannot run now, "" when it can: cudaKernelsUnavailable(), else no launcher in this
/// build (`hasLauncher` false), else a lost CUDA context (cudaContextLost). The one check of
/// both registries' availability().
std::string whyCudaRowUnavailable(bool hasLauncher, std::string_view what, std::string_view id);

/// cudaKernelsUnavailable() when a CUDA device is present (a GPU this build has no code for, or
/// whose driver cannot load it: worth telling the user), "" otherwise, also without any device.
const std::string& cudaDeviceWithoutCode();

/// The current device's memory as cudaMemGetInfo reports it (the whole device: every process's
/// allocations and the contexts' own reservations count as used).
struct DeviceMemory {
    std::size_t freeBytes = 0, totalBytes = 0;
    std::size_t usedBytes() const { return totalBytes - freeBytes; }
};
/// cudaMemGetInfo on the current device; false (and *out untouched) in a CPU-only build or when
/// the call fails (the error is cleared). Creates the CUDA context if there is none yet: call it
/// only where a CUDA kernel is in use. Never throws.
bool deviceMemory(DeviceMemory* out);

/// The current device when its kernel-execution watchdog is on (a GPU that drives a display),
/// else nullopt (no watchdog, no device, a CPU-only build). Asked once per process. Never throws.
std::optional<CudaDeviceInfo> watchdogDevice();

/// "13.0" from 13000.
std::string cudaVersionString(int v);

/// Records that the process's CUDA context is lost (a sticky error such as
/// cudaErrorIllegalAddress: every later CUDA call fails). From then on availability() of every
/// CUDA row (kernels, contact searches) is false with "the CUDA context was lost after a GPU fault (<why>); …". The first
/// reason stays. Thread-safe.
void markCudaContextLost(const std::string& why);
/// The reason given to markCudaContextLost(), "" while the context is not known to be lost.
std::string cudaContextLost();

} // namespace nbody
