/// \file BlockedForces.cu
/// `blocked` and `blocked-fp64`: the all-pairs kernel tuned for issue-slot throughput.
///
/// Grid (ceil(N / (B·R)), S'), blocks of B threads. Thread t of block (bx, by) keeps R i-bodies
/// in registers (i = bx·B·R + t + r·B, r < R: coalesced loads and stores) and walks the j-range
/// of its grid row by, [by·chunk, min(N, (by+1)·chunk)), in tiles of B bodies that the block
/// stages through shared memory, one float4 (double4) per thread. Each tile element read from
/// shared memory (a broadcast) feeds R interactions, so the per-interaction overhead of the load
/// is 1/R slot; the loop over a tile is unrolled U times. Tiles past the end of the range are
/// padded with zero-mass bodies at the origin (they add exactly 0), so every tile runs the full
/// unrolled loop.
///
/// The j-split (S ways, chunk = a whole number of tiles) exposes N·S/(B·R) blocks when N alone
/// is too small to fill the device (N = 8192 gives 16 blocks of 128 threads × 4 bodies: 16 of
/// 132 SMs). With S' > 1 grid rows each block writes its partial sums to a workspace of S' × N
/// vectors and a second kernel adds them per body in grid-row order, so the result does not
/// depend on the scheduling (deterministic); with S' = 1 the force kernel writes G·a directly.
///
/// Arithmetic per interaction (bodyBodyInteraction, contracts/Interaction.h, ε² folded into the first
/// FMA): 3 FADD (r), 3 FFMA (r² + ε²), 1 MUFU.RSQ, 3 FMUL (m·inv·inv·inv), 3 FFMA (accumulate):
/// 12 fp32 slots + 1 MUFU = 13 issue slots, counted as 20 flops (GPU Gems 3 ch. 31). This file
/// is compiled with -ftz=true (kernels/CMakeLists.txt), so rsqrtf is a bare MUFU.RSQ without
/// the denormal fix-up; the validation shows the accuracy unchanged (docs/performance.md).
/// fp64 (double4, 30 flops by the sample's count): 3 DADD, 3 DFMA, the reciprocal square root as
/// MUFU.RSQ64H (rsqrt.approx.ftz.f64) refined by one third-order Newton step (5 fp64 ops), 3 DMUL,
/// 3 DFMA: 17 fp64 slots + 1 MUFU.
/// Memory: positions float4 (x, y, z, m) / double4; accelerations float4 / double4 (w = 0);
/// workspace S' × N vectors when S' > 1; shared memory B vectors per block.
/// Rows (DeviceForceArgs::iBegin/iEnd): the x blocks cover [iBegin, iEnd) only (i = iBegin + s,
/// slot s = bx·B·R + t + r·B); with an active list (DeviceForceArgs::active, block time steps)
/// slot s holds body active[s] instead. The j chunks, tiles and the order of the second pass
/// depend on N and the launch parameters alone, so each body's sum is the same whatever the
/// range or list (bit-identical).

#include "ForceKernels.h"
#include "KernelCommon.cuh"
#include "contracts/Interaction.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace nbody::gpu {

namespace {

template <class P, int R, int U, bool Guard>
__global__ void blockedKernel(const P* __restrict__ pos, P* __restrict__ out, int n, int iBegin, int count,
                              const std::uint32_t* __restrict__ active, int chunk, typename ScalarOf<P>::type eps2,
                              typename ScalarOf<P>::type scale)
{
    using T = typename ScalarOf<P>::type;
    extern __shared__ unsigned char sharedBytes[];
    P* tile = reinterpret_cast<P*>(sharedBytes);
    const int width = blockDim.x;
    const int first = blockIdx.x * width * R + threadIdx.x; // this thread's first slot
    P bi[R];
    int rowOf[R]; // the body of each slot, -1 past the rows
    struct { T x, y, z; } a[R];
#pragma unroll
    for (int r = 0; r < R; ++r) {
        const int slot = first + r * width;
        rowOf[r] = slot < count ? (active ? int(active[slot]) : iBegin + slot) : -1;
        bi[r] = rowOf[r] >= 0 ? pos[rowOf[r]] : makeVec<P>(T(0), T(0), T(0), T(0));
        a[r] = {T(0), T(0), T(0)};
    }
    const int jBegin = blockIdx.y * chunk;
    const int jEnd = min(n, jBegin + chunk);
    for (int base = jBegin; base < jEnd; base += width) {
        const int j = base + threadIdx.x;
        tile[threadIdx.x] = j < jEnd ? pos[j] : makeVec<P>(T(0), T(0), T(0), T(0)); // zero mass: adds 0
        __syncthreads();
#pragma unroll U
        for (int k = 0; k < width; ++k) {
            const P bj = tile[k];
#pragma unroll
            for (int r = 0; r < R; ++r)
                bodyBodyInteraction<T, Guard, /*FastRsqrt*/ true>(bi[r], bj, a[r], eps2);
        }
        __syncthreads();
    }
    P* row = out + std::size_t(blockIdx.y) * std::size_t(n);
#pragma unroll
    for (int r = 0; r < R; ++r)
        if (rowOf[r] >= 0)
            row[rowOf[r]] = makeVec<P>(scale * a[r].x, scale * a[r].y, scale * a[r].z, T(0));
}

/// acc[i] = G · Σ_s partial[s·N + i] for the rows' bodies i (iBegin + slot, or active[slot]), s in
/// order 0 … splits−1 (deterministic).
template <class P>
__global__ void sumSplitsKernel(const P* __restrict__ partial, P* __restrict__ acc, int n, int iBegin, int count,
                                const std::uint32_t* __restrict__ active, int splits, typename ScalarOf<P>::type G)
{
    using T = typename ScalarOf<P>::type;
    const int slot = blockIdx.x * blockDim.x + threadIdx.x;
    if (slot >= count)
        return;
    const int i = active ? int(active[slot]) : iBegin + slot;
    T x = 0, y = 0, z = 0;
    for (int s = 0; s < splits; ++s) {
        const P p = partial[std::size_t(s) * std::size_t(n) + std::size_t(i)];
        x += p.x;
        y += p.y;
        z += p.z;
    }
    acc[i] = makeVec<P>(G * x, G * y, G * z, T(0));
}

template <class P>
using BlockedFn = void (*)(const P*, P*, int, int, int, const std::uint32_t*, int, typename ScalarOf<P>::type,
                          typename ScalarOf<P>::type);

constexpr int kBodiesPerThread[] = {1, 2, 4, 8};
constexpr int kUnroll[] = {1, 2, 4, 8};

constexpr int indexOf(const int* list, int count, int v)
{
    for (int i = 0; i < count; ++i)
        if (list[i] == v)
            return i;
    return -1;
}

/// The instantiation for (R, U, guard), or nullptr when R or U is not one of the compiled values.
template <class P>
BlockedFn<P> kernelFor(int R, int U, bool guard)
{
    // [R][U][guard]
#define NB_ROW(R)                                                                                      \
    {{blockedKernel<P, R, 1, false>, blockedKernel<P, R, 1, true>},                                    \
     {blockedKernel<P, R, 2, false>, blockedKernel<P, R, 2, true>},                                    \
     {blockedKernel<P, R, 4, false>, blockedKernel<P, R, 4, true>},                                    \
     {blockedKernel<P, R, 8, false>, blockedKernel<P, R, 8, true>}}
    static const BlockedFn<P> table[4][4][2] = {NB_ROW(1), NB_ROW(2), NB_ROW(4), NB_ROW(8)};
#undef NB_ROW
    const int r = indexOf(kBodiesPerThread, 4, R);
    const int u = indexOf(kUnroll, 4, U);
    return r < 0 || u < 0 ? nullptr : table[r][u][guard ? 1 : 0];
}

/// The j-range of one grid row: a whole number of tiles, at least one.
long long chunkOf(const DeviceForceArgs& a)
{
    const long long n = static_cast<long long>(a.n);
    const long long per = (n + a.jSplit - 1) / a.jSplit;
    const long long tiles = std::max(1LL, (per + a.blockSize - 1) / a.blockSize);
    return tiles * a.blockSize;
}

/// Grid rows actually launched: ceil(N / chunk) ≤ jSplit.
long long splitsOf(const DeviceForceArgs& a)
{
    return (static_cast<long long>(a.n) + chunkOf(a) - 1) / chunkOf(a);
}

bool guarded(const DeviceForceArgs& a)
{
    return !(float(a.eps2) >= kMinUnguardedEps2);
}

template <class P>
std::string checkBlockedT(const DeviceForceArgs& a)
{
    const Limits l = deviceLimits();
    if (std::string why = checkThreads(a.blockSize, 1, l); !why.empty())
        return why;
    if (a.blockSize % l.warpSize != 0)
        return "block size " + std::to_string(a.blockSize) + " is not a multiple of the warp size " +
               std::to_string(l.warpSize);
    if (indexOf(kBodiesPerThread, 4, a.bodiesPerThread) < 0)
        return "bodies per thread " + std::to_string(a.bodiesPerThread) + " is not one of 1, 2, 4, 8";
    if (indexOf(kUnroll, 4, a.unroll) < 0)
        return "unroll " + std::to_string(a.unroll) + " is not one of 1, 2, 4, 8";
    if (a.jSplit < 1)
        return "j-split " + std::to_string(a.jSplit) + " must be at least 1";
    if (a.n == 0)
        return {};
    if (splitsOf(a) > 65535)
        return "j-split " + std::to_string(a.jSplit) + " gives " + std::to_string(splitsOf(a)) +
               " grid rows; the device allows 65535";
    const long long bodiesPerBlock = static_cast<long long>(a.blockSize) * a.bodiesPerThread;
    if ((static_cast<long long>(a.n) + bodiesPerBlock - 1) / bodiesPerBlock > 0x7fffffffLL)
        return "too many blocks for " + std::to_string(a.n) + " bodies";
    const long long shared = static_cast<long long>(sizeof(P)) * a.blockSize;
    if (shared > l.sharedDefault)
        return "a tile of " + std::to_string(a.blockSize) + " bodies needs " + std::to_string(shared) +
               " bytes of shared memory; the device allows " + std::to_string(l.sharedDefault) + " per block";
    // Registers: R bodies of 7 values each may not fit 1024 threads; ask the compiled kernel.
    cudaFuncAttributes attr{};
    NB_CUDA_CHECK(cudaFuncGetAttributes(&attr, kernelFor<P>(a.bodiesPerThread, a.unroll, guarded(a))));
    if (a.blockSize > attr.maxThreadsPerBlock)
        return "block size " + std::to_string(a.blockSize) + " with " + std::to_string(a.bodiesPerThread) +
               " bodies per thread needs " + std::to_string(attr.numRegs) + " registers per thread; at most " +
               std::to_string(attr.maxThreadsPerBlock) + " threads per block fit the register file";
    return {};
}

template <class P>
std::size_t workspaceBlockedT(const DeviceForceArgs& a)
{
    if (a.n == 0 || a.blockSize < 1 || a.jSplit < 1)
        return 0;
    const long long s = splitsOf(a);
    return s > 1 ? std::size_t(s) * a.n * sizeof(P) : 0;
}

/// Heuristic launch, from the tuner's choices on the H200 (docs/performance.md): B = 512 threads,
/// R = 2 bodies per thread, unroll 8 (fp32) or 4 (fp64), and a j-split that gives about 16 warps
/// per SM (4 per scheduler, each with R independent chains), at least one tile per grid row.
/// The tuner measures instead (sim/perf/Tuner.h).
template <class P>
void defaultsBlockedT(DeviceForceArgs& a)
{
    constexpr bool fp64 = std::is_same_v<P, double4_32a>;
    if (a.blockSize == 0)
        a.blockSize = 512;
    if (a.bodiesPerThread == 0)
        a.bodiesPerThread = 2;
    if (a.unroll == 0)
        a.unroll = fp64 ? 4 : 8;
    if (a.jSplit == 0) {
        const Limits l = deviceLimits();
        const long long n = std::max<long long>(1, static_cast<long long>(a.n));
        const long long iBlocks = (n + static_cast<long long>(a.blockSize) * a.bodiesPerThread - 1) /
                                  (static_cast<long long>(a.blockSize) * a.bodiesPerThread);
        const long long target = static_cast<long long>(l.multiprocessors) * 16 * l.warpSize / a.blockSize;
        const long long tiles = (n + a.blockSize - 1) / a.blockSize;
        a.jSplit = int(std::clamp<long long>((target + iBlocks - 1) / iBlocks, 1, std::min<long long>(tiles, 65535)));
    }
}

template <class P>
void launchBlockedT(const DeviceForceArgs& a, const char* id)
{
    using T = typename ScalarOf<P>::type;
    if (a.n == 0)
        return;
    if (const std::string why = checkBlockedT<P>(a); !why.empty())
        throw std::invalid_argument(std::string(id) + ": " + why);
    const long long splits = splitsOf(a);
    if (splits > 1 && !a.workspace)
        throw std::logic_error(std::string(id) + ": no workspace provided (" +
                               std::to_string(workspaceBlockedT<P>(a)) + " bytes needed)");
    const int n = int(a.n);
    const RowRange rows = rowRange(a.iBegin, a.iEnd, a.n);
    const long long count =
        static_cast<long long>(a.active ? activeRowCount(a.iBegin, a.iEnd, a.n, a.activeCount) : rows.size());
    if (count == 0)
        return;
    const auto stream = static_cast<cudaStream_t>(a.stream);
    const long long bodiesPerBlock = static_cast<long long>(a.blockSize) * a.bodiesPerThread;
    const dim3 grid(unsigned((count + bodiesPerBlock - 1) / bodiesPerBlock), unsigned(splits));
    const BlockedFn<P> kernel = kernelFor<P>(a.bodiesPerThread, a.unroll, guarded(a));
    P* out = splits > 1 ? static_cast<P*>(a.workspace) : static_cast<P*>(a.acc);
    kernel<<<grid, unsigned(a.blockSize), std::size_t(a.blockSize) * sizeof(P), stream>>>(
        static_cast<const P*>(a.pos), out, n, int(rows.begin), int(count), a.active, int(chunkOf(a)), T(a.eps2),
        splits > 1 ? T(1) : T(a.G));
    NB_CUDA_CHECK_LAUNCH("blockedKernel");
    if (splits > 1) {
        constexpr int sumBlock = 256;
        sumSplitsKernel<P><<<unsigned((count + sumBlock - 1) / sumBlock), sumBlock, 0, stream>>>(
            static_cast<const P*>(a.workspace), static_cast<P*>(a.acc), n, int(rows.begin), int(count), a.active,
            int(splits), T(a.G));
        NB_CUDA_CHECK_LAUNCH("sumSplitsKernel");
    }
}

} // namespace

void launchBlocked(const DeviceForceArgs& a) { launchBlockedT<float4>(a, "blocked"); }
std::string checkBlocked(const DeviceForceArgs& a) { return checkBlockedT<float4>(a); }
std::size_t workspaceBlocked(const DeviceForceArgs& a) { return workspaceBlockedT<float4>(a); }
void defaultsBlocked(DeviceForceArgs& a) { defaultsBlockedT<float4>(a); }

void launchBlockedFp64(const DeviceForceArgs& a) { launchBlockedT<double4_32a>(a, "blocked-fp64"); }
std::string checkBlockedFp64(const DeviceForceArgs& a) { return checkBlockedT<double4_32a>(a); }
std::size_t workspaceBlockedFp64(const DeviceForceArgs& a) { return workspaceBlockedT<double4_32a>(a); }
void defaultsBlockedFp64(DeviceForceArgs& a) { defaultsBlockedT<double4_32a>(a); }

} // namespace nbody::gpu
