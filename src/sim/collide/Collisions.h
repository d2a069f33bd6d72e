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

#include "contracts/ContactTypes.h"
#include "contracts/ForceArgs.h" // Backend

#include <cmath>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace nbody {

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
    /// (sim/collide/CollisionSystem.h). Energy units; −Σ energyChange is Diagnostics::energyLost.
    double energyChange = 0;
};

} // namespace nbody
