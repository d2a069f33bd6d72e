/// \file ContactCells.cu
/// The CUDA contact search `cuda-cells`: a uniform-grid cell list (ContactSearch.h has the
/// contract; docs/contact-search.md the algorithm, memory and costs). Kernels are file-local; every
/// CUDA call and launch is checked (CudaCheck.cuh).

#include "ContactWorkspace.cuh"

namespace nbody::gpu {

using namespace contact;

namespace {

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

} // namespace

// ---- cuda-cells ----------------------------------------------------------------------------

std::vector<ContactPair> findContactsCudaCells(const ContactSearchArgs& args)
{
    checkArgs(args, "cuda-cells");
    searchStats() = ContactSearchStats{};
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
    searchStats().cellSize = float(h);
    searchStats().cells = cells >= 1.8e19 ? UINT64_MAX : std::uint64_t(cells);
    searchStats().buckets = buckets;
    searchStats().hashed = g.hashed;

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
    searchStats().candidates = h2[0];
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

} // namespace nbody::gpu
