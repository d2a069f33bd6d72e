#include "sim/base/DeviceInfo.h"

#include <mutex>
#include <string>

#if NBODY_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace nbody {

std::string cudaVersionString(int v)
{
    if (v <= 0)
        return "none";
    return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
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
        info.devices.push_back(di);
    }
    if (info.devices.empty())
        info.whyNone = "no CUDA device could be queried";
#else
    info.whyNone = "built without CUDA (nvcc was not found at configure time, or NBODY_ENABLE_CUDA=OFF)";
#endif
    return info;
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
