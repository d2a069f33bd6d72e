#pragma once
/// \file Collisions.h
/// Contact search and perfectly inelastic merging (the collision system).
///
/// Two bodies touch when the distance between their centres is less than the sum of their
/// radii: |x_j − x_i|² < (R_i + R_j)², evaluated in fp32 in one fixed order with fused
/// multiply-adds (contactTouching), so every search — CPU or CUDA, all pairs or cell list —
/// finds exactly the same pairs. A body of radius 0 touches only bodies of positive radius that
/// contain its centre; two bodies of radius 0 never touch.
///
/// Searches are rows of a registry (contactSearches()), like the force kernels: a chapter on CUDA
/// atomic functions builds an O(N²) neighbour list on the GPU
/// with and without atomics; the rows here are that idea plus a uniform-grid cell list.

#include "Interaction.h" // NB_HD
#include "KernelRegistry.h" // Backend
#include "Types.h"

#include <cmath>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace nbody {

/// A touching pair of bodies by index, i < j. Searches return them sorted by (i, j), unique.
struct ContactPair {
    std::uint32_t i = 0;
    std::uint32_t j = 0;
    friend bool operator==(const ContactPair&, const ContactPair&) = default;
};

/// True when the spheres (xi, ri) and (xj, rj) overlap: |xj − xi|² < (ri + rj)², in fp32 with
/// this exact order of operations (d² = fma(dz, dz, fma(dy, dy, dx·dx)), s = ri + rj, d² < s·s)
/// on the host and the device, so every search row agrees bit for bit on which pairs touch.
NB_HD bool contactTouching(Float4 xi, float ri, Float4 xj, float rj)
{
    const float dx = xj.x - xi.x;
    const float dy = xj.y - xi.y;
    const float dz = xj.z - xi.z;
#if defined(__CUDA_ARCH__)
    const float d2 = __fmaf_rn(dz, dz, __fmaf_rn(dy, dy, __fmul_rn(dx, dx)));
    const float s = __fadd_rn(ri, rj);
    return d2 < __fmul_rn(s, s);
#else
    const float d2 = std::fma(dz, dz, std::fma(dy, dy, dx * dx));
    const float s = ri + rj;
    return d2 < s * s;
#endif
}

/// Input of a contact search. `position` (N Float4: x, y, z, mass) and `radius` (N floats,
/// length units, ≥ 0 and finite) are in host memory for Backend::Cpu rows and in device memory
/// for Backend::Cuda rows.
///
/// Simulation's collision system (after every step with SimParams::collisions) passes, for a
/// Backend::Cuda row: position = DeviceState::contactPositions(current) (the current position
/// buffer; a float4 rounding of the fp64 state for the Double4 layout), radius =
/// DeviceState::radius(), n = N, maxRadius = World::maxRadius() of the host's radius column
/// (exact), stream = nullptr (the legacy default stream, where the steps run); the pairs come
/// back in host memory. For a Backend::Cpu row, the host World's columns.
struct ContactSearchArgs {
    const Float4* position = nullptr;
    const float* radius = nullptr;
    std::size_t n = 0;
    float maxRadius = 0;    ///< the largest radius (the cell list's cell size is 2 × maxRadius)
    void* stream = nullptr; ///< Cuda rows: the cudaStream_t to run on (nullptr: the default stream)
};

/// Finds every touching pair (contactTouching), sorted by (i, j). Throws std::invalid_argument
/// for bad input (a null column with n > 0), CudaError for a failed CUDA call or launch,
/// std::bad_alloc / std::length_error when the pairs do not fit in memory.
using ContactSearchFn = std::vector<ContactPair> (*)(const ContactSearchArgs&);

/// One row of the contact-search registry.
struct ContactSearchInfo {
    std::string_view id;          ///< CLI / settings identifier ("cpu-pairs")
    std::string_view name;        ///< menu text
    std::string_view description; ///< tooltip: algorithm, memory, when it wins
    Backend backend;              ///< where `position` and `radius` live
    ContactSearchFn find = nullptr; ///< nullptr: not built in this configuration
};

/// Every contact-search row (CPU rows first).
std::span<const ContactSearchInfo> contactSearches();
/// The row with this id, or nullptr.
const ContactSearchInfo* findContactSearch(std::string_view id);

/// The all-pairs search on the host, O(N²/2) pair tests, OpenMP over i (row `cpu-pairs`): the
/// simplest correct search, the reference the other rows are tested against.
std::vector<ContactPair> findContactsCpuPairs(const ContactSearchArgs& args);

/// The cell-list search on the host (row `cpu-cells`): a uniform grid of cell edge
/// h = 2 · maxRadius · (1 + 2^-10) — the margin covers the fp32 rounding of contactTouching,
/// so a touching pair is never two cells apart — enlarged where an axis would need more than
/// 2^21 − 2 cells (sparse systems of tiny bodies). Bodies are sorted by packed cell key (ties by
/// index; radius-0 bodies are indexed like the others, bodies with a non-finite coordinate touch
/// nothing and are left out); each pair of neighbouring cells (27 per cell) is tested once from
/// the cell with the smaller key, OpenMP over cells; the pairs are then sorted. Same pairs as
/// cpu-pairs: each is tested by contactTouching with the lower index first. maxRadius is taken
/// from the column (args.maxRadius is not trusted). O(N log N) for evenly spread bodies of
/// similar size, O(N²) when all crowd into one cell. Throws std::invalid_argument for a null
/// column with n > 0, more than 2^32 − 1 bodies, or a negative or non-finite radius.
std::vector<ContactPair> findContactsCpuCells(const ContactSearchArgs& args);

/// One merge applied by the collision system: body `absorbedId` merged into `survivorId`
/// (stable ids, World::ids(); the survivor is the lower index of the pair).
struct MergeRecord {
    std::uint32_t survivorId = 0;
    std::uint32_t absorbedId = 0;
    std::uint64_t step = 0;   ///< the step after which it happened
    double time = 0;          ///< simulated time
    double energyLost = 0;    ///< kinetic energy of the relative motion lost (≥ 0), energy units
    /// E_after − E_before of the whole system at this merge: the kinetic energy lost (with the
    /// survivor's rounding), plus the potential change — the pair's softened mutual term
    /// disappears and its terms with the other bodies become the survivor's
    /// (sim/CollisionSystem.h). Energy units; −Σ energyChange is Diagnostics::energyLost.
    double energyChange = 0;
};

} // namespace nbody
