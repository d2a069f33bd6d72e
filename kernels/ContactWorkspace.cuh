#pragma once
/// \file ContactWorkspace.cuh
/// What the CUDA contact searches share (ContactSearch.cu: cuda-pairs, cuda-atomic;
/// ContactCells.cu: cuda-cells; ContactWorkspace.cu): the per-device workspace of grown-on-demand
/// buffers, the read-backs and the sort that turns pair keys into the sorted pair list. Internal
/// to kernels/.

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

namespace nbody::gpu::contact {

namespace cg = cooperative_groups;

using u64 = unsigned long long;

static_assert(sizeof(ContactPair) == sizeof(uint2) && offsetof(ContactPair, j) == 4,
              "ContactPair must have uint2's layout (i, j): the kernels write uint2");

/// Relative margin of the cell size over 2·Rmax (fp32 rounding of the touching test, see
/// findContactsCudaCells) and its floor (keeps (2·Rmax)² a normal fp32 number).
inline constexpr double kCellMargin = 1.0 + 0x1.0p-10;
inline constexpr double kMinCellSize = 0x1.0p-60;
/// The most bodies a CUDA row takes: 32-bit indices with room for a tile past the last body.
inline constexpr std::size_t kMaxBodies = std::size_t(1) << 30;
/// The list of `cuda-atomic` holds at least this many pairs beyond 2N.
inline constexpr std::uint64_t kMinAtomicCapacity = 1024;

__device__ __forceinline__ Float4 toFloat4(const float4& p) { return Float4{p.x, p.y, p.z, p.w}; }

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

inline const char* const kSlotNames[kSlotCount] = {
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

std::mutex& workspaceMutex();

/// The workspaces by device. Allocated once and never destroyed (see ~Workspace).
std::map<int, std::unique_ptr<Workspace>>& workspaces();

/// The current device's workspace (the caller holds workspaceMutex()).
Workspace& workspaceHere();

/// The statistics of this thread's last search (lastContactSearchStats).
ContactSearchStats& searchStats();

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

inline int gridFor(std::size_t n, int block) { return int((n + std::size_t(block) - 1) / std::size_t(block)); }

/// Number of bits of n − 1 (at least 1): i, j < n fit in that many.
inline int indexBits(std::size_t n) { return std::max(1, int(std::bit_width(std::uint64_t(n - 1)))); }
void checkArgs(const ContactSearchArgs& a, const char* row);

/// Refuses `pairs` pairs that need `deviceBytesPerPair` bytes each on the device (beyond what
/// the workspace already holds in `held` bytes) or 8 bytes each on the host: std::length_error
/// naming the count and the bytes.
void checkPairsFit(const char* row, std::uint64_t pairs, std::size_t deviceBytesPerPair, std::size_t held);

/// Reads `bytes` (at most 32) from the device into the workspace's pinned block; synchronises.
const void* readBytes(Workspace& w, const void* device, std::size_t bytes, cudaStream_t stream);

/// Reads `count` (≤ 4) u64 scalars from the device; synchronises.
const u64* readScalars(Workspace& w, const u64* device, int count, cudaStream_t stream);

/// The pairs (uint2 on the device, `count` of them) copied into a host vector; synchronises.
std::vector<ContactPair> download(const uint2* pairs, std::uint64_t count, cudaStream_t stream);

/// Sorts `count` keys (2·shift significant bits) held in slot kKeysA, unpacks them into pairs
/// and downloads them. Needs kKeysB of the same size (allocated by the caller).
std::vector<ContactPair> sortUnpackDownload(Workspace& w, std::uint64_t count, int shift, cudaStream_t stream);

inline std::uint64_t allPairs(std::size_t n) { return n < 2 ? 0 : std::uint64_t(n) * (n - 1) / 2; }
void finish(Workspace& w, std::uint64_t pairs);

} // namespace nbody::gpu::contact
