/// \file TreeForces.cu
/// `tree`: Barnes–Hut forces on the GPU from a binary radix tree rebuilt every evaluation
/// (contracts/Tree.h has the method, its sources and the shared host/device pieces).
///
/// Passes, all enqueued in the caller's stream (CUDA-graph capturable: no host synchronisation,
/// no allocation; the temporary storage of CUB is part of the workspace):
///  1. bounding box of the positions (cub::DeviceReduce::TransformReduce, min/max per axis);
///  2. 63-bit Morton keys and the identity permutation;
///  3. cub::DeviceRadixSort::SortPairs of (key, index), stable, so ties keep index order;
///  4. positions gathered into sorted order;
///  5. the N − 1 internal nodes (tree::radixNode, Karras 2012), one thread each, with the parent
///     of every node and body;
///  6. moments bottom-up: one thread per body climbs towards the root; at each node the second
///     thread to arrive (an atomic counter per node) combines the two children in fp64
///     (tree::combineMoments, left then right) and packs the fp32 Cell the walk reads;
///  7. the walk: one warp per group of at most 32 consecutive sorted bodies inside one of the
///     largest subtrees of at most tree::kGroupRegion bodies (compact in space), a persistent grid
///     taking groups from an atomic counter. The warp
///     pops up to 32 nodes of its stack at a time, one per lane; a body or a leaf cell (at most
///     leafSize bodies) goes to the warp's body list, a cell that tree::acceptCell accepts for
///     the group's bounding box to its cell list, any other cell pushes its two children. Each
///     full list of 32 entries is staged in shared memory and every lane sums all 32 into its
///     own body (shared-memory broadcast reads), so the walk's decisions are made once per
///     group and the arithmetic runs with all 32 lanes busy (the "group walk" of Barnes 1990
///     and of Bonsai, Bédorf et al. 2012). The result, times G, is scattered to the original
///     order. With the relative criterion (DeviceForceArgs::openingAlpha > 0) a cell must pass
///     tree::acceptCellRelative too, for the factor of the group's smallest |a_old| (the
///     accelerations in acc; without them, accelerationsValid false, a geometric pre-pass of
///     every row into the workspace first).
///
/// Cost per body: the interactions its group's lists hold, about (cells × 54 + bodies × 20)
/// flops (tree::kFlopsPerCellInteraction; bodyBodyInteraction's 20). Memory: positions float4
/// (x, y, z, m) in, accelerations float4 (ax, ay, az, 0) out; workspace ≈ 200 bytes per body
/// plus a 16 KiB stack per resident warp (workspaceTree).
///
/// Rows: the tree is the whole system's; only the accelerations of bodies in [iBegin, iEnd) —
/// or, with an active list (DeviceForceArgs::active, block time steps), of the listed bodies,
/// marked in a byte per body first — are written, and a group with none of them is skipped, so
/// the walk costs what the groups holding those rows cost.
///
/// Deterministic: the tree depends only on the positions, every fp64 moment is combined in a
/// fixed order, and each body's sums run over its group's lists in the walk's fixed order.

#include "CudaCheck.cuh"
#include "ForceKernels.h"
#include "KernelCommon.cuh"
#include "contracts/Interaction.h"
#include "contracts/Tree.h"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>


namespace nbody::gpu {

namespace {

using tree::Cell;
using tree::Moments;
using tree::RadixNode;

constexpr int kWarpsPerBlock = 8;
constexpr int kThreads = kWarpsPerBlock * 32;
/// Entries of a warp's node stack (global memory). The walk pops up to 32 nodes and pushes at
/// most two children for each, so the stack holds at most 32 entries per level of the tree
/// below the current one plus one batch; the radix tree over 63-bit keys with 32-bit index
/// tie-breaks is at most 97 levels deep: 32 × 98 + 64 < 4096. A push that would still overflow
/// is summed directly instead (exact, slow, never expected).
constexpr int kStackEntries = 4096;

/// Axis-aligned box (min, max per axis).
struct Box {
    float lo[3];
    float hi[3];
};

struct ToBox {
    __host__ __device__ Box operator()(const float4& p) const
    {
        return Box{{p.x, p.y, p.z}, {p.x, p.y, p.z}};
    }
};

struct MergeBox {
    __host__ __device__ Box operator()(const Box& a, const Box& b) const
    {
        Box r;
        for (int k = 0; k < 3; ++k) {
            r.lo[k] = fminf(a.lo[k], b.lo[k]);
            r.hi[k] = fmaxf(a.hi[k], b.hi[k]);
        }
        return r;
    }
};

/// Offsets of the workspace's parts, each aligned to 256 bytes.
struct TreeLayout {
    std::size_t box, keysIn, keysOut, idxIn, idxOut, sorted, nodes, parentNode, parentBody, counters, moments,
        cells, groupCounter, groups, stacks, prePass, activeFlag, cubTemp, cubTempBytes, total;
    int stackWarps;
};

std::size_t align256(std::size_t b) { return (b + 255) & ~std::size_t(255); }

__global__ void keysKernel(const float4* __restrict__ pos, int n, const Box* __restrict__ box,
                           std::uint64_t* __restrict__ keys, unsigned* __restrict__ idx)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const Box b = *box;
    const double scale = tree::mortonScale(double(b.hi[0]) - b.lo[0], double(b.hi[1]) - b.lo[1],
                                           double(b.hi[2]) - b.lo[2]);
    const float4 p = pos[i];
    keys[i] = tree::mortonKey(p.x, p.y, p.z, b.lo[0], b.lo[1], b.lo[2], scale);
    idx[i] = unsigned(i);
}

__global__ void gatherKernel(const float4* __restrict__ pos, const unsigned* __restrict__ order, int n,
                             float4* __restrict__ sorted)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        sorted[i] = pos[order[i]];
}

__global__ void radixKernel(const std::uint64_t* __restrict__ keys, int n, RadixNode* __restrict__ nodes,
                            int* __restrict__ parentNode, int* __restrict__ parentBody, int2* __restrict__ groups,
                            int* __restrict__ groupCount)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n - 1)
        return;
    const RadixNode r = tree::radixNode(keys, n, i);
    nodes[i] = r;
    const int split = tree::isBodyRef(r.left) ? tree::bodyOf(r.left) : r.left; // last body of the left child
    if (tree::isBodyRef(r.left))
        parentBody[split] = i;
    else
        parentNode[r.left] = i;
    if (tree::isBodyRef(r.right))
        parentBody[split + 1] = i;
    else
        parentNode[r.right] = i;
    // The walk's groups (tree::nodeRegions: runs of 32 inside compact subtrees). Their order in
    // the list varies from run to run; a body's result does not.
    tree::nodeRegions(r, i, n, [&](int first, int count) {
        const int chunks = tree::groupsOf(count);
        const int at = atomicAdd(groupCount, chunks);
        for (int k = 0; k < chunks; ++k) {
            const tree::Group g = tree::groupOf(first, count, k);
            groups[at + k] = make_int2(g.first, g.count);
        }
    });
    if (i == 0)
        parentNode[0] = -1;
}

/// Moments written by another thread of this kernel: read past the (incoherent) L1.
__device__ Moments loadMoments(const Moments* m)
{
    Moments r;
    const double2* s = reinterpret_cast<const double2*>(m);
    double2* d = reinterpret_cast<double2*>(&r);
#pragma unroll
    for (int k = 0; k < int(sizeof(Moments) / sizeof(double2)); ++k)
        d[k] = __ldcg(s + k);
    return r;
}

__device__ void storeMoments(Moments* m, const Moments& v)
{
    const double2* s = reinterpret_cast<const double2*>(&v);
    double2* d = reinterpret_cast<double2*>(m);
#pragma unroll
    for (int k = 0; k < int(sizeof(Moments) / sizeof(double2)); ++k)
        __stcg(d + k, s[k]);
}

__device__ Moments childMoments(int ref, const float4* __restrict__ sorted, const Moments* moments)
{
    return tree::isBodyRef(ref) ? tree::bodyMoments(sorted[tree::bodyOf(ref)]) : loadMoments(moments + ref);
}

__global__ void momentsKernel(const float4* __restrict__ sorted, int n, const RadixNode* __restrict__ nodes,
                              const int* __restrict__ parentNode, const int* __restrict__ parentBody,
                              int* __restrict__ counters, Moments* moments, Cell* __restrict__ cells, float theta,
                              double G, double alpha)
{
    const int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= n)
        return;
    int p = parentBody[b];
    while (p >= 0) {
        // The first child to arrive leaves; the second finds both children done. The fence
        // orders this thread's moments (written below for the node it just finished) before
        // the counter, as the sibling's thread reads them after its own increment.
        __threadfence();
        if (atomicAdd(counters + p, 1) == 0)
            return;
        __threadfence();
        const RadixNode node = nodes[p];
        const Moments m = tree::combineMoments(childMoments(node.left, sorted, moments),
                                               childMoments(node.right, sorted, moments));
        storeMoments(moments + p, m);
        cells[p] = tree::packCell(m, theta, node, G, alpha);
        p = parentNode[p];
    }
}

/// Per-warp shared memory of the walk: the staged list entries and the body list.
struct WarpShared {
    tree::Multipole cells[32];
    float4 bodies[32];
    int cellList[64];
};

__device__ __forceinline__ int laneId() { return int(threadIdx.x & 31); }

template <bool Guard>
__device__ __forceinline__ void sumBodies(const float4 (&staged)[32], int count, const float4& bi, float3& ai,
                                          float eps2)
{
#pragma unroll 8
    for (int k = 0; k < count; ++k)
        bodyBodyInteraction<float, Guard>(bi, staged[k], ai, eps2);
}

__device__ __forceinline__ void sumCells(const tree::Multipole (&staged)[32], int count, const float4& bi, float3& ai,
                                         float eps2)
{
#pragma unroll 4
    for (int k = 0; k < count; ++k)
        tree::cellInteraction<float>(bi, staged[k], ai, eps2);
}

/// Stages `count` (≤ 32) bodies of the list ending at `end` and sums them into every lane's body.
template <bool Guard>
__device__ void flushBodies(WarpShared& ws, const int* list, int count, const float4* __restrict__ sorted,
                            const float4& bi, float3& ai, float eps2)
{
    const int lane = laneId();
    if (lane < count)
        ws.bodies[lane] = sorted[list[lane]];
    __syncwarp();
    sumBodies<Guard>(ws.bodies, count, bi, ai, eps2);
    __syncwarp();
}

__device__ void flushCells(WarpShared& ws, const int* list, int count, const Cell* __restrict__ cells,
                           const float4& bi, float3& ai, float eps2)
{
    const int lane = laneId();
    if (lane < count) {
        const float4* src = reinterpret_cast<const float4*>(cells + list[lane]);
        float4* dst = reinterpret_cast<float4*>(ws.cells + lane);
        dst[0] = __ldg(src);
        dst[1] = __ldg(src + 1);
        dst[2] = __ldg(src + 2);
    }
    __syncwarp();
    sumCells(ws.cells, count, bi, ai, eps2);
    __syncwarp();
}

/// Relative: the relative criterion too, the group's factor from prev (the previous evaluation's
/// accelerations by original index, times G; it may be acc itself: a group reads only its own
/// bodies' rows, before it writes them).
template <bool Guard, bool Relative>
__global__ void __launch_bounds__(kThreads) walkKernel(const float4* __restrict__ sorted,
                                                       const unsigned* __restrict__ order, int n,
                                                       const Cell* __restrict__ cells, int leafSize, float eps2,
                                                       float G, const int2* __restrict__ groups,
                                                       const int* __restrict__ groupCount,
                                                       int* __restrict__ groupCounter, int* __restrict__ stacks,
                                                       unsigned iBegin, unsigned iEnd,
                                                       const unsigned char* __restrict__ activeFlag,
                                                       const float4* prev, float4* acc)
{
    extern __shared__ __align__(16) unsigned char shared[];
    const int warp = int(threadIdx.x >> 5);
    const int lane = laneId();
    const int bodyListEntries = 32 + 32 * leafSize;
    WarpShared& ws = reinterpret_cast<WarpShared*>(shared)[warp];
    int* bodyList = reinterpret_cast<int*>(reinterpret_cast<WarpShared*>(shared) + kWarpsPerBlock) +
                    warp * bodyListEntries;
    int* stack = stacks + std::size_t(blockIdx.x * kWarpsPerBlock + warp) * kStackEntries;
    const unsigned below = (1u << lane) - 1u;
    const int nGroups = *groupCount;

    for (;;) {
        int g = 0;
        if (lane == 0)
            g = atomicAdd(groupCounter, 1);
        g = __shfl_sync(0xffffffffu, g, 0);
        if (g >= nGroups)
            return;
        const int2 group = groups[g];
        const int i = group.x + lane;
        // The bodies of the group whose rows were asked for (DeviceForceArgs::iBegin/iEnd).
        const unsigned row = lane < group.y ? order[i] : 0u;
        const bool mine = lane < group.y && row >= iBegin && row < iEnd && (!activeFlag || activeFlag[row]);
        if (__ballot_sync(0xffffffffu, mine) == 0u)
            continue;
        const float4 bi = sorted[lane < group.y ? i : group.x];
        // The group's bounding box (centre, half sides).
        float lo[3] = {bi.x, bi.y, bi.z}, hi[3] = {bi.x, bi.y, bi.z};
#pragma unroll
        for (int k = 0; k < 3; ++k)
            for (int o = 16; o > 0; o >>= 1) {
                lo[k] = fminf(lo[k], __shfl_xor_sync(0xffffffffu, lo[k], o));
                hi[k] = fmaxf(hi[k], __shfl_xor_sync(0xffffffffu, hi[k], o));
            }
        float gx, gy, gz, hx, hy, hz; // centre and half sides, containing every body despite rounding
        tree::groupBoxAxis(lo[0], hi[0], gx, hx);
        tree::groupBoxAxis(lo[1], hi[1], gy, hy);
        tree::groupBoxAxis(lo[2], hi[2], gz, hz);
        // The relative criterion's factor: from the smallest |a_old|² of the group (lanes past
        // the group, and accelerations that are not numbers, count as +∞).
        float s = 0.0f;
        if constexpr (Relative) {
            double a2 = INFINITY;
            if (lane < group.y) {
                const float4 p = prev[row];
                const double v = tree::squaredNorm(p.x, p.y, p.z);
                a2 = v < a2 ? v : a2;
            }
            for (int o = 16; o > 0; o >>= 1) {
                const double other = __shfl_xor_sync(0xffffffffu, a2, o);
                a2 = other < a2 ? other : a2;
            }
            s = tree::relativeScale(a2);
        }

        float3 ai = make_float3(0.f, 0.f, 0.f);
        int top = 1, nCells = 0, nBodies = 0;
        if (lane == 0)
            stack[0] = 0; // the root
        __syncwarp();
        while (top > 0) {
            const int take = min(top, 32);
            const bool valid = lane < take;
            const int ref = valid ? stack[top - 1 - lane] : 0;
            __syncwarp();
            top -= take;
            const bool isBody = valid && tree::isBodyRef(ref);
            Cell c{};
            if (valid && !isBody)
                c = cells[ref];
            bool accept;
            if constexpr (Relative)
                accept = valid && !isBody && tree::acceptCellRelative(c, gx, gy, gz, hx, hy, hz, s);
            else
                accept = valid && !isBody && tree::acceptCell(c, gx, gy, gz, hx, hy, hz);
            const bool leaf = valid && !isBody && !accept && c.count <= leafSize;
            const bool open = valid && !isBody && !accept && !leaf;

            const unsigned acceptMask = __ballot_sync(0xffffffffu, accept);
            if (accept)
                ws.cellList[nCells + __popc(acceptMask & below)] = ref;
            nCells += __popc(acceptMask);

            // Bodies: one for a body reference, the whole range of a leaf cell.
            const int cnt = isBody ? 1 : leaf ? c.count : 0;
            const int first = isBody ? tree::bodyOf(ref) : c.first;
            int scan = cnt;
            for (int o = 1; o < 32; o <<= 1) {
                const int v = __shfl_up_sync(0xffffffffu, scan, o);
                if (lane >= o)
                    scan += v;
            }
            for (int k = 0; k < cnt; ++k)
                bodyList[nBodies + scan - cnt + k] = first + k;
            nBodies += __shfl_sync(0xffffffffu, scan, 31);

            const unsigned openMask = __ballot_sync(0xffffffffu, open);
            const int pushes = 2 * __popc(openMask);
            if (top + pushes <= kStackEntries) {
                if (open) {
                    const int at = top + 2 * __popc(openMask & below);
                    stack[at] = c.right; // left on top: popped first
                    stack[at + 1] = c.left;
                }
                top += pushes;
            } else {
                // Never expected (see kStackEntries): sum the cells' bodies directly, 32 at a time.
                for (unsigned m = openMask; m; m &= m - 1) {
                    const int src = __ffs(m) - 1;
                    const int f = __shfl_sync(0xffffffffu, c.first, src);
                    const int cc = __shfl_sync(0xffffffffu, c.count, src);
                    for (int b0 = 0; b0 < cc; b0 += 32) {
                        const int k = min(32, cc - b0);
                        if (lane < k)
                            ws.bodies[lane] = sorted[f + b0 + lane];
                        __syncwarp();
                        sumBodies<Guard>(ws.bodies, k, bi, ai, eps2);
                        __syncwarp();
                    }
                }
            }
            __syncwarp();
            while (nCells >= 32) {
                nCells -= 32;
                flushCells(ws, ws.cellList + nCells, 32, cells, bi, ai, eps2);
            }
            while (nBodies >= 32) {
                nBodies -= 32;
                flushBodies<Guard>(ws, bodyList + nBodies, 32, sorted, bi, ai, eps2);
            }
        }
        if (nCells > 0)
            flushCells(ws, ws.cellList, nCells, cells, bi, ai, eps2);
        if (nBodies > 0)
            flushBodies<Guard>(ws, bodyList, nBodies, sorted, bi, ai, eps2);
        if (mine)
            acc[row] = make_float4(G * ai.x, G * ai.y, G * ai.z, 0.f);
    }
}

/// flag[active[s]] = 1 for the `count` listed bodies (the flags zeroed before).
__global__ void markActiveKernel(const std::uint32_t* __restrict__ active, int count, unsigned char* __restrict__ flag)
{
    const int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s < count)
        flag[active[s]] = 1;
}

__global__ void zeroKernel(float4* acc, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        acc[i] = make_float4(0.f, 0.f, 0.f, 0.f);
}

std::size_t walkShared(int leafSize)
{
    return kWarpsPerBlock * (sizeof(WarpShared) + sizeof(int) * std::size_t(32 + 32 * leafSize));
}

/// Resident blocks of the walk on the current device at this leaf size: the persistent grid.
int walkBlocks(int leafSize)
{
    const Limits l = deviceLimits();
    int perSm = 0;
    NB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, walkKernel<false, false>, kThreads,
                                                                walkShared(leafSize)));
    return std::max(1, perSm) * l.multiprocessors;
}

std::size_t cubTempBytes(int n)
{
    std::size_t sortBytes = 0, reduceBytes = 0;
    NB_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, sortBytes, static_cast<const std::uint64_t*>(nullptr),
                                                  static_cast<std::uint64_t*>(nullptr),
                                                  static_cast<const unsigned*>(nullptr),
                                                  static_cast<unsigned*>(nullptr), n, 0, 63));
    NB_CUDA_CHECK(cub::DeviceReduce::TransformReduce(nullptr, reduceBytes, static_cast<const float4*>(nullptr),
                                                     static_cast<Box*>(nullptr), n, MergeBox{}, ToBox{},
                                                     Box{{0, 0, 0}, {0, 0, 0}}));
    return std::max(sortBytes, reduceBytes);
}

TreeLayout layoutFor(const DeviceForceArgs& a)
{
    const std::size_t n = a.n, internal = n > 1 ? n - 1 : 1;
    TreeLayout L{};
    std::size_t at = 0;
    const auto take = [&](std::size_t bytes) {
        const std::size_t here = at;
        at += align256(bytes);
        return here;
    };
    L.box = take(sizeof(Box));
    L.keysIn = take(n * sizeof(std::uint64_t));
    L.keysOut = take(n * sizeof(std::uint64_t));
    L.idxIn = take(n * sizeof(unsigned));
    L.idxOut = take(n * sizeof(unsigned));
    L.sorted = take(n * sizeof(float4));
    L.nodes = take(internal * sizeof(RadixNode));
    L.parentNode = take(internal * sizeof(int));
    L.parentBody = take(n * sizeof(int));
    L.counters = take(internal * sizeof(int));
    L.moments = take(internal * sizeof(Moments));
    L.cells = take(internal * sizeof(Cell));
    L.groupCounter = take(2 * sizeof(int)); // groups taken by the walk, groups listed
    L.groups = take(n * sizeof(int2));
    L.stackWarps = walkBlocks(a.leafSize) * kWarpsPerBlock;
    L.stacks = take(std::size_t(L.stackWarps) * kStackEntries * sizeof(int));
    // The relative criterion's first |a_old| when there is none yet: a geometric pre-pass.
    L.prePass = take(a.openingAlpha > 0 ? n * sizeof(float4) : 0);
    // Block time steps: a byte per body, 1 for the listed (active) rows.
    L.activeFlag = take(a.active ? n : 0);
    L.cubTempBytes = cubTempBytes(int(n));
    L.cubTemp = take(L.cubTempBytes);
    L.total = at;
    return L;
}

template <class T>
T* part(void* base, std::size_t offset)
{
    return reinterpret_cast<T*>(static_cast<unsigned char*>(base) + offset);
}

} // namespace

std::string checkTree(const DeviceForceArgs& a)
{
    if (!(a.openingAngle > 0.0f) || !(a.openingAngle <= 2.0f))
        return "opening angle theta " + std::to_string(a.openingAngle) + " is outside (0, 2]";
    if (a.leafSize < 1 || a.leafSize > tree::kMaxLeafSize)
        return "leaf size " + std::to_string(a.leafSize) + " is outside 1.." + std::to_string(tree::kMaxLeafSize);
    if (!(a.openingAlpha >= 0.0) || !(a.openingAlpha < INFINITY))
        return "relative criterion alpha " + std::to_string(a.openingAlpha) + " is not a finite number >= 0";
    if (a.n > std::size_t(0x7fffffff))
        return "the tree indexes bodies with 32-bit integers: at most 2147483647 bodies";
    const Limits l = deviceLimits();
    if (int(walkShared(a.leafSize)) > l.sharedDefault)
        return "leaf size " + std::to_string(a.leafSize) + " needs " + std::to_string(walkShared(a.leafSize)) +
               " bytes of shared memory per block; the device allows " + std::to_string(l.sharedDefault);
    return {};
}

std::size_t workspaceTree(const DeviceForceArgs& a)
{
    if (a.n == 0 || !checkTree(a).empty())
        return 0;
    return layoutFor(a).total;
}

void launchTree(const DeviceForceArgs& a)
{
    const RowRange rows = rowRange(a.iBegin, a.iEnd, a.n);
    if (a.n == 0 || rows.size() == 0 || (a.active && activeRowCount(a.iBegin, a.iEnd, a.n, a.activeCount) == 0))
        return;
    if (const std::string why = checkTree(a); !why.empty())
        throw std::invalid_argument("tree: " + why);
    if (!a.workspace)
        throw std::logic_error("tree: no workspace provided (" + std::to_string(workspaceTree(a)) + " bytes needed)");
    const int n = int(a.n);
    const auto stream = static_cast<cudaStream_t>(a.stream);
    const auto* pos = static_cast<const float4*>(a.pos);
    auto* acc = static_cast<float4*>(a.acc);
    constexpr int block = 256;
    const int blocks = (n + block - 1) / block;
    if (n == 1) { // no pairs: the self-term is zero (and the range, or the list, is body 0)
        zeroKernel<<<1, 32, 0, stream>>>(acc, n);
        NB_CUDA_CHECK_LAUNCH("tree zeroKernel");
        return;
    }
    const TreeLayout L = layoutFor(a);
    void* w = a.workspace;
    Box* box = part<Box>(w, L.box);
    auto* keysIn = part<std::uint64_t>(w, L.keysIn);
    auto* keysOut = part<std::uint64_t>(w, L.keysOut);
    auto* idxIn = part<unsigned>(w, L.idxIn);
    auto* idxOut = part<unsigned>(w, L.idxOut);
    auto* sorted = part<float4>(w, L.sorted);
    auto* nodes = part<RadixNode>(w, L.nodes);
    auto* parentNode = part<int>(w, L.parentNode);
    auto* parentBody = part<int>(w, L.parentBody);
    auto* counters = part<int>(w, L.counters);
    auto* moments = part<Moments>(w, L.moments);
    auto* cells = part<Cell>(w, L.cells);
    auto* groupCounter = part<int>(w, L.groupCounter);
    auto* groupCount = groupCounter + 1;
    auto* groups = part<int2>(w, L.groups);
    auto* stacks = part<int>(w, L.stacks);
    auto* prePass = part<float4>(w, L.prePass);
    unsigned char* activeFlag = nullptr;
    if (a.active) {
        activeFlag = part<unsigned char>(w, L.activeFlag);
        NB_CUDA_CHECK(cudaMemsetAsync(activeFlag, 0, a.n, stream));
        const int count = int(a.activeCount);
        markActiveKernel<<<(count + block - 1) / block, block, 0, stream>>>(a.active, count, activeFlag);
        NB_CUDA_CHECK_LAUNCH("tree markActiveKernel");
    }
    void* cubTemp = part<unsigned char>(w, L.cubTemp);

    std::size_t tempBytes = L.cubTempBytes;
    NB_CUDA_CHECK(cub::DeviceReduce::TransformReduce(cubTemp, tempBytes, pos, box, n, MergeBox{}, ToBox{},
                                                     Box{{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}},
                                                     stream));
    keysKernel<<<blocks, block, 0, stream>>>(pos, n, box, keysIn, idxIn);
    NB_CUDA_CHECK_LAUNCH("tree keysKernel");
    tempBytes = L.cubTempBytes;
    NB_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(cubTemp, tempBytes, keysIn, keysOut, idxIn, idxOut, n, 0, 63,
                                                  stream));
    gatherKernel<<<blocks, block, 0, stream>>>(pos, idxOut, n, sorted);
    NB_CUDA_CHECK_LAUNCH("tree gatherKernel");
    NB_CUDA_CHECK(cudaMemsetAsync(groupCounter, 0, 2 * sizeof(int), stream));
    radixKernel<<<(n - 1 + block - 1) / block, block, 0, stream>>>(keysOut, n, nodes, parentNode, parentBody, groups,
                                                                    groupCount);
    NB_CUDA_CHECK_LAUNCH("tree radixKernel");
    NB_CUDA_CHECK(cudaMemsetAsync(counters, 0, std::size_t(n - 1) * sizeof(int), stream));
    momentsKernel<<<blocks, block, 0, stream>>>(sorted, n, nodes, parentNode, parentBody, counters, moments, cells,
                                                a.openingAngle, a.G, a.openingAlpha);
    NB_CUDA_CHECK_LAUNCH("tree momentsKernel");
    const bool guard = !(float(a.eps2) >= kMinUnguardedEps2);
    const int walkGrid = L.stackWarps / kWarpsPerBlock;
    const std::size_t walkBytes = walkShared(a.leafSize);
    const float4* prev = acc; // the relative criterion's |a_old|: the last evaluation's
    if (a.openingAlpha > 0 && !a.accelerationsValid) {
        // None yet: every row with the geometric criterion at θ first (GADGET-2 starts so too).
        const auto pre = guard ? walkKernel<true, false> : walkKernel<false, false>;
        pre<<<walkGrid, kThreads, walkBytes, stream>>>(sorted, idxOut, n, cells, a.leafSize, float(a.eps2),
                                                       float(a.G), groups, groupCount, groupCounter, stacks, 0u,
                                                       unsigned(n), nullptr, nullptr, prePass);
        NB_CUDA_CHECK_LAUNCH("tree walkKernel (the relative criterion's pre-pass)");
        NB_CUDA_CHECK(cudaMemsetAsync(groupCounter, 0, sizeof(int), stream)); // the groups again
        prev = prePass;
    }
    const auto walk = a.openingAlpha > 0 ? (guard ? walkKernel<true, true> : walkKernel<false, true>)
                                         : (guard ? walkKernel<true, false> : walkKernel<false, false>);
    walk<<<walkGrid, kThreads, walkBytes, stream>>>(sorted, idxOut, n, cells, a.leafSize, float(a.eps2), float(a.G),
                                                    groups, groupCount, groupCounter, stacks, unsigned(rows.begin),
                                                    unsigned(rows.end), activeFlag, prev, acc);
    NB_CUDA_CHECK_LAUNCH("tree walkKernel");
}

} // namespace nbody::gpu
