#include "KernelCommon.cuh"
#include "KernelImage.h"
#include "contracts/HostMemory.h"

#include <map>
#include <mutex>

namespace nbody::gpu {

namespace {
/// Empty: only its module matters (probeKernelImage).
__global__ void imageProbeKernel() {}
} // namespace

std::string probeKernelImage()
{
    cudaFuncAttributes attr{};
    const cudaError_t e = cudaFuncGetAttributes(&attr, imageProbeKernel);
    if (e == cudaSuccess)
        return {};
    (void)cudaGetLastError();
    return std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
}

Limits deviceLimits()
{
    static std::mutex mutex;
    static std::map<int, Limits> cache;
    int dev = 0;
    NB_CUDA_CHECK(cudaGetDevice(&dev));
    const std::lock_guard lock(mutex);
    if (const auto it = cache.find(dev); it != cache.end())
        return it->second;
    Limits l;
    NB_CUDA_CHECK(cudaDeviceGetAttribute(&l.maxThreads, cudaDevAttrMaxThreadsPerBlock, dev));
    NB_CUDA_CHECK(cudaDeviceGetAttribute(&l.sharedDefault, cudaDevAttrMaxSharedMemoryPerBlock, dev));
    NB_CUDA_CHECK(cudaDeviceGetAttribute(&l.sharedOptin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    NB_CUDA_CHECK(cudaDeviceGetAttribute(&l.warpSize, cudaDevAttrWarpSize, dev));
    NB_CUDA_CHECK(cudaDeviceGetAttribute(&l.multiprocessors, cudaDevAttrMultiProcessorCount, dev));
    NB_CUDA_CHECK(cudaDeviceGetAttribute(&l.maxThreadsPerSM, cudaDevAttrMaxThreadsPerMultiProcessor, dev));
    cache.emplace(dev, l);
    return l;
}

void checkDeviceBytes(std::size_t bytes, const std::string& what)
{
    std::size_t freeBytes = 0, totalBytes = 0;
    if (cudaMemGetInfo(&freeBytes, &totalBytes) != cudaSuccess) {
        (void)cudaGetLastError();
        return;
    }
    if (bytes > freeBytes)
        throw CudaError(what + " needs " + formatBytes(bytes) + " of device memory; the device has " +
                        formatBytes(freeBytes) + " free of " + formatBytes(totalBytes));
}

std::string checkThreads(int blockX, int blockY, const Limits& l)
{
    if (blockX < 1 || blockY < 1)
        return "block of " + std::to_string(blockX) + " x " + std::to_string(blockY) +
               " threads: both dimensions must be at least 1";
    if (static_cast<long long>(blockX) * blockY > l.maxThreads) {
        if (blockY == 1)
            return "block size " + std::to_string(blockX) + " is outside 1.." + std::to_string(l.maxThreads) +
                   " (the device's maximum threads per block)";
        return "block of " + std::to_string(blockX) + " x " + std::to_string(blockY) + " = " +
               std::to_string(static_cast<long long>(blockX) * blockY) +
               " threads exceeds the device's maximum of " + std::to_string(l.maxThreads) + " threads per block";
    }
    return {};
}

} // namespace nbody::gpu
