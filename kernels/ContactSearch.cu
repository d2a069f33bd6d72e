/// \file ContactSearch.cu
/// The CUDA contact searches `cuda-pairs`, `cuda-atomic` and `cuda-cells` (ContactSearch.h has
/// their contracts; docs/contact-search.md the algorithms, memory and costs). Kernels are
/// file-local; every CUDA call and launch is checked (CudaCheck.cuh).

#include "ContactSearch.h"
#include "CudaCheck.cuh"
#include "KernelCommon.cuh"
#include "contracts/ContactTypes.h"
#include "contracts/HostMemory.h"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cooperative_groups.h>
#include <thrust/iterator/counting_iterator.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <climits>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>

namespace nbody::gpu {

namespace {

namespace cg = cooperative_groups;
using u64 = unsigned long long;

static_assert(sizeof(ContactPair) == sizeof(uint2) && offsetof(ContactPair, j) == 4,
              "ContactPair must have uint2's layout (i, j): the kernels write uint2");

/// Relative margin of the cell size over 2·Rmax (fp32 rounding of the touching test, see
/// findContactsCudaCells) and its floor (keeps (2·Rmax)² a normal fp32 number).
constexpr double kCellMargin = 1.0 + 0x1.0p-10;
constexpr double kMinCellSize = 0x1.0p-60;
/// The most bodies a CUDA row takes: 32-bit indices with room for a tile past the last body.
constexpr std::size_t kMaxBodies = std::size_t(1) << 30;
/// The list of `cuda-atomic` holds at least this many pairs beyond 2N.
constexpr std::uint64_t kMinAtomicCapacity = 1024;

__device__ __forceinline__ Float4 toFloat4(const float4& p) { return Float4{p.x, p.y, p.z, p.w}; }

// ---- all pairs, tiled through shared memory (cuda-pairs, cuda-atomic) ------------------------

/// Dynamic shared memory of the tiled kernels: a float4 position and a float radius a slot.
constexpr std::size_t kTileBytesPerThread = sizeof(float4) + sizeof(float);

/// Stages tile [base, base + blockDim.x) ∩ [0, end) in shared memory (every thread loads one slot).
__device__ __forceinline__ void loadTile(const float4* __restrict__ pos, const float* __restrict__ rad, int end,
                                         int base, float4* tileP, float* tileR)
{
    const int src = base + int(threadIdx.x);
    if (src < end) {
        tileP[threadIdx.x] = pos[src];
        tileR[threadIdx.x] = rad[src];
    }
}

/// The split of the all-pairs work: blocks of `block` threads over i (gridDim.x) × chunks of
/// `chunk` bodies over j (gridDim.y). Blocks over i alone would leave the first blocks the
/// triangle's longest rows (block 0 tests all N bodies) and, at N = 65 536, few blocks for 132
/// SMs; with the chunks every block makes at most block × chunk tests and there are enough of
/// them to fill the device (tiledSplit).
struct TiledSplit {
    int block = 0;  ///< threads per block (bodies i per block)
    int chunk = 0;  ///< bodies j per chunk, a multiple of block
    int chunks = 0; ///< ⌈N / chunk⌉ (gridDim.y)
};

struct AddU64 {
    __host__ __device__ u64 operator()(u64 a, u64 b) const { return a + b; }
};

/// Pass 1 (Write = false) and pass 2 (Write = true) of `cuda-pairs`. Block (x, s): thread t owns
/// body i = x·blockDim.x + t and tests the bodies j > i of chunk s, j in [s·chunk, (s+1)·chunk),
/// staged in tiles of blockDim.x through shared memory (tiles before the block's first body hold
/// only j < i and are skipped; a chunk wholly below it makes no test and stores zero counts).
/// Pass 1 stores the count of (i, s) in counts[i·chunks + s]; pass 2 writes those pairs at
/// offsets[i·chunks + s] … offsets[i·chunks + s + 1] − 1 in increasing j, so the whole list is
/// sorted by (i, j). Pass 2 stops a thread once its pairs are written and the block once every
/// thread's are (__syncthreads_or), and sets *mismatch when a thread finds another number of
/// pairs than pass 1 did (it cannot: the test is deterministic). Threads i ≥ n take part in the
/// loads and barriers only.
template <bool Write>
__global__ void pairsKernel(const float4* __restrict__ pos, const float* __restrict__ rad, int n, int chunk,
                            std::uint32_t* __restrict__ counts, const u64* __restrict__ offsets,
                            uint2* __restrict__ pairs, int* mismatch)
{
    extern __shared__ float4 tileP[];
    float* tileR = reinterpret_cast<float*>(tileP + blockDim.x);
    const int first = int(blockIdx.x * blockDim.x);
    const int i = first + int(threadIdx.x);
    const bool active = i < n;
    const Float4 bi = active ? toFloat4(pos[i]) : Float4{};
    const float ri = active ? rad[i] : 0.f;
    const std::size_t slot = std::size_t(active ? i : 0) * gridDim.y + blockIdx.y;
    const int chunkBegin = int(blockIdx.y) * chunk;
    const int jEnd = min(n, chunkBegin + chunk);
    const int jBegin = max(chunkBegin, first); // both multiples of blockDim.x
    u64 found = 0, want = 0, at = 0;
    if (Write && active) {
        at = offsets[slot];
        want = offsets[slot + 1] - at;
    }
    // A chunk wholly below the block's bodies (jBegin ≥ jEnd) makes no iteration, for every
    // thread of the block alike: no barrier is left to some threads only.
    for (int base = jBegin; base < jEnd; base += int(blockDim.x)) {
        if (Write && !__syncthreads_or(found < want))
            break; // every pair of this block and chunk is written
        loadTile(pos, rad, jEnd, base, tileP, tileR);
        __syncthreads();
        if (active && (!Write || found < want)) {
            const int count = min(int(blockDim.x), jEnd - base);
            for (int k = max(0, i - base + 1); k < count && (!Write || found < want); ++k) {
                if (contactTouching(bi, ri, toFloat4(tileP[k]), tileR[k])) {
                    if (Write && found < want)
                        pairs[at + found] = make_uint2(unsigned(i), unsigned(base + k));
                    ++found;
                }
            }
        }
        __syncthreads();
    }
    if (!Write && active)
        counts[slot] = std::uint32_t(found); // at most chunk
    if (Write && active && found != want)
        atomicOr(mismatch, 1);
}

/// `cuda-atomic`'s one pass: the tests of pairsKernel over the same blocks and chunks; a touching
/// pair takes the next slot of the global list with atomicAdd (one atomic per group of threads
/// of a warp that found a pair at the same step: cooperative_groups::coalesced_threads) and
/// stores its key i·2^shift + j when the slot is below `capacity`; *counter ends at the number of
/// pairs either way.
__global__ void atomicPairsKernel(const float4* __restrict__ pos, const float* __restrict__ rad, int n, int chunk,
                                  u64* counter, u64* __restrict__ keys, u64 capacity, int shift)
{
    extern __shared__ float4 tileP[];
    float* tileR = reinterpret_cast<float*>(tileP + blockDim.x);
    const int first = int(blockIdx.x * blockDim.x);
    const int i = first + int(threadIdx.x);
    const bool active = i < n;
    const Float4 bi = active ? toFloat4(pos[i]) : Float4{};
    const float ri = active ? rad[i] : 0.f;
    const u64 high = u64(unsigned(active ? i : 0)) << shift;
    const int chunkBegin = int(blockIdx.y) * chunk;
    const int jEnd = min(n, chunkBegin + chunk);
    const int jBegin = max(chunkBegin, first);
    for (int base = jBegin; base < jEnd; base += int(blockDim.x)) {
        loadTile(pos, rad, jEnd, base, tileP, tileR);
        __syncthreads();
        if (active) {
            const int count = min(int(blockDim.x), jEnd - base);
            for (int k = max(0, i - base + 1); k < count; ++k) {
                if (contactTouching(bi, ri, toFloat4(tileP[k]), tileR[k])) {
                    const cg::coalesced_group g = cg::coalesced_threads();
                    u64 slot = 0;
                    if (g.thread_rank() == 0)
                        slot = atomicAdd(counter, u64(g.size()));
                    slot = g.shfl(slot, 0) + g.thread_rank();
                    if (slot < capacity)
                        keys[slot] = high | u64(unsigned(base + k));
                }
            }
        }
        __syncthreads();
    }
}

/// keys i·2^shift + j (count of them) → pairs (i, j), grid-stride.
__global__ void unpackKernel(const u64* __restrict__ keys, u64 count, int shift, uint2* __restrict__ pairs)
{
    const u64 mask = (u64(1) << shift) - 1;
    for (u64 k = u64(blockIdx.x) * blockDim.x + threadIdx.x; k < count; k += u64(gridDim.x) * blockDim.x) {
        const u64 key = keys[k];
        pairs[k] = make_uint2(unsigned(key >> shift), unsigned(key & mask));
    }
}

// ---- cell list (cuda-cells) ---------------------------------------------------------------

/// |R| for the largest radius (a NaN radius counts as 0).
struct AbsRadius {
    const float* rad;
    __host__ __device__ float operator()(int i) const
    {
        const float r = fabsf(rad[i]);
        return r == r ? r : 0.f;
    }
};

struct MaxFloat {
    __host__ __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};

/// A body's cell: floor(x / h) per axis in fp64, clamped to the int32 range (a NaN coordinate
/// goes to −2^31, ±inf to the ends). Clamping is monotone and keeps neighbouring coordinates at
/// most one apart, so no pair is lost; only bodies more than 2^31 cells from the origin share
/// the end cells.
__device__ __forceinline__ int cellCoord(float x, double invH)
{
    double t = double(x) * invH;
    t = fmin(fmax(t, -2147483648.0), 2147483647.0); // fmax(NaN, a) = a
    return int(floor(t));
}

__device__ __forceinline__ int4 cellOf(const float4& p, double invH)
{
    return make_int4(cellCoord(p.x, invH), cellCoord(p.y, invH), cellCoord(p.z, invH), 0);
}

/// The box of the occupied cells (inclusive).
struct CellBox {
    int lo[3];
    int hi[3];
};

struct ToCellBox {
    const float4* pos;
    double invH;
    __host__ __device__ CellBox operator()(int i) const
    {
#if defined(__CUDA_ARCH__)
        const int4 c = cellOf(pos[i], invH);
        return CellBox{{c.x, c.y, c.z}, {c.x, c.y, c.z}};
#else
        (void)i;
        return CellBox{{0, 0, 0}, {0, 0, 0}}; // never called on the host
#endif
    }
};

struct MergeCellBox {
    __host__ __device__ CellBox operator()(const CellBox& a, const CellBox& b) const
    {
        CellBox r;
        for (int d = 0; d < 3; ++d) {
            r.lo[d] = min(a.lo[d], b.lo[d]);
            r.hi[d] = max(a.hi[d], b.hi[d]);
        }
        return r;
    }
};

/// The grid: cells of side h (1/invH); buckets = the cell's index in the box of occupied cells
/// (hashed = false) or the top `hashBits` bits of a hash of the cell's coordinates.
struct Grid {
    double invH;
    int lo[3];                 ///< the occupied cells' box
    long long hi[3];           ///< its upper corner
    std::uint32_t dims[3];     ///< hi − lo + 1 (only when dense: then the product is at most T ≤ 2^30)
    bool hashed;
    int hashBits;
};

__device__ __forceinline__ std::uint32_t bucketOf(long long x, long long y, long long z, const Grid& g)
{
    if (!g.hashed)
        return std::uint32_t(u64(x - g.lo[0]) + u64(g.dims[0]) * (u64(y - g.lo[1]) + u64(g.dims[1]) * u64(z - g.lo[2])));
    u64 k = u64(std::uint32_t(int(x))) * 0x9E3779B97F4A7C15ull ^ u64(std::uint32_t(int(y))) * 0xC2B2AE3D27D4EB4Full ^
            u64(std::uint32_t(int(z))) * 0x165667B19E3779F9ull;
    k ^= k >> 29;
    k *= 0xBF58476D1CE4E5B9ull;
    k ^= k >> 32;
    return std::uint32_t(k >> (64 - g.hashBits));
}

/// Bucket key and identity index of every body.
__global__ void cellKeysKernel(const float4* __restrict__ pos, int n, Grid g, std::uint32_t* __restrict__ keys,
                               std::uint32_t* __restrict__ index)
{
    const int i = int(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= n)
        return;
    const int4 c = cellOf(pos[i], g.invH);
    keys[i] = bucketOf(c.x, c.y, c.z, g);
    index[i] = std::uint32_t(i);
}

/// Positions, radii and cells in sorted order; the [start, end) of every non-empty bucket
/// (start and end were zeroed: an empty bucket is [0, 0)).
__global__ void cellGatherKernel(const float4* __restrict__ pos, const float* __restrict__ rad, int n, Grid g,
                                 const std::uint32_t* __restrict__ keys, const std::uint32_t* __restrict__ index,
                                 float4* __restrict__ sortedPos, float* __restrict__ sortedRad,
                                 int4* __restrict__ sortedCell, std::uint32_t* __restrict__ start,
                                 std::uint32_t* __restrict__ end)
{
    const int k = int(blockIdx.x * blockDim.x + threadIdx.x);
    if (k >= n)
        return;
    const std::uint32_t b = index[k];
    const float4 p = pos[b];
    sortedPos[k] = p;
    sortedRad[k] = rad[b];
    sortedCell[k] = cellOf(p, g.invH);
    const std::uint32_t key = keys[k];
    if (k == 0 || keys[k - 1] != key)
        start[key] = std::uint32_t(k);
    if (k == n - 1 || keys[k + 1] != key)
        end[key] = std::uint32_t(k + 1);
}

/// Sum over a warp (every lane of the warp must call it).
__device__ __forceinline__ u64 warpSum(u64 v)
{
    for (int d = 16; d > 0; d /= 2)
        v += __shfl_down_sync(0xffffffffu, v, d);
    return v;
}

/// Pass 1 (Write = false) and pass 2 (Write = true) of `cuda-cells`, one thread per body in
/// sorted order (k): body i = index[k] scans the buckets of the 27 cells around its own (those
/// inside the occupied box) and tests the candidates j > i that lie in that very cell. Pass 1
/// stores the count in counts[i] and adds the candidates to *candidates (one atomic per warp);
/// pass 2 writes the keys i·2^shift + j at offsets[i] … and sets *mismatch when its count
/// differs from pass 1's. Threads k ≥ n only take part in the warp sum (the block size is a
/// multiple of 32).
template <bool Write>
__global__ void cellPairsKernel(const float4* __restrict__ sortedPos, const float* __restrict__ sortedRad,
                                const int4* __restrict__ sortedCell, const std::uint32_t* __restrict__ index, int n,
                                Grid g, const std::uint32_t* __restrict__ start, const std::uint32_t* __restrict__ end,
                                u64* counts, u64* candidates, const u64* __restrict__ offsets, u64* __restrict__ keys,
                                int shift, int* mismatch)
{
    const int k = int(blockIdx.x * blockDim.x + threadIdx.x);
    u64 found = 0, tested = 0, want = 0, at = 0;
    if (k < n) {
        const std::uint32_t i = index[k];
        const Float4 bi = toFloat4(sortedPos[k]);
        const float ri = sortedRad[k];
        const int4 c = sortedCell[k];
        if (Write) {
            at = offsets[i];
            want = offsets[i + 1] - at;
        }
        for (long long z = (long long)c.z - 1; z <= (long long)c.z + 1; ++z) {
            if (z < g.lo[2] || z > g.hi[2])
                continue;
            for (long long y = (long long)c.y - 1; y <= (long long)c.y + 1; ++y) {
                if (y < g.lo[1] || y > g.hi[1])
                    continue;
                for (long long x = (long long)c.x - 1; x <= (long long)c.x + 1; ++x) {
                    if (x < g.lo[0] || x > g.hi[0])
                        continue;
                    const std::uint32_t b = bucketOf(x, y, z, g);
                    const std::uint32_t e = end[b];
                    for (std::uint32_t m = start[b]; m < e; ++m) {
                        const int4 cm = sortedCell[m];
                        if (cm.x != int(x) || cm.y != int(y) || cm.z != int(z))
                            continue; // another cell in this bucket (hashed grid)
                        const std::uint32_t j = index[m];
                        if (j <= i)
                            continue;
                        ++tested;
                        if (contactTouching(bi, ri, toFloat4(sortedPos[m]), sortedRad[m])) {
                            if (Write && found < want)
                                keys[at + found] = (u64(i) << shift) | u64(j);
                            ++found;
                        }
                    }
                }
            }
        }
        if (!Write)
            counts[i] = found;
        if (Write && found != want)
            atomicOr(mismatch, 1);
    }
    if (!Write) {
        const u64 sum = warpSum(tested);
        if ((threadIdx.x & 31u) == 0 && sum > 0)
            atomicAdd(candidates, sum);
    }
}

// ---- workspace ---------------------------------------------------------------------------

/// The buffers of a search, by role (the rows share them: calls run one at a time).
enum Slot : int {
    kScalars,    ///< u64 × 4: counter / candidates, mismatch flag
    kCounts,     ///< cuda-cells: u64 × (N + 1), counts then offsets (in-place scan); cuda-pairs: u32 × (N·chunks + 1)
    kOffsets,    ///< cuda-pairs: u64 × (N·chunks + 1)
    kKeysA,      ///< u64 × pairs: the atomic list / written keys; one buffer of the sort
    kKeysB,      ///< u64 × pairs: the sort's other buffer; the unpacked pairs
    kCubTemp,    ///< CUB's temporary storage
    kReduced,    ///< the largest radius (float), then the occupied cells' box (CellBox)
    kBucketIn,   ///< u32 × N
    kBucketOut,  ///< u32 × N
    kIndexIn,    ///< u32 × N
    kIndexOut,   ///< u32 × N
    kSortedPos,  ///< float4 × N
    kSortedRad,  ///< float × N
    kSortedCell, ///< int4 × N (cell x, y, z)
    kStart,      ///< u32 × buckets
    kEnd,        ///< u32 × buckets
    kSlotCount
};

const char* const kSlotNames[kSlotCount] = {
    "scalars", "counts", "offsets", "pair keys", "pair keys (second buffer)", "CUB temporary storage", "reductions",
    "bucket keys", "sorted bucket keys", "indices", "sorted indices", "sorted positions", "sorted radii",
    "sorted cell ids", "bucket starts", "bucket ends"};

struct Buffer {
    void* p = nullptr;
    std::size_t bytes = 0;
};

/// One device's buffers, grown on demand and kept; a pinned host block for the scalars read back.
class Workspace {
public:
    Workspace() = default;
    Workspace(const Workspace&) = delete;
    Workspace& operator=(const Workspace&) = delete;
    /// Frees what release() has not (unchecked: a destructor cannot throw). Runs only from
    /// releaseContactWorkspaces(), after release(): the table of workspaces is never destroyed
    /// at exit, where the CUDA runtime may already be unloading (NVIDIA: no CUDA calls from
    /// static destructors); the context's teardown with the process frees the device memory.
    ~Workspace()
    {
        for (Buffer& b : m_buffers)
            if (b.p)
                (void)cudaFree(b.p);
        if (m_host)
            (void)cudaFreeHost(m_host);
    }

    /// Slot s holding at least `bytes` (its contents are not kept when it grows). Growth adds a
    /// quarter when the device has room for it, so slowly growing inputs reallocate rarely.
    template <class T>
    T* get(Slot s, std::size_t bytes)
    {
        Buffer& b = m_buffers[s];
        if (bytes <= b.bytes)
            return static_cast<T*>(b.p);
        if (b.p) {
            void* old = b.p;
            b = Buffer{};
            NB_CUDA_CHECK(cudaFree(old));
        }
        const std::string what = std::string("the contact search's ") + kSlotNames[s] + " (" +
                                 std::to_string(bytes) + " bytes)";
        checkDeviceBytes(bytes, what);
        std::size_t grown = bytes + bytes / 4;
        std::size_t freeBytes = 0, totalBytes = 0;
        if (cudaMemGetInfo(&freeBytes, &totalBytes) != cudaSuccess) {
            (void)cudaGetLastError();
            grown = bytes;
        } else if (grown > freeBytes) {
            grown = bytes;
        }
        NB_CUDA_CHECK(cudaMalloc(&b.p, grown));
        b.bytes = grown;
        return static_cast<T*>(b.p);
    }
    std::size_t capacity(Slot s) const { return m_buffers[s].bytes; }

    /// Pinned host memory for four u64 read back from the device.
    u64* host()
    {
        if (!m_host)
            NB_CUDA_CHECK(cudaMallocHost(&m_host, 4 * sizeof(u64)));
        return m_host;
    }

    std::size_t bytes() const
    {
        std::size_t total = 0;
        for (const Buffer& b : m_buffers)
            total += b.bytes;
        return total;
    }

    /// Frees everything, checked.
    void release()
    {
        for (Buffer& b : m_buffers) {
            void* p = b.p;
            b = Buffer{};
            if (p)
                NB_CUDA_CHECK(cudaFree(p));
        }
        if (u64* h = m_host) {
            m_host = nullptr;
            NB_CUDA_CHECK(cudaFreeHost(h));
        }
        atomicCapacity = 0;
        blocks.clear();
    }

    std::uint64_t atomicCapacity = 0; ///< pairs the atomic list held last time
    std::map<const void*, int> blocks; ///< block size per kernel (occupancy calculator)

private:
    std::array<Buffer, kSlotCount> m_buffers{};
    u64* m_host = nullptr;
};

std::mutex& workspaceMutex()
{
    static std::mutex m;
    return m;
}

/// The workspaces by device. Allocated once and never destroyed (see ~Workspace).
std::map<int, std::unique_ptr<Workspace>>& workspaces()
{
    static auto* const w = new std::map<int, std::unique_ptr<Workspace>>;
    return *w;
}

/// The current device's workspace (the caller holds workspaceMutex()).
Workspace& workspaceHere()
{
    int device = 0;
    NB_CUDA_CHECK(cudaGetDevice(&device));
    auto& w = workspaces()[device];
    if (!w)
        w = std::make_unique<Workspace>();
    return *w;
}

thread_local ContactSearchStats t_stats;

/// The occupancy calculator's block size for `kernel` with `sharedPerThread` bytes of dynamic
/// shared memory a thread, a multiple of the warp size (cached in the workspace).
template <class K>
int blockFor(Workspace& w, K kernel, std::size_t sharedPerThread)
{
    const void* key = reinterpret_cast<const void*>(kernel);
    if (const auto it = w.blocks.find(key); it != w.blocks.end())
        return it->second;
    int minGrid = 0, block = 0;
    NB_CUDA_CHECK(cudaOccupancyMaxPotentialBlockSizeVariableSMem(
        &minGrid, &block, kernel, [sharedPerThread](int b) { return std::size_t(b) * sharedPerThread; }));
    const int warp = deviceLimits().warpSize;
    block = std::max(warp, block / warp * warp);
    w.blocks.emplace(key, block);
    return block;
}

int gridFor(std::size_t n, int block) { return int((n + std::size_t(block) - 1) / std::size_t(block)); }

/// Blocks of 256 threads (the force kernels' default; fewer where the device allows fewer) over
/// i, and chunks over j so that the blocks number about 32 per SM below the diagonal: at least
/// one tile a chunk, at most 65 535 chunks (gridDim.y).
TiledSplit tiledSplit(std::size_t n)
{
    const Limits l = deviceLimits();
    TiledSplit t;
    t.block = std::max(l.warpSize, std::min(256, l.maxThreads) / l.warpSize * l.warpSize);
    const std::size_t iBlocks = (n + std::size_t(t.block) - 1) / std::size_t(t.block);
    const std::size_t wanted = (64 * std::size_t(std::max(l.multiprocessors, 1)) + iBlocks - 1) / iBlocks;
    const std::size_t chunks = std::clamp<std::size_t>(wanted, 1, iBlocks);
    std::size_t chunk = (n + chunks - 1) / chunks;
    chunk = std::max(chunk, (n + 65534) / 65535);
    chunk = (chunk + std::size_t(t.block) - 1) / std::size_t(t.block) * std::size_t(t.block);
    t.chunk = int(chunk);
    t.chunks = int((n + chunk - 1) / chunk);
    return t;
}

/// Number of bits of n − 1 (at least 1): i, j < n fit in that many.
int indexBits(std::size_t n) { return std::max(1, int(std::bit_width(std::uint64_t(n - 1)))); }

void checkArgs(const ContactSearchArgs& a, const char* row)
{
    if (a.n > 0 && (!a.position || !a.radius))
        throw std::invalid_argument(std::string("contact search (") + row +
                                    "): null position or radius column with n > 0");
    if (a.n > kMaxBodies)
        throw std::invalid_argument(std::string("contact search (") + row + "): " + std::to_string(a.n) +
                                    " bodies; the CUDA rows index bodies with 32-bit integers (at most 2^30 = " +
                                    std::to_string(kMaxBodies) + ")");
}

/// Refuses `pairs` pairs that need `deviceBytesPerPair` bytes each on the device (beyond what
/// the workspace already holds in `held` bytes) or 8 bytes each on the host: std::length_error
/// naming the count and the bytes.
void checkPairsFit(const char* row, std::uint64_t pairs, std::size_t deviceBytesPerPair, std::size_t held)
{
    const double deviceNeed = (double)pairs * (double)deviceBytesPerPair;
    const double hostNeed = (double)pairs * (double)sizeof(ContactPair);
    const auto say = [&](const std::string& where, double need, std::size_t have, const std::string& what) {
        throw std::length_error(std::string("contact search (") + row + "): " + std::to_string(pairs) +
                                " touching pairs need " +
                                formatBytes(need >= (double)SIZE_MAX ? SIZE_MAX : std::size_t(need)) + " of " +
                                where + " memory; " + formatBytes(have) + " " + what);
    };
    std::size_t freeBytes = 0, totalBytes = 0;
    if (cudaMemGetInfo(&freeBytes, &totalBytes) != cudaSuccess) {
        (void)cudaGetLastError();
    } else if (deviceNeed > (double)freeBytes + (double)held) {
        say("device", deviceNeed, freeBytes + held, "are free");
    }
    if (hostNeed > (double)std::vector<ContactPair>().max_size())
        say("host", hostNeed, 0, "can be held by a vector");
    if (const MemoryAvailable m = availableHostMemory(); m.known() && hostNeed > (double)m.bytes)
        say("host", hostNeed, m.bytes, "are available (" + m.source + ")");
}

/// Reads `bytes` (at most 32) from the device into the workspace's pinned block; synchronises.
const void* readBytes(Workspace& w, const void* device, std::size_t bytes, cudaStream_t stream)
{
    if (bytes > 4 * sizeof(u64))
        throw std::logic_error("contact search: a read-back of more than 32 bytes");
    u64* h = w.host();
    NB_CUDA_CHECK(cudaMemcpyAsync(h, device, bytes, cudaMemcpyDeviceToHost, stream));
    NB_CUDA_CHECK(cudaStreamSynchronize(stream));
    return h;
}

/// Reads `count` (≤ 4) u64 scalars from the device; synchronises.
const u64* readScalars(Workspace& w, const u64* device, int count, cudaStream_t stream)
{
    return static_cast<const u64*>(readBytes(w, device, std::size_t(count) * sizeof(u64), stream));
}

/// The pairs (uint2 on the device, `count` of them) copied into a host vector; synchronises.
std::vector<ContactPair> download(const uint2* pairs, std::uint64_t count, cudaStream_t stream)
{
    std::vector<ContactPair> out(static_cast<std::size_t>(count));
    if (count > 0) {
        NB_CUDA_CHECK(cudaMemcpyAsync(out.data(), pairs, std::size_t(count) * sizeof(ContactPair),
                                      cudaMemcpyDeviceToHost, stream));
        NB_CUDA_CHECK(cudaStreamSynchronize(stream));
    }
    return out;
}

/// Sorts `count` keys (2·shift significant bits) held in slot kKeysA, unpacks them into pairs
/// and downloads them. Needs kKeysB of the same size (allocated by the caller).
std::vector<ContactPair> sortUnpackDownload(Workspace& w, std::uint64_t count, int shift, cudaStream_t stream)
{
    u64* a = w.get<u64>(kKeysA, count * sizeof(u64));
    u64* b = w.get<u64>(kKeysB, count * sizeof(u64));
    cub::DoubleBuffer<u64> keys(a, b);
    std::size_t tempBytes = 0;
    NB_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, tempBytes, keys, count, 0, 2 * shift, stream));
    void* temp = w.get<unsigned char>(kCubTemp, std::max<std::size_t>(tempBytes, 1));
    NB_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp, tempBytes, keys, count, 0, 2 * shift, stream));
    const u64* sorted = keys.Current();
    auto* pairs = reinterpret_cast<uint2*>(keys.Alternate());
    const int block = blockFor(w, unpackKernel, 0);
    const int grid = int(std::min<std::uint64_t>((count + u64(block) - 1) / u64(block),
                                                 std::uint64_t(deviceLimits().multiprocessors) * 32));
    unpackKernel<<<std::max(grid, 1), block, 0, stream>>>(sorted, count, shift, pairs);
    NB_CUDA_CHECK_LAUNCH("contact unpackKernel");
    return download(pairs, count, stream);
}

std::uint64_t allPairs(std::size_t n) { return n < 2 ? 0 : std::uint64_t(n) * (n - 1) / 2; }

void finish(Workspace& w, std::uint64_t pairs)
{
    t_stats.pairs = pairs;
    t_stats.workspaceBytes = w.bytes();
}

} // namespace

// ---- cuda-pairs ----------------------------------------------------------------------------

std::vector<ContactPair> findContactsCudaPairs(const ContactSearchArgs& args)
{
    checkArgs(args, "cuda-pairs");
    t_stats = ContactSearchStats{};
    if (args.n < 2)
        return {};
    const std::lock_guard lock(workspaceMutex());
    Workspace& w = workspaceHere();
    const auto stream = static_cast<cudaStream_t>(args.stream);
    const int n = int(args.n);
    const auto* pos = reinterpret_cast<const float4*>(args.position);
    const float* rad = args.radius;

    const TiledSplit split = tiledSplit(args.n);
    const std::size_t slots = args.n * std::size_t(split.chunks); // (i, chunk) counts
    u64* scalars = w.get<u64>(kScalars, 4 * sizeof(u64));
    auto* counts = w.get<std::uint32_t>(kCounts, (slots + 1) * sizeof(std::uint32_t));
    u64* offsets = w.get<u64>(kOffsets, (slots + 1) * sizeof(u64));
    std::size_t scanBytes = 0;
    NB_CUDA_CHECK(cub::DeviceScan::ExclusiveScan(nullptr, scanBytes, counts, offsets, AddU64{}, u64(0), slots + 1,
                                                 stream));
    void* scanTemp = w.get<unsigned char>(kCubTemp, std::max<std::size_t>(scanBytes, 1));

    const dim3 grid(unsigned(gridFor(args.n, split.block)), unsigned(split.chunks));
    const std::size_t shared = std::size_t(split.block) * kTileBytesPerThread;
    NB_CUDA_CHECK(cudaMemsetAsync(counts + slots, 0, sizeof(std::uint32_t), stream));
    pairsKernel<false><<<grid, split.block, shared, stream>>>(pos, rad, n, split.chunk, counts, nullptr, nullptr,
                                                              nullptr);
    NB_CUDA_CHECK_LAUNCH("contact pairsKernel (count)");
    NB_CUDA_CHECK(cub::DeviceScan::ExclusiveScan(scanTemp, scanBytes, counts, offsets, AddU64{}, u64(0), slots + 1,
                                                 stream));
    const std::uint64_t total = readScalars(w, offsets + slots, 1, stream)[0];
    t_stats.candidates = allPairs(args.n);
    if (total == 0) {
        finish(w, 0);
        return {};
    }
    checkPairsFit("cuda-pairs", total, sizeof(uint2), w.capacity(kKeysB));
    auto* pairs = reinterpret_cast<uint2*>(w.get<u64>(kKeysB, total * sizeof(uint2)));
    int* mismatch = reinterpret_cast<int*>(scalars);
    NB_CUDA_CHECK(cudaMemsetAsync(scalars, 0, sizeof(u64), stream));
    pairsKernel<true><<<grid, split.block, shared, stream>>>(pos, rad, n, split.chunk, nullptr, offsets, pairs,
                                                             mismatch);
    NB_CUDA_CHECK_LAUNCH("contact pairsKernel (write)");
    if (readScalars(w, scalars, 1, stream)[0] != 0)
        throw std::logic_error("contact search (cuda-pairs): the counting and writing passes found different pairs");
    std::vector<ContactPair> out = download(pairs, total, stream);
    finish(w, total);
    return out;
}

// ---- cuda-atomic ---------------------------------------------------------------------------

std::vector<ContactPair> findContactsCudaAtomic(const ContactSearchArgs& args)
{
    checkArgs(args, "cuda-atomic");
    t_stats = ContactSearchStats{};
    if (args.n < 2)
        return {};
    const std::lock_guard lock(workspaceMutex());
    Workspace& w = workspaceHere();
    const auto stream = static_cast<cudaStream_t>(args.stream);
    const int n = int(args.n);
    const auto* pos = reinterpret_cast<const float4*>(args.position);
    const int shift = indexBits(args.n);

    u64* counter = w.get<u64>(kScalars, 4 * sizeof(u64));
    std::uint64_t capacity = std::max<std::uint64_t>(w.atomicCapacity, 2 * std::uint64_t(args.n) + kMinAtomicCapacity);
    // The list is allocated with the sort's second buffer at the same size: 16 bytes a pair.
    checkPairsFit("cuda-atomic", capacity, 2 * sizeof(u64), w.capacity(kKeysA) + w.capacity(kKeysB));
    u64* keys = w.get<u64>(kKeysA, capacity * sizeof(u64));
    (void)w.get<u64>(kKeysB, capacity * sizeof(u64));
    const TiledSplit split = tiledSplit(args.n);
    const dim3 grid(unsigned(gridFor(args.n, split.block)), unsigned(split.chunks));
    std::uint64_t total = 0;
    for (;;) {
        NB_CUDA_CHECK(cudaMemsetAsync(counter, 0, sizeof(u64), stream));
        atomicPairsKernel<<<grid, split.block, std::size_t(split.block) * kTileBytesPerThread, stream>>>(
            pos, args.radius, n, split.chunk, counter, keys, capacity, shift);
        NB_CUDA_CHECK_LAUNCH("contact atomicPairsKernel");
        const std::uint64_t count = readScalars(w, counter, 1, stream)[0];
        t_stats.capacity = capacity;
        if (count <= capacity) {
            total = count;
            break;
        }
        if (t_stats.reruns > 0) // the second pass had room for the first one's count
            throw std::logic_error("contact search (cuda-atomic): the pair count changed between two passes");
        // Overflow: room for this count (and a quarter more when it fits), then the pass again.
        ++t_stats.reruns;
        checkPairsFit("cuda-atomic", count, 2 * sizeof(u64), w.capacity(kKeysA) + w.capacity(kKeysB));
        capacity = count;
        (void)w.get<u64>(kKeysB, capacity * sizeof(u64));
        keys = w.get<u64>(kKeysA, capacity * sizeof(u64));
        capacity = std::max<std::uint64_t>(capacity, std::min(w.capacity(kKeysA), w.capacity(kKeysB)) / sizeof(u64));
    }
    w.atomicCapacity = capacity;
    t_stats.candidates = allPairs(args.n);
    if (total == 0) {
        finish(w, 0);
        return {};
    }
    std::vector<ContactPair> out = sortUnpackDownload(w, total, shift, stream);
    finish(w, total);
    return out;
}

// ---- cuda-cells ----------------------------------------------------------------------------

std::vector<ContactPair> findContactsCudaCells(const ContactSearchArgs& args)
{
    checkArgs(args, "cuda-cells");
    t_stats = ContactSearchStats{};
    if (args.n < 2)
        return {};
    const std::lock_guard lock(workspaceMutex());
    Workspace& w = workspaceHere();
    const auto stream = static_cast<cudaStream_t>(args.stream);
    const std::size_t n = args.n;
    const auto* pos = reinterpret_cast<const float4*>(args.position);
    const float* rad = args.radius;

    // 1. The largest |radius| (args.maxRadius is not trusted: a stale value must not lose pairs).
    static_assert(sizeof(CellBox) <= 4 * sizeof(u64));
    void* reduced = w.get<unsigned char>(kReduced, sizeof(CellBox));
    std::size_t reduceBytes = 0;
    NB_CUDA_CHECK(cub::DeviceReduce::TransformReduce(nullptr, reduceBytes, thrust::counting_iterator<int>(0),
                                                     static_cast<float*>(reduced), int(n), MaxFloat{}, AbsRadius{rad},
                                                     0.f, stream));
    void* temp = w.get<unsigned char>(kCubTemp, std::max<std::size_t>(reduceBytes, 1));
    NB_CUDA_CHECK(cub::DeviceReduce::TransformReduce(temp, reduceBytes, thrust::counting_iterator<int>(0),
                                                     static_cast<float*>(reduced), int(n), MaxFloat{}, AbsRadius{rad},
                                                     0.f, stream));
    float maxRadius = 0;
    std::memcpy(&maxRadius, readBytes(w, reduced, sizeof(float), stream), sizeof(float));
    if (!(maxRadius > 0.f)) { // every radius 0: two bodies of radius 0 never touch
        finish(w, 0);
        return {};
    }

    // 2. The grid: the cell size, then the box of the occupied cells (the device's own cell
    //    coordinates, so the dense index below can never leave it).
    const double h = std::max(2.0 * double(maxRadius) * kCellMargin, kMinCellSize);
    Grid g{};
    g.invH = std::isfinite(h) ? 1.0 / h : 0.0; // an infinite radius: one cell
    const CellBox none{{INT_MAX, INT_MAX, INT_MAX}, {INT_MIN, INT_MIN, INT_MIN}};
    std::size_t boxBytes = 0;
    NB_CUDA_CHECK(cub::DeviceReduce::TransformReduce(nullptr, boxBytes, thrust::counting_iterator<int>(0),
                                                     static_cast<CellBox*>(reduced), int(n), MergeCellBox{},
                                                     ToCellBox{pos, g.invH}, none, stream));
    temp = w.get<unsigned char>(kCubTemp, std::max<std::size_t>(boxBytes, 1));
    NB_CUDA_CHECK(cub::DeviceReduce::TransformReduce(temp, boxBytes, thrust::counting_iterator<int>(0),
                                                     static_cast<CellBox*>(reduced), int(n), MergeCellBox{},
                                                     ToCellBox{pos, g.invH}, none, stream));
    CellBox box{};
    std::memcpy(&box, readBytes(w, reduced, sizeof(CellBox), stream), sizeof(CellBox));
    double cells = 1;
    for (int d = 0; d < 3; ++d) {
        g.lo[d] = box.lo[d];
        g.hi[d] = box.hi[d];
        cells *= double(g.hi[d] - g.lo[d] + 1);
    }
    const std::uint64_t table = std::bit_ceil(std::uint64_t(n));
    g.hashed = cells > double(table);
    g.hashBits = int(std::countr_zero(table));
    if (!g.hashed)
        for (int d = 0; d < 3; ++d)
            g.dims[d] = std::uint32_t(g.hi[d] - g.lo[d] + 1);
    const std::uint64_t buckets = g.hashed ? table : std::uint64_t(cells);
    const int bucketBits = std::max(1, int(std::bit_width(buckets - 1)));
    t_stats.cellSize = float(h);
    t_stats.cells = cells >= 1.8e19 ? UINT64_MAX : std::uint64_t(cells);
    t_stats.buckets = buckets;
    t_stats.hashed = g.hashed;

    // 3. Buffers (all before the first launch that uses them).
    auto* keysIn = w.get<std::uint32_t>(kBucketIn, n * sizeof(std::uint32_t));
    auto* keysOut = w.get<std::uint32_t>(kBucketOut, n * sizeof(std::uint32_t));
    auto* idxIn = w.get<std::uint32_t>(kIndexIn, n * sizeof(std::uint32_t));
    auto* idxOut = w.get<std::uint32_t>(kIndexOut, n * sizeof(std::uint32_t));
    auto* sortedPos = w.get<float4>(kSortedPos, n * sizeof(float4));
    auto* sortedRad = w.get<float>(kSortedRad, n * sizeof(float));
    auto* sortedCell = w.get<int4>(kSortedCell, n * sizeof(int4));
    auto* start = w.get<std::uint32_t>(kStart, buckets * sizeof(std::uint32_t));
    auto* end = w.get<std::uint32_t>(kEnd, buckets * sizeof(std::uint32_t));
    u64* counts = w.get<u64>(kCounts, (n + 1) * sizeof(u64));
    u64* scalars = w.get<u64>(kScalars, 4 * sizeof(u64));
    std::size_t sortBytes = 0, scanBytes = 0;
    NB_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, sortBytes, keysIn, keysOut, idxIn, idxOut, n, 0,
                                                  bucketBits, stream));
    NB_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scanBytes, counts, n + 1, stream));
    temp = w.get<unsigned char>(kCubTemp, std::max<std::size_t>({sortBytes, scanBytes, 1}));

    // 4. Bucket keys, sorted with the indices (stable: a bucket's bodies in index order).
    const int keysBlock = blockFor(w, cellKeysKernel, 0);
    cellKeysKernel<<<gridFor(n, keysBlock), keysBlock, 0, stream>>>(pos, int(n), g, keysIn, idxIn);
    NB_CUDA_CHECK_LAUNCH("contact cellKeysKernel");
    NB_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp, sortBytes, keysIn, keysOut, idxIn, idxOut, n, 0, bucketBits,
                                                  stream));
    // 5. Sorted bodies and the bucket ranges.
    NB_CUDA_CHECK(cudaMemsetAsync(start, 0, buckets * sizeof(std::uint32_t), stream));
    NB_CUDA_CHECK(cudaMemsetAsync(end, 0, buckets * sizeof(std::uint32_t), stream));
    const int gatherBlock = blockFor(w, cellGatherKernel, 0);
    cellGatherKernel<<<gridFor(n, gatherBlock), gatherBlock, 0, stream>>>(pos, rad, int(n), g, keysOut, idxOut,
                                                                          sortedPos, sortedRad, sortedCell, start, end);
    NB_CUDA_CHECK_LAUNCH("contact cellGatherKernel");

    // 6. Count, scan.
    const int shift = indexBits(n);
    NB_CUDA_CHECK(cudaMemsetAsync(scalars, 0, 4 * sizeof(u64), stream));
    NB_CUDA_CHECK(cudaMemsetAsync(counts + n, 0, sizeof(u64), stream));
    const int block1 = blockFor(w, cellPairsKernel<false>, 0);
    cellPairsKernel<false><<<gridFor(n, block1), block1, 0, stream>>>(sortedPos, sortedRad, sortedCell, idxOut, int(n),
                                                                      g, start, end, counts, scalars, nullptr, nullptr,
                                                                      shift, nullptr);
    NB_CUDA_CHECK_LAUNCH("contact cellPairsKernel (count)");
    NB_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp, scanBytes, counts, n + 1, stream));
    NB_CUDA_CHECK(cudaMemcpyAsync(scalars + 1, counts + n, sizeof(u64), cudaMemcpyDeviceToDevice, stream));
    const u64* h2 = readScalars(w, scalars, 2, stream);
    t_stats.candidates = h2[0];
    const std::uint64_t total = h2[1];
    if (total == 0) {
        finish(w, 0);
        return {};
    }

    // 7. Write the keys at the offsets, then sort them into (i, j) order.
    checkPairsFit("cuda-cells", total, 2 * sizeof(u64), w.capacity(kKeysA) + w.capacity(kKeysB));
    u64* keys = w.get<u64>(kKeysA, total * sizeof(u64));
    (void)w.get<u64>(kKeysB, total * sizeof(u64));
    int* mismatch = reinterpret_cast<int*>(scalars + 2);
    NB_CUDA_CHECK(cudaMemsetAsync(scalars + 2, 0, sizeof(u64), stream));
    const int block2 = blockFor(w, cellPairsKernel<true>, 0);
    cellPairsKernel<true><<<gridFor(n, block2), block2, 0, stream>>>(sortedPos, sortedRad, sortedCell, idxOut, int(n),
                                                                     g, start, end, nullptr, nullptr, counts, keys,
                                                                     shift, mismatch);
    NB_CUDA_CHECK_LAUNCH("contact cellPairsKernel (write)");
    if (readScalars(w, scalars + 2, 1, stream)[0] != 0)
        throw std::logic_error("contact search (cuda-cells): the counting and writing passes found different pairs");
    std::vector<ContactPair> out = sortUnpackDownload(w, total, shift, stream);
    finish(w, total);
    return out;
}

// ---- the rest ------------------------------------------------------------------------------

ContactSearchStats lastContactSearchStats() { return t_stats; }

void releaseContactWorkspaces()
{
    const std::lock_guard lock(workspaceMutex());
    if (workspaces().empty())
        return;
    int current = 0;
    NB_CUDA_CHECK(cudaGetDevice(&current));
    for (auto& [device, w] : workspaces()) {
        NB_CUDA_CHECK(cudaSetDevice(device));
        w->release();
    }
    NB_CUDA_CHECK(cudaSetDevice(current));
    workspaces().clear();
}

DeviceContactColumns::DeviceContactColumns(std::span<const Float4> position, std::span<const float> radius)
    : m_n(position.size())
{
    if (radius.size() != position.size())
        throw std::invalid_argument("contact columns: " + std::to_string(position.size()) + " positions but " +
                                    std::to_string(radius.size()) + " radii");
    if (m_n == 0)
        return;
    const std::size_t posBytes = m_n * sizeof(Float4), radBytes = m_n * sizeof(float);
    checkDeviceBytes(posBytes + radBytes, "the contact columns of " + std::to_string(m_n) + " bodies");
    try {
        NB_CUDA_CHECK(cudaMalloc(&m_position, posBytes));
        NB_CUDA_CHECK(cudaMalloc(&m_radius, radBytes));
        NB_CUDA_CHECK(cudaMemcpy(m_position, position.data(), posBytes, cudaMemcpyHostToDevice));
        NB_CUDA_CHECK(cudaMemcpy(m_radius, radius.data(), radBytes, cudaMemcpyHostToDevice));
    } catch (...) {
        (void)cudaFree(m_position);
        (void)cudaFree(m_radius);
        throw;
    }
}

DeviceContactColumns::~DeviceContactColumns()
{
    // A destructor cannot throw: a failed free (a lost context) is not reported.
    (void)cudaFree(m_position);
    (void)cudaFree(m_radius);
}

} // namespace nbody::gpu
