/// \file Reduction2D.cu
/// The 2D decomposition of the N×N interaction matrix (the predecessor's kernels):
/// one template with policy parameters for the FADL factor, the layout of partial sums and
/// accelerations, the in-block reduction and the finish.
///
/// Thread (x, y) of block (bx, by) computes the pairs (i, j) with i = by·blockDim.y + y and
/// j = bx·blockDim.x·F + x + k·blockDim.x for k < F (First Add During Load: the F pairs are added
/// in registers before the first store, so the reduction tree starts one or two levels lower and
/// there are F times fewer block columns). The block then reduces along x (shared-memory tree or
/// warp shuffles) and thread x = 0 of each row either writes one partial per (body, block column)
/// into the workspace, which a second kernel sums per body in column order (deterministic), or
/// adds it into the acceleration with atomicAdd (non-deterministic order).
///
/// Rows beyond gridDim.y · blockDim.y are covered by a grid-stride loop over y (gridDim.y is
/// limited to 65535), so any N ≥ 1 launches.
///
/// Rows (DeviceForceArgs::iBegin/iEnd): y covers [iBegin, iEnd) only (i = iBegin + …); the block
/// columns, the tree and the finishing pass's column order depend on N and the launch parameters
/// alone, so the two-pass variants give each body the same bits whatever the range. The atomic
/// variant zeroes and adds into the rows of the range only.

#include "ForceKernels.h"
#include "KernelCommon.cuh"
#include "contracts/Interaction.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace nbody::gpu {

namespace {

enum class Reduce { SharedTree, WarpShuffle };
enum class Finish { TwoPass, Atomic };

/// Compile-time policy of one 2D kernel variant. V: float4 or float3 (partials and accelerations).
template <int F, class V, Reduce R, Finish Fin>
struct Policy {
    static constexpr int fadl = F;
    using Vec = V;
    static constexpr Reduce reduce = R;
    static constexpr Finish finish = Fin;
};

struct Acc3 {
    float x = 0.f, y = 0.f, z = 0.f;
};

__device__ __forceinline__ Acc3 shuffleDownAdd(Acc3 a, int offset)
{
    a.x += __shfl_down_sync(0xffffffffu, a.x, offset);
    a.y += __shfl_down_sync(0xffffffffu, a.y, offset);
    a.z += __shfl_down_sync(0xffffffffu, a.z, offset);
    return a;
}

/// Sum over the 32 lanes of a warp into lane 0 (5 shuffle levels).
__device__ __forceinline__ Acc3 warpSum(Acc3 a)
{
    for (int offset = 16; offset > 0; offset >>= 1)
        a = shuffleDownAdd(a, offset);
    return a;
}

/// Smallest power of two ≥ x (x ≥ 1).
__device__ __forceinline__ int ceilPow2(int x)
{
    return x <= 1 ? 1 : 1 << (32 - __clz(x - 1));
}

/// Sums `a` over the blockDim.x threads of each row of the block; the result is valid in thread
/// x = 0. `shared` holds blockDim.y rows of blockDim.x elements of type V (tree) or of
/// blockDim.x / 32 elements (shuffle). Every thread of the block must call it.
template <class Pol>
__device__ __forceinline__ Acc3 rowSum(Acc3 a, typename Pol::Vec* shared)
{
    using V = typename Pol::Vec;
    const int tx = threadIdx.x;
    const int bx = blockDim.x;
    if constexpr (Pol::reduce == Reduce::SharedTree) {
        V* row = shared + threadIdx.y * bx;
        row[tx] = makeVec<V>(a.x, a.y, a.z);
        __syncthreads();
        // Tree over any width: at each level thread tx adds tx + stride when that exists.
        for (int stride = ceilPow2(bx) / 2; stride > 0; stride >>= 1) {
            if (tx < stride && tx + stride < bx)
                row[tx] = addXyz(row[tx], row[tx + stride]);
            __syncthreads();
        }
        const V s = row[0];
        __syncthreads(); // the caller may reuse the shared memory for the next row
        return {s.x, s.y, s.z};
    } else {
        // blockDim.x is a multiple of 32 (checked), so each warp lies in one row.
        const int warps = bx / 32;
        V* row = shared + threadIdx.y * warps;
        a = warpSum(a);
        if ((tx & 31) == 0)
            row[tx >> 5] = makeVec<V>(a.x, a.y, a.z);
        __syncthreads();
        Acc3 s;
        if (tx < 32) {
            if (tx < warps) {
                const V w = row[tx];
                s = {w.x, w.y, w.z};
            }
            s = warpSum(s);
        }
        __syncthreads();
        return s;
    }
}

template <class Pol, bool GuardZeroDistance>
__global__ void pairsKernel(const float4* __restrict__ pos, typename Pol::Vec* __restrict__ partial,
                            typename Pol::Vec* __restrict__ acc, int n, int iBegin, int iEnd, float eps2, float G)
{
    using V = typename Pol::Vec;
    extern __shared__ unsigned char sharedBytes[];
    V* shared = reinterpret_cast<V*>(sharedBytes);
    const int tx = threadIdx.x;
    const int jBase = blockIdx.x * blockDim.x * Pol::fadl + tx;
    // Every thread of a block runs the same number of row iterations (iBase depends on the block
    // only), so the barriers inside rowSum are reached by all of them.
    for (int iBase = iBegin + blockIdx.y * blockDim.y; iBase < iEnd; iBase += gridDim.y * blockDim.y) {
        const int i = iBase + threadIdx.y;
        Acc3 a;
        if (i < iEnd) {
            const float4 bi = pos[i];
#pragma unroll
            for (int k = 0; k < Pol::fadl; ++k) {
                const int j = jBase + k * blockDim.x;
                if (j < n)
                    bodyBodyInteraction<float, GuardZeroDistance>(bi, pos[j], a, eps2);
            }
        }
        const Acc3 s = rowSum<Pol>(a, shared);
        if (tx == 0 && i < iEnd) {
            if constexpr (Pol::finish == Finish::TwoPass) {
                // Column-major workspace: the finishing pass reads it coalesced.
                partial[std::size_t(blockIdx.x) * n + i] = makeVec<V>(s.x, s.y, s.z);
            } else {
                atomicAdd(&acc[i].x, G * s.x);
                atomicAdd(&acc[i].y, G * s.y);
                atomicAdd(&acc[i].z, G * s.z);
            }
        }
    }
}

/// Second pass: acc[i] = G Σ_c partial[c][i] for i in [iBegin, iEnd), summed in column order
/// (deterministic).
template <class V>
__global__ void sumPartialsKernel(const V* __restrict__ partial, V* __restrict__ acc, int n, int iBegin, int iEnd,
                                  int columns, float G)
{
    const int i = iBegin + blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= iEnd)
        return;
    float x = 0.f, y = 0.f, z = 0.f;
    for (int c = 0; c < columns; ++c) {
        const V p = partial[std::size_t(c) * n + i];
        x += p.x;
        y += p.y;
        z += p.z;
    }
    acc[i] = makeVec<V>(G * x, G * y, G * z);
}

/// Block columns of the grid: ceil(N / (blockSize · F)).
long long columnsOf(const DeviceForceArgs& a, int fadl)
{
    const long long width = static_cast<long long>(a.blockSize) * fadl;
    return width > 0 ? (static_cast<long long>(a.n) + width - 1) / width : 0;
}

template <class Pol>
std::size_t sharedBytesOf(const DeviceForceArgs& a)
{
    const std::size_t perRow = Pol::reduce == Reduce::SharedTree ? std::size_t(a.blockSize)
                                                                 : std::size_t(std::max(a.blockSize / 32, 1));
    return perRow * std::size_t(a.blockRows) * sizeof(typename Pol::Vec);
}

template <class Pol>
std::string check2D(const DeviceForceArgs& a)
{
    const Limits l = deviceLimits();
    if (std::string why = checkThreads(a.blockSize, a.blockRows, l); !why.empty())
        return why;
    if (Pol::reduce == Reduce::WarpShuffle && a.blockSize % l.warpSize != 0)
        return "block size " + std::to_string(a.blockSize) + " is not a multiple of the warp size " +
               std::to_string(l.warpSize) + " (warp-shuffle reduces whole warps of one row)";
    if (const std::size_t shared = sharedBytesOf<Pol>(a); shared > std::size_t(l.sharedDefault))
        return "block of " + std::to_string(a.blockSize) + " x " + std::to_string(a.blockRows) + " needs " +
               std::to_string(shared) + " bytes of shared memory; the device allows " +
               std::to_string(l.sharedDefault) + " per block";
    return {};
}

template <class Pol>
std::size_t workspace2D(const DeviceForceArgs& a)
{
    if constexpr (Pol::finish == Finish::Atomic)
        return 0;
    else
        return std::size_t(columnsOf(a, Pol::fadl)) * a.n * sizeof(typename Pol::Vec);
}

template <class Pol>
void launch2D(const DeviceForceArgs& a, const char* id)
{
    using V = typename Pol::Vec;
    if (const std::string why = check2D<Pol>(a); !why.empty())
        throw std::invalid_argument(std::string(id) + ": " + why);
    const std::size_t need = workspace2D<Pol>(a);
    if (need > 0 && !a.workspace)
        throw std::logic_error(std::string(id) + ": no workspace provided (" + std::to_string(need) + " bytes needed)");
    const int n = int(a.n);
    const RowRange range = rowRange(a.iBegin, a.iEnd, a.n);
    if (range.size() == 0)
        return;
    const long long count = static_cast<long long>(range.size());
    const auto stream = static_cast<cudaStream_t>(a.stream);
    const long long columns = columnsOf(a, Pol::fadl);
    const long long rows = (count + a.blockRows - 1) / a.blockRows;
    const dim3 block(unsigned(a.blockSize), unsigned(a.blockRows));
    const dim3 grid(unsigned(columns), unsigned(std::min<long long>(rows, 65535)));
    const float eps2 = float(a.eps2);
    const float G = float(a.G);
    V* acc = static_cast<V*>(a.acc);
    V* partial = static_cast<V*>(a.workspace);
    if constexpr (Pol::finish == Finish::Atomic)
        NB_CUDA_CHECK(cudaMemsetAsync(acc + range.begin, 0, range.size() * sizeof(V), stream));
    const auto kernel = eps2 >= kMinUnguardedEps2 ? pairsKernel<Pol, false> : pairsKernel<Pol, true>;
    kernel<<<grid, block, sharedBytesOf<Pol>(a), stream>>>(static_cast<const float4*>(a.pos), partial, acc, n, int(range.begin),
                                                           int(range.end), eps2, G);
    NB_CUDA_CHECK_LAUNCH("pairsKernel");
    if constexpr (Pol::finish == Finish::TwoPass) {
        constexpr int sumBlock = 256;
        sumPartialsKernel<V><<<unsigned((count + sumBlock - 1) / sumBlock), sumBlock, 0, stream>>>(
            partial, acc, n, int(range.begin), int(range.end), int(columns), G);
        NB_CUDA_CHECK_LAUNCH("sumPartialsKernel");
    }
}

using Plain = Policy<1, float4, Reduce::SharedTree, Finish::TwoPass>;
using Fadl2 = Policy<2, float4, Reduce::SharedTree, Finish::TwoPass>;
using Fadl4 = Policy<4, float4, Reduce::SharedTree, Finish::TwoPass>;
using PlainF3 = Policy<1, float3, Reduce::SharedTree, Finish::TwoPass>;
using Fadl4F3 = Policy<4, float3, Reduce::SharedTree, Finish::TwoPass>;
using AtomicF4 = Policy<1, float4, Reduce::SharedTree, Finish::Atomic>;
using Shuffle = Policy<1, float4, Reduce::WarpShuffle, Finish::TwoPass>;

} // namespace

#define NB_DEFINE_2D(Name, Pol, id)                                                            \
    void launch##Name(const DeviceForceArgs& a) { launch2D<Pol>(a, id); }                     \
    std::string check##Name(const DeviceForceArgs& a) { return check2D<Pol>(a); }             \
    std::size_t workspace##Name(const DeviceForceArgs& a) { return workspace2D<Pol>(a); }

NB_DEFINE_2D(Reduction2D, Plain, "reduction2d")
NB_DEFINE_2D(Reduction2DFadl, Fadl2, "reduction2d-fadl")
NB_DEFINE_2D(Reduction2DFadl4, Fadl4, "reduction2d-fadl4")
NB_DEFINE_2D(Reduction2DFloat3, PlainF3, "reduction2d-float3")
NB_DEFINE_2D(Reduction2DFadl4Float3, Fadl4F3, "reduction2d-fadl4-float3")
NB_DEFINE_2D(Reduction2DAtomic, AtomicF4, "reduction2d-atomic")
NB_DEFINE_2D(WarpShuffle, Shuffle, "warp-shuffle")

} // namespace nbody::gpu
