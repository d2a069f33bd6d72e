#include "ForceKernels.h"
#include "KernelCommon.cuh"
#include "contracts/Interaction.h"

#include <stdexcept>
#include <string>

namespace nbody::gpu {

namespace {

/// GPU Gems 3 ch. 31 `calculate_forces`: thread i owns body i; the block walks the N bodies in
/// tiles of blockDim.x · factor, each staged once through shared memory (every thread loads
/// `factor` bodies), then every thread interacts its body with the whole tile. A partial last
/// tile (N not a multiple of the tile width) is staged up to N and looped to its length only;
/// threads i ≥ N take part in the loads and barriers but store nothing. Thread t of block b owns
/// body i = iBegin + b·blockDim.x + t for i < iEnd (the rows of DeviceForceArgs::iBegin/iEnd);
/// every body sums the same tiles in the same order whatever the range (bit-identical rows).
/// P is float4 (fp32 state) or double4_32a (fp64 state); the arithmetic is in P's scalar type.
template <class P, bool GuardZeroDistance>
__global__ void tiledKernel(const P* __restrict__ pos, P* __restrict__ acc, int n, int iBegin, int iEnd,
                            typename ScalarOf<P>::type eps2, typename ScalarOf<P>::type G, int factor)
{
    using T = typename ScalarOf<P>::type;
    extern __shared__ unsigned char sharedBytes[];
    P* tile = reinterpret_cast<P*>(sharedBytes);
    const int i = iBegin + blockIdx.x * blockDim.x + threadIdx.x;
    const int width = blockDim.x * factor;
    const P bi = i < iEnd ? pos[i] : makeVec<P>(T(0), T(0), T(0), T(0));
    struct { T x, y, z; } a = {T(0), T(0), T(0)};
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
                bodyBodyInteraction<T, GuardZeroDistance>(bi, tile[j], a, eps2);
        } else {
            for (int j = 0; j < count; ++j)
                bodyBodyInteraction<T, GuardZeroDistance>(bi, tile[j], a, eps2);
        }
        __syncthreads();
    }
    if (i < iEnd)
        acc[i] = makeVec<P>(G * a.x, G * a.y, G * a.z, T(0));
}

template <class P>
std::string checkTiledT(const DeviceForceArgs& a)
{
    const Limits l = deviceLimits();
    if (std::string why = checkThreads(a.blockSize, 1, l); !why.empty())
        return why;
    if (a.tileWidthFactor < 1)
        return "tile width factor " + std::to_string(a.tileWidthFactor) + " must be at least 1";
    const long long shared = static_cast<long long>(sizeof(P)) * a.blockSize * a.tileWidthFactor;
    if (shared > l.sharedOptin)
        return "tile of " + std::to_string(a.blockSize) + " x " + std::to_string(a.tileWidthFactor) +
               " bodies needs " + std::to_string(shared) + " bytes of shared memory; the device allows " +
               std::to_string(l.sharedOptin) + " per block";
    return {};
}

template <class P>
void launchTiledT(const DeviceForceArgs& a, const char* id)
{
    using T = typename ScalarOf<P>::type;
    if (const std::string why = checkTiledT<P>(a); !why.empty())
        throw std::invalid_argument(std::string(id) + ": " + why);
    const int n = int(a.n);
    const RowRange rows = rowRange(a.iBegin, a.iEnd, a.n);
    if (rows.size() == 0)
        return;
    const int block = a.blockSize;
    const int shared = int(sizeof(P)) * block * a.tileWidthFactor;
    const Limits l = deviceLimits();
    const int grid = int((rows.size() + std::size_t(block) - 1) / std::size_t(block));
    // Softened systems skip the zero-distance guard (see kMinUnguardedEps2).
    const auto kernel = a.eps2 >= kMinUnguardedEps2 ? tiledKernel<P, false> : tiledKernel<P, true>;
    if (shared > l.sharedDefault)
        NB_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, shared));
    kernel<<<grid, block, size_t(shared), static_cast<cudaStream_t>(a.stream)>>>(
        static_cast<const P*>(a.pos), static_cast<P*>(a.acc), n, int(rows.begin), int(rows.end), T(a.eps2), T(a.G),
        a.tileWidthFactor);
    NB_CUDA_CHECK_LAUNCH("tiledKernel");
}

} // namespace

std::string checkTiled(const DeviceForceArgs& a) { return checkTiledT<float4>(a); }
void launchTiled(const DeviceForceArgs& a) { launchTiledT<float4>(a, "tiled"); }
std::string checkTiledFp64(const DeviceForceArgs& a) { return checkTiledT<double4_32a>(a); }
void launchTiledFp64(const DeviceForceArgs& a) { launchTiledT<double4_32a>(a, "tiled-fp64"); }

} // namespace nbody::gpu
