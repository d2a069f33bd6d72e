#pragma once
/// \file ContactSearch.h
/// The CUDA rows of the contact-search registry (sim/collide/Collisions.h; docs/contact-search.md):
/// launchers with the ContactSearchFn signature (host API, no CUDA headers; the kernels are
/// file-local in ContactSearch.cu). Every row returns exactly the pairs of `cpu-pairs`: all
/// (i, j), i < j, with contactTouching(x_i, R_i, x_j, R_j), sorted by (i, j), unique.
///
/// Input: ContactSearchArgs with `position` (N float4: x, y, z, mass) and `radius` (N floats)
/// in device memory, on args.stream (a cudaStream_t; nullptr: the legacy default stream). Each
/// call synchronises that stream (it returns the pairs in host memory).
///
/// Errors: std::invalid_argument for a null column with N > 0 or N > 2^30; CudaError for a
/// failed CUDA call or launch and for a workspace the device has no memory for;
/// std::length_error when the pairs found do not fit in device or host memory (the message
/// gives their number and the bytes needed; nothing is allocated for them and the workspace
/// stays usable).
///
/// Workspace: device buffers kept between calls (one set per device, grown when a call needs
/// more, never shrunk), guarded by a mutex: calls from several threads run one at a time.
/// releaseContactWorkspaces() frees them; whatever is held at exit goes with the process's CUDA
/// context (no CUDA call is made from a static destructor).

#include "contracts/ContactTypes.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace nbody::gpu {

/// `cuda-pairs` — the non-atomic neighbour list of a chapter on CUDA atomic functions,
/// as per-thread lists: thread i owns body i and tests every
/// j > i, the j-bodies staged in tiles of blockDim.x through shared memory (positions float4 and
/// radii, 20 bytes a body) as the force kernels do. Blocks of 256 threads cover the i, and the j
/// are split into chunks (a second grid dimension) so that no block gets the triangle's longest
/// rows alone and the device is filled: about 64 blocks per SM (32 chunks at N = 65 536 on an
/// H200, 3 at 1 M). Pass 1 stores the count of every (i, chunk); an exclusive scan
/// (cub::DeviceScan::ExclusiveScan into 64-bit offsets) gives each its offset; pass 2 tests
/// again and writes each (i, chunk)'s pairs at its offset in j order, so the list comes out
/// sorted by (i, j) with no sort. Pass 2 stops a thread once its pairs are written and a block
/// once all its threads have. Tests: N(N−1)/2 in pass 1, at most as many in pass 2 (8 fp32
/// operations each: 3 subtractions, a multiply, 2 FMAs, an add and a multiply, then a compare).
/// Memory: 12 bytes per (body, chunk) plus 8 bytes a pair.
std::vector<ContactPair> findContactsCudaPairs(const ContactSearchArgs& args);

/// `cuda-atomic` — that chapter's neighbour list with atomics, as one compacted global list: the
/// same tiled N(N−1)/2 tests over the same blocks and chunks, in one pass; each touching pair takes a slot with atomicAdd on a
/// 64-bit counter (aggregated over the threads of a warp that found a pair at the same step)
/// and stores the key i·2^b + j (b = bits of N − 1) when the slot is below the list's capacity.
/// A counter above the capacity is an overflow: the list grows to the count (+ ¼) and the pass
/// runs again (ContactSearchStats::reruns). The slots' order depends on scheduling, so the keys
/// are sorted (cub::DeviceRadixSort::SortKeys, 2b bits) to restore the (i, j) order, then
/// unpacked. Memory: 16 bytes a pair of capacity (the list and the sort's second buffer); the
/// capacity is kept for the next call (at least 2N + 1024 pairs).
std::vector<ContactPair> findContactsCudaAtomic(const ContactSearchArgs& args);

/// `cuda-cells` — a uniform grid (cell list) for large N. The cell size is h = max(2·Rmax·(1 +
/// 2⁻¹⁰), 2⁻⁶⁰), with Rmax the largest |R_i| reduced on the device (args.maxRadius is not
/// trusted: a stale value cannot lose pairs; Rmax = 0 returns no pairs after that reduction);
/// the margin covers fp32 rounding of the touching test, so two touching bodies are in the
/// same or adjacent cells. Cell coordinates floor(x/h) are computed in fp64 and clamped to the
/// int32 range (NaN → −2^31, ±inf → the ends): clamping is monotone and moves neighbours at most
/// one cell apart, so no pair is lost; only bodies more than 2^31 cells from the origin share
/// the end cells, and a far body does not disturb the others' cells. Buckets: the cell's index
/// in the box of occupied cells (a second reduction) when that box has at most T = bit_ceil(N)
/// cells, else a hash of the cell's coordinates into T buckets. Bodies are sorted by bucket
/// (cub::DeviceRadixSort::SortPairs of (bucket, index)), bucket start/end found by a kernel, and
/// each body, one thread per body in sorted order, scans the buckets of its 27 neighbour cells,
/// keeping candidates j > i whose own cell is that neighbour (so hash collisions and twice-
/// visited buckets neither add nor duplicate pairs) and testing their real distance. Count,
/// scan and write as in `cuda-pairs`, keys i·2^b + j, then one radix sort of the keys (the
/// segments are in i order, the j inside one are not). Degenerate inputs stay correct, only
/// slower: all bodies in one cell is O(N²/2). Memory: about 80 bytes a body plus 16 bytes a pair.
std::vector<ContactPair> findContactsCudaCells(const ContactSearchArgs& args);

/// What the calling thread's last CUDA contact search did (for tests and `nbody bench`).
struct ContactSearchStats {
    std::uint64_t pairs = 0;        ///< touching pairs returned
    std::uint64_t candidates = 0;   ///< pair tests (j > i) of the counting pass: N(N−1)/2 for the all-pairs rows
    int reruns = 0;                 ///< cuda-atomic: passes repeated because the list overflowed
    std::uint64_t capacity = 0;     ///< cuda-atomic: pairs the list could hold in its last pass
    float cellSize = 0;             ///< cuda-cells: h (0: no grid was built)
    std::uint64_t cells = 0;        ///< cuda-cells: cells of the clamped grid
    std::uint64_t buckets = 0;      ///< cuda-cells: buckets (cells when not hashed)
    bool hashed = false;            ///< cuda-cells: the cells were hashed into the buckets
    std::size_t workspaceBytes = 0; ///< device workspace held after the call (this device)
};
ContactSearchStats lastContactSearchStats();

/// Frees the workspaces of every device (the next call allocates again). Throws CudaError
/// when a free fails; call it with no search running.
void releaseContactWorkspaces();

/// A device copy of host columns for a CUDA row (RAII: freed by the destructor).
class DeviceContactColumns {
public:
    /// Uploads `position` and `radius` (the same length; invalid_argument otherwise). Checks the
    /// device's free memory first (CudaError naming the bytes). Empty columns allocate nothing.
    DeviceContactColumns(std::span<const Float4> position, std::span<const float> radius);
    ~DeviceContactColumns();
    DeviceContactColumns(const DeviceContactColumns&) = delete;
    DeviceContactColumns& operator=(const DeviceContactColumns&) = delete;

    const Float4* position() const { return m_position; }
    const float* radius() const { return m_radius; }
    std::size_t size() const { return m_n; }

private:
    Float4* m_position = nullptr;
    float* m_radius = nullptr;
    std::size_t m_n = 0;
};

} // namespace nbody::gpu
