#include "CudaCheck.cuh"
#include "ForceKernels.h"
#include "sim/Interaction.h"

#include <map>
#include <mutex>
#include <string>

namespace nbody::gpu {

namespace {

/// GPU Gems 3 ch. 31 `calculate_forces`: thread i owns body i; the block walks the N bodies in
/// tiles of blockDim.x · factor, each staged once through shared memory (every thread loads
/// `factor` bodies), then every thread interacts its body with the whole tile. A partial last
/// tile (N not a multiple of the tile width) is staged up to N and looped to its length only;
/// threads i ≥ N take part in the loads and barriers but store nothing.
template <bool GuardZeroDistance>
__global__ void tiledKernel(const float4* __restrict__ pos, float4* __restrict__ acc, int n,
                            float eps2, float G, int factor)
{
    extern __shared__ float4 tile[];
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int width = blockDim.x * factor;
    const float4 bi = i < n ? pos[i] : make_float4(0.f, 0.f, 0.f, 0.f);
    float3 a = make_float3(0.f, 0.f, 0.f);
    for (int base = 0; base < n; base += width) {
        for (int k = 0; k < factor; ++k) {
            const int slot = k * blockDim.x + threadIdx.x;
            const int src = base + slot;
            if (src < n)
                tile[slot] = pos[src];
        }
        __syncthreads();
        const int count = min(width, n - base);
        if (count == width) {
#pragma unroll 8
            for (int j = 0; j < width; ++j)
                bodyBodyInteraction<float, GuardZeroDistance>(bi, tile[j], a, eps2);
        } else {
            for (int j = 0; j < count; ++j)
                bodyBodyInteraction<float, GuardZeroDistance>(bi, tile[j], a, eps2);
        }
        __syncthreads();
    }
    if (i < n)
        acc[i] = make_float4(G * a.x, G * a.y, G * a.z, 0.f);
}

struct Limits {
    int maxThreads = 0;
    int sharedDefault = 0; ///< bytes per block without opting in
    int sharedOptin = 0;   ///< bytes per block after cudaFuncSetAttribute
};

/// The current device's launch limits, queried once per device (launches check them each step).
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
    cache.emplace(dev, l);
    return l;
}

} // namespace

std::string checkTiled(const DeviceForceArgs& a)
{
    const Limits l = deviceLimits();
    if (a.blockSize < 1 || a.blockSize > l.maxThreads)
        return "block size " + std::to_string(a.blockSize) + " is outside 1.." + std::to_string(l.maxThreads) +
               " (the device's maximum threads per block)";
    if (a.tileWidthFactor < 1)
        return "tile width factor " + std::to_string(a.tileWidthFactor) + " must be at least 1";
    const long long shared = 16LL * a.blockSize * a.tileWidthFactor;
    if (shared > l.sharedOptin)
        return "tile of " + std::to_string(a.blockSize) + " x " + std::to_string(a.tileWidthFactor) +
               " bodies needs " + std::to_string(shared) + " bytes of shared memory; the device allows " +
               std::to_string(l.sharedOptin) + " per block";
    return {};
}

void launchTiled(const DeviceForceArgs& a)
{
    if (const std::string why = checkTiled(a); !why.empty())
        throw std::invalid_argument("tiled: " + why);
    const int n = int(a.n);
    const int block = a.blockSize;
    const int shared = 16 * block * a.tileWidthFactor;
    const Limits l = deviceLimits();
    const int grid = (n + block - 1) / block;
    // Softened systems skip the zero-distance guard (see kMinUnguardedEps2).
    const auto kernel = a.eps2 >= kMinUnguardedEps2 ? tiledKernel<false> : tiledKernel<true>;
    if (shared > l.sharedDefault)
        NB_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, shared));
    kernel<<<grid, block, size_t(shared), static_cast<cudaStream_t>(a.stream)>>>(
        reinterpret_cast<const float4*>(a.pos), reinterpret_cast<float4*>(a.acc), n, a.eps2, a.G,
        a.tileWidthFactor);
    NB_CUDA_CHECK_LAUNCH("tiledKernel");
}

} // namespace nbody::gpu
