#pragma once
/// \file ForceArgs.h
/// The contract between the core and every force kernel, host or device: the backends, precisions
/// and memory layouts, the arguments of one force evaluation over a range of rows, and the
/// registry row (KernelInfo) that describes a kernel. The CUDA kernels (kernels/) depend on this
/// and the other contracts headers only.

#include "contracts/Types.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

namespace nbody {

enum class Backend { Cpu, Cuda };

/// How a row evaluates the forces: every pair (N² interactions, exact up to rounding), or a
/// Barnes–Hut tree (contracts/Tree.h: O(N log N), approximate; error set by θ).
enum class ForceMethod { AllPairs, Tree };

/// The tree rows' defaults: opening angle θ and bodies per leaf cell at most (SimParams).
inline constexpr float kDefaultOpeningAngle = 0.3f;
inline constexpr int kDefaultLeafSize = 16;

/// Threads per block of CUDA rows whose block size is on auto and that state no default.
inline constexpr int kDefaultBlockSize = 256;
enum class Precision { Fp32, Fp64 };

/// Memory layout of the state a kernel works on (positions always carry the mass in w).
enum class Layout {
    Float4,  ///< positions float4 (x, y, z, m); velocities, accelerations float4 (x, y, z, 0)
    Float3,  ///< positions float4 (x, y, z, m); velocities, accelerations, workspace float3 (12 B)
    Double4, ///< positions double4 (x, y, z, m); velocities, accelerations double4 (x, y, z, 0)
};

/// Bytes of one velocity / acceleration element of the layout (16, 12, 32).
inline std::size_t vectorBytes(Layout l)
{
    return l == Layout::Float4 ? sizeof(Float4) : l == Layout::Float3 ? sizeof(Float3) : sizeof(Double4);
}
/// Bytes of one position element of the layout (16, 16, 32).
inline std::size_t positionBytes(Layout l)
{
    return l == Layout::Double4 ? sizeof(Double4) : sizeof(Float4);
}

/// The bodies i whose accelerations a force kernel writes: [iBegin, iEnd), each summed over all
/// N bodies j in the same order as a call over every body, so the rows of a sub-range are bit
/// for bit the same rows of the full result (deterministic rows; the distributed backend, src/mpi,
/// gives each rank one range). iEnd = kAllRows (the default) means N. acc keeps N elements,
/// indexed by the global i; the rows outside the range are left as they were.
inline constexpr std::size_t kAllRows = static_cast<std::size_t>(-1);

/// Arguments of a host force kernel: acc[i] = G Σ_j m_j r_ij / (|r_ij|² + ε²)^{3/2}.
/// pos, acc: N elements in the kernel's layout (Float4 rows: Float4; Double4 rows: Double4);
/// host memory; acc[i] is written (w = 0) for i in [iBegin, iEnd) only.
///
/// Active rows (block time steps, sim/core/BlockSteps.h): when `active` is not null, the rows
/// written are active[0 .. activeCount) instead of [iBegin, iEnd) (which must then be the whole
/// range): ascending indices < n, each row summed over all N bodies j exactly as in a call over
/// every row, so an active row is bit for bit the same row of the full result. Every host row
/// honours it (an all-pairs kernel sums the listed rows against all j; the tree walks only the
/// groups that hold a listed body).
struct HostForceArgs {
    const void* pos = nullptr;
    void* acc = nullptr;
    std::size_t n = 0;
    double eps2 = 0.0; ///< softening ε², length²
    double G = 1.0;    ///< gravitational constant
    double openingAngle = kDefaultOpeningAngle; ///< tree rows: opening angle θ (SimParams::openingAngle)
    int leafSize = kDefaultLeafSize;                 ///< tree rows: bodies per leaf cell at most (SimParams::leafSize)
    /// Tree rows: α of the relative opening criterion (SimParams::openingAlpha); 0: none.
    double openingAlpha = 0.0;
    /// acc holds this system's accelerations of a previous evaluation (the last step's; every
    /// row). The relative opening criterion reads them as |a_old| before the rows are
    /// overwritten; false: the tree row makes its own by a pre-pass at openingAngle.
    bool accelerationsValid = false;
    std::size_t iBegin = 0;        ///< first body i written
    std::size_t iEnd = kAllRows;   ///< one past the last body i written (kAllRows: n)
    const std::uint32_t* active = nullptr; ///< the rows written, ascending (nullptr: [iBegin, iEnd))
    std::size_t activeCount = 0;           ///< entries of `active`
};

/// [iBegin, iEnd) of force arguments with kAllRows resolved to n. Throws std::invalid_argument
/// when iBegin > iEnd or iEnd > n (the message names the range and N).
struct RowRange {
    std::size_t begin = 0, end = 0;
    std::size_t size() const { return end - begin; }
};
inline RowRange rowRange(std::size_t iBegin, std::size_t iEnd, std::size_t n)
{
    const std::size_t end = iEnd == kAllRows ? n : iEnd;
    if (iBegin > end || end > n)
        throw std::invalid_argument("force rows [" + std::to_string(iBegin) + ", " +
                                    (iEnd == kAllRows ? std::string("N") : std::to_string(iEnd)) +
                                    ") are not a range of the " + std::to_string(n) + " bodies");
    return {iBegin, end};
}

/// The checks of an active-row list that hold for every row, host or device
/// (HostForceArgs/DeviceForceArgs::active): it goes with the whole range of rows, [0, n), and
/// has at most n entries. Returns activeCount. Throws std::invalid_argument naming the problem.
inline std::size_t activeRowCount(std::size_t iBegin, std::size_t iEnd, std::size_t n, std::size_t activeCount)
{
    if (iBegin != 0 || (iEnd != kAllRows && iEnd != n))
        throw std::invalid_argument("force rows: an active-row list goes with the whole range of rows, not [" +
                                    std::to_string(iBegin) + ", " + std::to_string(iEnd) + ")");
    if (activeCount > n)
        throw std::invalid_argument("force rows: " + std::to_string(activeCount) + " active rows of " +
                                    std::to_string(n) + " bodies");
    return activeCount;
}
/// The entries of an active-row list in host memory: ascending, each below n. Throws
/// std::invalid_argument naming the first entry that is not.
inline void checkActiveList(const std::uint32_t* active, std::size_t count, std::size_t n)
{
    for (std::size_t s = 0; s < count; ++s)
        if (active[s] >= n || (s > 0 && active[s] <= active[s - 1]))
            throw std::invalid_argument("force rows: active row entry " + std::to_string(s) + " (body " +
                                        std::to_string(active[s]) + ") is not ascending below N = " +
                                        std::to_string(n));
}

/// Arguments of a CUDA force kernel: same contract, device pointers, plus launch parameters.
/// pos: N positions and acc: N accelerations on the device, in the row's layout; acc[i] is
/// written for i in [iBegin, iEnd) only.
struct DeviceForceArgs {
    const void* pos = nullptr;   ///< device, N positions (x, y, z, mass)
    void* acc = nullptr;         ///< device, N accelerations (ax, ay, az[, 0]), written
    void* workspace = nullptr;   ///< device scratch of at least KernelInfo::workspace(args) bytes
    std::size_t n = 0;
    double eps2 = 0.0;           ///< softening ε², length² (fp32 kernels round it)
    double G = 1.0;              ///< gravitational constant (fp32 kernels round it)
    int blockSize = 256;         ///< threads per block (1D kernels); threads along j (2D kernels)
    int blockRows = 1;           ///< 2D kernels: rows (bodies i) per block
    int tileWidthFactor = 1;     ///< `tiled`: tile = blockSize × factor bodies
    int bodiesPerThread = 1;     ///< `blocked` rows: i-bodies per thread (register blocking)
    int jSplit = 1;              ///< `blocked` rows: pieces of the j-range, one grid row each
    int unroll = 4;              ///< `blocked` rows: unroll factor of the loop over a tile
    float openingAngle = kDefaultOpeningAngle; ///< tree rows: opening angle θ (SimParams::openingAngle)
    int leafSize = kDefaultLeafSize;                ///< tree rows: bodies per leaf cell at most (SimParams::leafSize)
    /// Tree rows: α of the relative opening criterion (SimParams::openingAlpha); 0: none.
    double openingAlpha = 0.0;
    /// acc holds this system's accelerations of a previous evaluation (every row, times G): the
    /// relative criterion's |a_old|; false: the tree row makes its own by a geometric pre-pass.
    bool accelerationsValid = false;
    std::size_t iBegin = 0;      ///< first body i written (see kAllRows; launch parameters follow n, not the range)
    std::size_t iEnd = kAllRows; ///< one past the last body i written (kAllRows: n)
    /// Active rows (block time steps), as HostForceArgs::active: when not null, the rows written
    /// are active[0 .. activeCount) — device memory, ascending indices < n — instead of [iBegin,
    /// iEnd) (which must then be the whole range), each bit for bit the same row as in a pass over
    /// every row. Read only by rows with KernelInfo::activeRows; DeviceState gives the others
    /// every row instead.
    const std::uint32_t* active = nullptr;
    std::size_t activeCount = 0; ///< entries of `active`
    /// cudaStream_t (nullptr: the default stream). A launcher enqueues all its work (launches,
    /// memsets) into it and nowhere else: a step's CUDA graph is captured from this stream.
    void* stream = nullptr;

    /// Every field (a captured CUDA graph is replayed only for the arguments it was captured with).
    bool operator==(const DeviceForceArgs&) const = default;
};

using HostForceFn = void (*)(const HostForceArgs&);
/// Launches the kernel (asynchronously). Throws CudaError when a CUDA call or the launch fails,
/// std::invalid_argument when the launch parameters are refused (as the check says).
using DeviceForceFn = void (*)(const DeviceForceArgs&);
/// Returns "" when the launch parameters can run on the current device, else a message naming
/// the limit ("block size 2048 is outside 1..1024 (the device's maximum threads per block)").
using DeviceCheckFn = std::string (*)(const DeviceForceArgs&);
/// Bytes of device workspace the kernel needs for these arguments (0: none).
using WorkspaceFn = std::size_t (*)(const DeviceForceArgs&);

/// Which SimParams launch parameters a kernel reads (the others are ignored by it).
struct KernelParamUse {
    bool blockSize = false;
    bool blockRows = false;
    bool tileWidthFactor = false;
    bool bodiesPerThread = false;
    bool jSplit = false;
    bool unroll = false;
};

/// Fills the launch parameters of `args` that are 0 (auto) with the row's choice for the
/// current device and args.n (a heuristic; the tuner measures instead). Throws CudaError.
using LaunchDefaultsFn = void (*)(DeviceForceArgs& args);

/// One row of the registry.
struct KernelInfo {
    std::string_view id;          ///< stable identifier used by the CLI and settings ("tiled")
    std::string_view name;        ///< menu text
    std::string_view description; ///< tooltip: algorithm, memory traffic, when it wins
    Backend backend;
    Precision precision;
    Layout layout;
    bool deterministic;           ///< same input gives bit-identical output
    KernelParamUse params;        ///< launch parameters this kernel reads
    int flopsPerInteraction;      ///< 20 (fp32) or 30 (fp64), the nbody sample's convention
    HostForceFn host = nullptr;   ///< CPU rows
    DeviceForceFn device = nullptr; ///< CUDA rows (nullptr in a CPU-only build)
    DeviceCheckFn check = nullptr;  ///< CUDA rows
    WorkspaceFn workspace = nullptr; ///< CUDA rows that need scratch memory
    /// Issue slots (warp instructions per lane) one interaction costs in the inner loop, as
    /// counted from the kernel's instruction mix: the device's ceiling for this row is
    /// SMs × lanes per SM × clock ÷ slots (docs/performance.md). 0: not stated.
    int slotsPerInteraction = 0;
    LaunchDefaultsFn defaults = nullptr; ///< CUDA rows with parameters beyond the block size
    ForceMethod method = ForceMethod::AllPairs; ///< all pairs, or a tree (reads openingAngle, leafSize)
    /// CUDA rows: the launcher honours DeviceForceArgs::iBegin / iEnd cheaply (every all-pairs row),
    /// so DeviceState may split a force pass into slices of bodies i (SimParams::forceSlices, the
    /// display watchdog). false: always one launch over all of the rows.
    bool iSlices = true;
    /// CUDA rows: the launcher honours DeviceForceArgs::active, at the cost of the listed rows
    /// (block time steps evaluate the active bodies only). false: DeviceState evaluates every row
    /// for an active list (the extra rows are not read before they are evaluated again).
    bool activeRows = false;
};

} // namespace nbody
