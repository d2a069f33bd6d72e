/// \file ContactSearch.cu
/// The CUDA contact searches `cuda-pairs` and `cuda-atomic` (`cuda-cells`: ContactCells.cu) (ContactSearch.h has
/// their contracts; docs/contact-search.md the algorithms, memory and costs). Kernels are
/// file-local; every CUDA call and launch is checked (CudaCheck.cuh).

#include "ContactWorkspace.cuh"

namespace nbody::gpu {

using namespace contact;

namespace {

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

} // namespace

// ---- cuda-pairs ----------------------------------------------------------------------------

std::vector<ContactPair> findContactsCudaPairs(const ContactSearchArgs& args)
{
    checkArgs(args, "cuda-pairs");
    searchStats() = ContactSearchStats{};
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
    searchStats().candidates = allPairs(args.n);
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
    searchStats() = ContactSearchStats{};
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
        searchStats().capacity = capacity;
        if (count <= capacity) {
            total = count;
            break;
        }
        if (searchStats().reruns > 0) // the second pass had room for the first one's count
            throw std::logic_error("contact search (cuda-atomic): the pair count changed between two passes");
        // Overflow: room for this count (and a quarter more when it fits), then the pass again.
        ++searchStats().reruns;
        checkPairsFit("cuda-atomic", count, 2 * sizeof(u64), w.capacity(kKeysA) + w.capacity(kKeysB));
        capacity = count;
        (void)w.get<u64>(kKeysB, capacity * sizeof(u64));
        keys = w.get<u64>(kKeysA, capacity * sizeof(u64));
        capacity = std::max<std::uint64_t>(capacity, std::min(w.capacity(kKeysA), w.capacity(kKeysB)) / sizeof(u64));
    }
    w.atomicCapacity = capacity;
    searchStats().candidates = allPairs(args.n);
    if (total == 0) {
        finish(w, 0);
        return {};
    }
    std::vector<ContactPair> out = sortUnpackDownload(w, total, shift, stream);
    finish(w, total);
    return out;
}

} // namespace nbody::gpu
