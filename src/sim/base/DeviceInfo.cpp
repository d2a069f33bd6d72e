#include "sim/base/DeviceInfo.h"

#include <algorithm>
#include <charconv>
#include <mutex>
#include <string>
#include <vector>

#if NBODY_HAVE_CUDA
#include "kernels/KernelImage.h"

#include <cuda_runtime_api.h>
#endif

namespace nbody {

std::string cudaVersionString(int v)
{
    if (v <= 0)
        return "none";
    return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

std::string builtCudaArchitectures()
{
#if NBODY_HAVE_CUDA && defined(NBODY_CUDA_ARCHITECTURES_BUILT)
    std::string s = NBODY_CUDA_ARCHITECTURES_BUILT; // CMake's list with ',' for ';'
    std::replace(s.begin(), s.end(), ',', ';');
    return s;
#else
    return {};
#endif
}

namespace {

/// One entry of a CMake CUDA_ARCHITECTURES list: "90", "90-real", "90-virtual", "90a-real".
struct ArchEntry {
    int major = 0, minor = 0;
    char suffix = 0; ///< 'a' (arch-specific), 'f' (family-specific) or 0
    bool real = false, virt = false;
};

/// false for what is not a number with an optional suffix ("all", "native", "all-major").
bool parseArch(std::string_view e, ArchEntry* out)
{
    ArchEntry a;
    std::string_view kind;
    if (const auto dash = e.find('-'); dash != std::string_view::npos) {
        kind = e.substr(dash + 1);
        e = e.substr(0, dash);
    }
    if (!e.empty() && (e.back() == 'a' || e.back() == 'f')) {
        a.suffix = e.back();
        e.remove_suffix(1);
    }
    int n = 0;
    const auto [end, ec] = std::from_chars(e.data(), e.data() + e.size(), n);
    if (ec != std::errc() || end != e.data() + e.size() || n < 10)
        return false;
    a.major = n / 10;
    a.minor = n % 10;
    a.real = kind.empty() || kind == "real";
    a.virt = kind.empty() || kind == "virtual";
    if (!a.real && !a.virt)
        return false;
    *out = a;
    return true;
}

std::string archName(const ArchEntry& a, const char* prefix)
{
    std::string s = prefix + std::to_string(a.major * 10 + a.minor);
    if (a.suffix)
        s += a.suffix;
    return s;
}

} // namespace

std::string whyNoCudaCode(int major, int minor, std::string_view built)
{
    std::vector<ArchEntry> entries;
    std::size_t start = 0;
    while (start <= built.size()) {
        const std::size_t end = std::min(built.find(';', start), built.size());
        if (const std::string_view e = built.substr(start, end - start); !e.empty()) {
            ArchEntry a;
            if (!parseArch(e, &a))
                return {}; // resolved by CMake ("native", "all"): the load probe decides
            entries.push_back(a);
        }
        start = end + 1;
    }
    if (entries.empty())
        return {};
    const int device = major * 10 + minor;
    for (const ArchEntry& a : entries) {
        const int arch = a.major * 10 + a.minor;
        if (a.real) {
            const bool runs = a.suffix == 'a' ? arch == device : a.major == major && a.minor <= minor;
            if (runs)
                return {};
        }
        if (a.virt && a.suffix == 0 && arch <= device)
            return {};
    }
    std::string real, ptx;
    for (const ArchEntry& a : entries) {
        if (a.real)
            real += (real.empty() ? "" : ", ") + archName(a, "sm_");
        if (a.virt)
            ptx += (ptx.empty() ? "" : ", ") + archName(a, "compute_");
    }
    std::string what = real.empty() ? "" : real;
    if (!ptx.empty())
        what += (what.empty() ? "" : " and ") + ptx + " PTX";
    return "built for " + what + "; this GPU is sm_" + std::to_string(device) +
           ": rebuild with -DNBODY_CUDA_ARCHITECTURES=" + std::to_string(device);
}

double peakMemoryBandwidth(const CudaDeviceInfo& d)
{
    return 2.0 * double(d.memoryClockKHz) * 1e3 * double(d.memoryBusWidthBits) / 8.0;
}

std::optional<CudaDeviceInfo> watchdogDevice()
{
#if NBODY_HAVE_CUDA
    static const std::optional<CudaDeviceInfo> watched = []() -> std::optional<CudaDeviceInfo> {
        int device = 0, timeout = 0;
        if (cudaGetDevice(&device) != cudaSuccess ||
            cudaDeviceGetAttribute(&timeout, cudaDevAttrKernelExecTimeout, device) != cudaSuccess || timeout == 0) {
            (void)cudaGetLastError();
            return std::nullopt;
        }
        for (const CudaDeviceInfo& d : queryCuda().devices)
            if (d.index == device)
                return d;
        return std::nullopt;
    }();
    return watched;
#else
    return std::nullopt;
#endif
}

bool deviceMemory(DeviceMemory* out)
{
#if NBODY_HAVE_CUDA
    std::size_t freeBytes = 0, totalBytes = 0;
    if (cudaMemGetInfo(&freeBytes, &totalBytes) != cudaSuccess) {
        (void)cudaGetLastError();
        return false;
    }
    out->freeBytes = freeBytes;
    out->totalBytes = totalBytes;
    return true;
#else
    (void)out;
    return false;
#endif
}

CudaRuntimeInfo queryCuda()
{
    CudaRuntimeInfo info;
#if NBODY_HAVE_CUDA
    info.builtWithCuda = true;
    cudaDriverGetVersion(&info.driverVersion);
    cudaRuntimeGetVersion(&info.runtimeVersion);
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        if (e == cudaErrorNoDevice)
            info.whyNone = "no CUDA device is present";
        else if (e == cudaErrorInsufficientDriver)
            info.whyNone = "no usable CUDA driver (the NVIDIA driver is missing or older than the CUDA " +
                           cudaVersionString(info.runtimeVersion) + " runtime)";
        else
            info.whyNone = std::string("no CUDA device: ") + cudaGetErrorName(e) + ": " + cudaGetErrorString(e);
        cudaGetLastError(); // clear the sticky-free error state
        return info;
    }
    if (count == 0) {
        info.whyNone = "no CUDA device: cudaGetDeviceCount reports 0 devices";
        return info;
    }
    for (int d = 0; d < count; ++d) {
        cudaDeviceProp p{};
        if (cudaGetDeviceProperties(&p, d) != cudaSuccess)
            continue;
        CudaDeviceInfo di;
        di.index = d;
        di.name = p.name;
        di.major = p.major;
        di.minor = p.minor;
        di.multiprocessors = p.multiProcessorCount;
        di.globalMemoryBytes = p.totalGlobalMem;
        di.sharedMemoryPerBlock = p.sharedMemPerBlock;
        di.sharedMemoryPerBlockOptin = p.sharedMemPerBlockOptin;
        di.maxThreadsPerBlock = p.maxThreadsPerBlock;
        di.warpSize = p.warpSize;
        di.memoryBusWidthBits = p.memoryBusWidth;
        int v = 0;
        if (cudaDeviceGetAttribute(&v, cudaDevAttrClockRate, d) == cudaSuccess)
            di.clockKHz = v;
        if (cudaDeviceGetAttribute(&v, cudaDevAttrMemoryClockRate, d) == cudaSuccess)
            di.memoryClockKHz = v;
        if (cudaDeviceGetAttribute(&v, cudaDevAttrKernelExecTimeout, d) == cudaSuccess)
            di.kernelTimeout = v != 0;
        di.l2CacheBytes = p.l2CacheSize > 0 ? std::size_t(p.l2CacheSize) : 0;
        di.eccEnabled = p.ECCEnabled != 0;
        di.integrated = p.integrated != 0;
        di.concurrentManagedAccess = p.concurrentManagedAccess != 0;
        char bus[32] = {};
        if (cudaDeviceGetPCIBusId(bus, int(sizeof bus), d) == cudaSuccess)
            di.pciBusId = bus;
        cudaGetLastError();
        di.whyNoCode = whyNoCudaCode(di.major, di.minor, builtCudaArchitectures());
        info.devices.push_back(di);
    }
    if (info.devices.empty())
        info.whyNone = "no CUDA device could be queried";
#else
    info.whyNone = "built without CUDA (nvcc was not found at configure time, or NBODY_ENABLE_CUDA=OFF)";
#endif
    return info;
}

const std::string& cudaKernelsUnavailable()
{
    static const std::string why = []() -> std::string {
        const CudaRuntimeInfo cuda = queryCuda();
        if (!cuda.whyNone.empty())
            return cuda.whyNone;
#if NBODY_HAVE_CUDA
        // The current device (an MPI rank's own; device 0 otherwise): cudaGetDevice makes no context.
        int current = 0;
        if (cudaGetDevice(&current) != cudaSuccess)
            (void)cudaGetLastError();
        const CudaDeviceInfo* device = &cuda.devices.front();
        for (const CudaDeviceInfo& d : cuda.devices)
            if (d.index == current)
                device = &d;
        if (!device->whyNoCode.empty())
            return device->whyNoCode;
        if (std::string e = gpu::probeKernelImage(); !e.empty()) {
            const std::string built = builtCudaArchitectures();
            const CudaDeviceInfo& d = *device;
            return "the CUDA kernels do not load on this GPU (" + e + "); built for " + built + ", the GPU is sm_" +
                   std::to_string(d.major * 10 + d.minor) + ": update the NVIDIA driver or rebuild with "
                   "-DNBODY_CUDA_ARCHITECTURES=" + std::to_string(d.major * 10 + d.minor);
        }
#endif
        return {};
    }();
    return why;
}

std::string whyCudaRowUnavailable(bool hasLauncher, std::string_view what, std::string_view id)
{
    if (const std::string& why = cudaKernelsUnavailable(); !why.empty())
        return why;
    if (!hasLauncher)
        return "this build has no launcher for " + std::string(what) + " '" + std::string(id) + "'";
    if (const std::string lost = cudaContextLost(); !lost.empty())
        return "the CUDA context was lost after a GPU fault (" + lost +
               "); GPU kernels can run again after a restart of the program";
    return {};
}

const std::string& cudaDeviceWithoutCode()
{
    static const std::string why = queryCuda().devices.empty() ? std::string() : cudaKernelsUnavailable();
    return why;
}

namespace {

/// Why the CUDA context is lost ("" while it is not): set once by markCudaContextLost().
std::mutex& lostMutex()
{
    static std::mutex m;
    return m;
}
std::string& lostReason()
{
    static std::string why;
    return why;
}

} // namespace

void markCudaContextLost(const std::string& why)
{
    const std::lock_guard lock(lostMutex());
    if (lostReason().empty())
        lostReason() = why.empty() ? std::string("unknown CUDA error") : why;
}

std::string cudaContextLost()
{
    const std::lock_guard lock(lostMutex());
    return lostReason();
}

} // namespace nbody
