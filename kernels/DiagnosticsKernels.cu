#include "DiagnosticsKernels.h"
#include "KernelCommon.cuh"
#include "contracts/Interaction.h"

#include <stdexcept>
#include <string>

namespace nbody::gpu {

namespace {

/// The twelve sums, in the order of their partials and results.
enum Sum { kMass, kMx, kMy, kMz, kKinetic, kPx, kPy, kPz, kLx, kLy, kLz, kPairs, kSums };

/// Threads of the second pass (one block per sum).
constexpr int kFinalThreads = 256;

/// Tree reduction of red[0..count) into red[0] for any count (not only powers of two): each
/// round adds the upper half onto the lower one, in a fixed order. All threads of the block
/// call it; red[t] must be written and visible (barrier) before.
__device__ void blockTree(double* red, int count)
{
    for (int active = count; active > 1;) {
        const int half = (active + 1) / 2;
        if (int(threadIdx.x) < active - half)
            red[threadIdx.x] += red[threadIdx.x + half];
        __syncthreads();
        active = half;
    }
}

/// The per-body terms and the pair-sum row of body i = blockIdx.x · blockDim.x + threadIdx.x,
/// reduced over the block into partials[s · gridDim.x + blockIdx.x] for each sum s.
/// Shared memory: blockDim.x positions (the tile) followed by blockDim.x doubles (the tree).
/// Launch bounds (1024, 1): any block up to 1024 threads fits the register file (at most 64
/// registers a thread; ptxas uses 40–44 for sm_90, without spills).
template <class P, class V>
__global__ void __launch_bounds__(1024, 1) diagnosticsKernel(const P* __restrict__ pos, const V* __restrict__ vel, int n,
                                  typename ScalarOf<P>::type eps2, double* __restrict__ partials)
{
    using T = typename ScalarOf<P>::type;
    extern __shared__ __align__(32) unsigned char sharedBytes[];
    P* tile = reinterpret_cast<P*>(sharedBytes);
    double* red = reinterpret_cast<double*>(sharedBytes + blockDim.x * sizeof(P));
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const P bi = i < n ? pos[i] : makeVec<P>(T(0), T(0), T(0), T(0));

    // Row i of the pair sum: pair terms in T, accumulated in fp64, j = i skipped (with ε² > 0
    // the self-term would not vanish).
    double row = 0.0;
    for (int base = 0; base < n; base += blockDim.x) {
        if (base + int(threadIdx.x) < n)
            tile[threadIdx.x] = pos[base + threadIdx.x];
        __syncthreads();
        const int count = min(int(blockDim.x), n - base);
        for (int k = 0; k < count; ++k) {
            const T phi = pairPotential<T>(bi, tile[k], eps2);
            row += base + k != i ? double(phi) : 0.0;
        }
        __syncthreads();
    }

    double s[kSums] = {};
    if (i < n) {
        const V v = vel[i];
        const double m = double(bi.w), x = double(bi.x), y = double(bi.y), z = double(bi.z);
        const double vx = double(v.x), vy = double(v.y), vz = double(v.z);
        s[kMass] = m;
        s[kMx] = m * x;
        s[kMy] = m * y;
        s[kMz] = m * z;
        s[kKinetic] = 0.5 * m * (vx * vx + vy * vy + vz * vz);
        s[kPx] = m * vx;
        s[kPy] = m * vy;
        s[kPz] = m * vz;
        s[kLx] = m * (y * vz - z * vy);
        s[kLy] = m * (z * vx - x * vz);
        s[kLz] = m * (x * vy - y * vx);
        s[kPairs] = 0.5 * m * row;
    }
#pragma unroll
    for (int c = 0; c < kSums; ++c) {
        red[threadIdx.x] = s[c];
        __syncthreads();
        blockTree(red, blockDim.x);
        if (threadIdx.x == 0)
            partials[c * gridDim.x + blockIdx.x] = red[0];
        __syncthreads(); // red[0] is read before the next sum overwrites it
    }
}

/// Second pass: block c sums the `blocks` partials of sum c (strided loop, then the tree).
__global__ void sumPartialsKernel(const double* __restrict__ partials, int blocks, double* __restrict__ out)
{
    __shared__ double red[kFinalThreads];
    const double* column = partials + blockIdx.x * blocks;
    double acc = 0.0;
    for (int b = threadIdx.x; b < blocks; b += kFinalThreads)
        acc += column[b];
    red[threadIdx.x] = acc;
    __syncthreads();
    blockTree(red, kFinalThreads);
    if (threadIdx.x == 0)
        out[blockIdx.x] = red[0];
}

template <class P>
std::size_t sharedBytesFor(int block)
{
    return std::size_t(block) * (sizeof(P) + sizeof(double));
}

int gridFor(std::size_t n, int block) { return int((n + std::size_t(block) - 1) / std::size_t(block)); }

} // namespace

int diagnosticsBlockSize(Layout layout, int requested)
{
    int block = requested;
    withLayout(layout, [&]<class P, class V>() {
        const Limits l = deviceLimits();
        if (block == 0) {
            int minGrid = 0;
            NB_CUDA_CHECK(cudaOccupancyMaxPotentialBlockSizeVariableSMem(
                &minGrid, &block, diagnosticsKernel<P, V>, [](int b) { return sharedBytesFor<P>(b); }, 0));
            if (block <= 0)
                block = 256;
            return;
        }
        if (const std::string why = checkThreads(block, 1, l); !why.empty())
            throw std::invalid_argument("diagnostics: " + why);
        if (sharedBytesFor<P>(block) > std::size_t(l.sharedDefault))
            throw std::invalid_argument("diagnostics: a block of " + std::to_string(block) + " threads needs " +
                                        std::to_string(sharedBytesFor<P>(block)) +
                                        " bytes of shared memory; the device allows " +
                                        std::to_string(l.sharedDefault) + " per block");
    });
    return block;
}

std::size_t diagnosticsWorkspaceBytes(std::size_t n, int blockSize)
{
    return (std::size_t(gridFor(n, blockSize)) + 1) * kSums * sizeof(double);
}

DiagnosticSums launchDiagnostics(const DiagnosticsArgs& a)
{
    if (a.n == 0 || a.n > std::size_t(INT32_MAX) || a.blockSize < 1 || !a.pos || !a.vel || !a.workspace)
        throw std::logic_error("launchDiagnostics: invalid arguments");
    const int n = int(a.n);
    const int grid = gridFor(a.n, a.blockSize);
    auto* partials = static_cast<double*>(a.workspace);
    double* out = partials + std::size_t(grid) * kSums;
    withLayout(a.layout, [&]<class P, class V>() {
        using T = typename ScalarOf<P>::type;
        diagnosticsKernel<P, V><<<grid, a.blockSize, sharedBytesFor<P>(a.blockSize)>>>(
            static_cast<const P*>(a.pos), static_cast<const V*>(a.vel), n, T(a.eps2), partials);
        NB_CUDA_CHECK_LAUNCH("diagnosticsKernel");
    });
    sumPartialsKernel<<<kSums, kFinalThreads>>>(partials, grid, out);
    NB_CUDA_CHECK_LAUNCH("sumPartialsKernel");
    double r[kSums];
    NB_CUDA_CHECK(cudaMemcpy(r, out, sizeof r, cudaMemcpyDeviceToHost));
    DiagnosticSums s;
    s.mass = r[kMass];
    s.massMoment = Double3{r[kMx], r[kMy], r[kMz]};
    s.kinetic = r[kKinetic];
    s.momentum = Double3{r[kPx], r[kPy], r[kPz]};
    s.angularMomentum = Double3{r[kLx], r[kLy], r[kLz]};
    s.pairSum = r[kPairs];
    return s;
}

} // namespace nbody::gpu
