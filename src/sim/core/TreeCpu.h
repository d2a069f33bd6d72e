#pragma once
/// \file TreeCpu.h
/// `tree-cpu`: the Barnes–Hut tree code of contracts/Tree.h on the CPU (OpenMP, SIMD through Highway).
/// It builds exactly the tree of the CUDA row `tree` (kernels/TreeForces.cu) — 63-bit Morton
/// keys over the cubic bounding box, bodies sorted by (key, index), Karras's radix tree, fp64
/// moments combined bottom-up (left, right), cells packed with packCell — and walks it per group
/// of kTreeGroupSize consecutive sorted bodies with the group's tight bounding box, so the two
/// rows evaluate the same interaction lists and agree up to the rounding of their sums.
///
/// Sources: Barnes & Hut, Nature 324 (1986); Karras, HPG 2012; Bédorf, Gaburov & Portegies
/// Zwart, J. Comput. Phys. 231 (2012) (Bonsai: group walks, the opening criterion).

#include "sim/core/KernelRegistry.h"
#include "contracts/Tree.h"
#include "contracts/Types.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace nbody {

/// Bodies per group of the walk: consecutive bodies in key order that share one walk (one
/// warp on the GPU; 2 AVX-512 vectors here).
inline constexpr int kTreeGroupSize = tree::kGroupSize;

/// The tree over n bodies as `tree-cpu` builds it (and the tests inspect). Sorted index s runs
/// over [0, n); internal node i over [0, n − 1), node 0 the root when n ≥ 2.
struct HostTree {
    std::size_t n = 0;
    int root = 0;                       ///< the root's reference: node 0, or bodyRef(0) when n = 1
    double lo[3] = {0, 0, 0};           ///< the bounding box's min corner (the keys' origin)
    double scale = 0;                   ///< mortonScale of the bounding box's sides
    std::vector<std::uint64_t> keys;    ///< n Morton keys, sorted (ties in index order)
    std::vector<std::uint32_t> order;   ///< n: the original index of sorted body s
    std::vector<Float4> sorted;         ///< n positions in sorted order
    std::vector<tree::RadixNode> nodes; ///< n − 1 internal nodes (Karras 2012)
    std::vector<tree::Moments> moments; ///< n − 1 fp64 moments of the nodes
    std::vector<tree::Cell> cells;      ///< n − 1 packed cells (packCell with θ)
    std::vector<tree::Group> groups;    ///< the walk's groups (tree::nodeRegions, as on the GPU), in node order
    /// Scratch of the construction, kept so a step allocates nothing once N stops growing.
    struct KeyIndex {
        std::uint64_t key;
        std::uint32_t index;
    };
    std::vector<KeyIndex> pairs;
    std::vector<KeyIndex> pairsBuffer; ///< n: the merge sort's other half (allocated before it runs)
    std::vector<int> parent;     ///< n − 1: the parent node of node i (−1 for the root)
    std::vector<int> bodyParent; ///< n: the node whose child sorted body s is
    std::vector<int> visits;     ///< n − 1: children finished (the bottom-up pass's counters)
};

/// Host bytes per body the tree code uses at most (HostTree's columns, the sort's buffer, the
/// walk's structure of arrays of sorted positions, the walk's depth-first columns; the
/// per-thread lists are O(log N) and not counted): the estimate MemoryBudget adds for a tree row (workspaceFor).
inline constexpr std::size_t kTreeHostBytesPerBody =
    sizeof(std::uint64_t) + sizeof(std::uint32_t) + sizeof(Float4)                  // keys, order, sorted
    + sizeof(tree::RadixNode) + sizeof(tree::Moments) + sizeof(tree::Cell)          // nodes
    + sizeof(tree::Group)                                                           // groups (at most one per body)
    + 2 * sizeof(HostTree::KeyIndex) + 3 * sizeof(int)                              // scratch, sort buffer
    + 3 * sizeof(float)                                                             // SoA x, y, z
    + 2 * (5 * sizeof(float) + 4 * sizeof(int))                                     // the walk's columns (≤ 2 entries per body)
    + sizeof(Float4);                                                               // the relative criterion's pre-pass

/// Builds the tree over pos[0, n) (N Float4: x, y, z, mass) for opening angle θ into `t`
/// (reusing its storage). Keys, sort, nodes and the bottom-up moments run in parallel (OpenMP)
/// and give the same tree for any thread count. Throws std::invalid_argument for θ outside
/// (0, 2] or n ≥ 2^31, std::bad_alloc when memory runs out.
void buildTree(const Float4* pos, std::size_t n, double theta, HostTree& t);

/// `tree-cpu`: acc[i] ≈ G Σ_j m_j r_ij / (|r_ij|² + ε²)^{3/2} by the tree (args.pos, args.acc:
/// N Float4 on the host; ε² in length², θ = args.openingAngle, leaf size args.leafSize).
/// Per group of kTreeGroupSize sorted bodies one walk from the root collects a body list
/// (bodies of opened leaves, bodyBodyInteraction) and a cell list (cells accepted by acceptCell
/// for the group's box, cellInteraction: monopole + quadrupole) — the stack walk of
/// contracts/Tree.h, run as a forward scan of the tree laid out in depth-first order with the
/// acceptance tests of a SIMD vector of entries at once (same lists, same order) — then every body of the group
/// sums the body list and then the cell list in list order, 16/8/4 bodies per SIMD vector
/// (Highway: AVX-512/AVX2/SSE4), reciprocal square roots as in `cpu` (≤ 3e-7 relative).
/// Groups are spread over OpenMP threads (dynamic schedule); each body's sum does not depend on
/// the schedule, so results are bit-identical for any thread count (for one SIMD target).
/// With args.openingAlpha = α > 0 a cell is accepted only when the relative criterion of
/// GADGET-2 (Springel 2005, MNRAS 364, 1105, eq. 18) holds too: G M l² / d⁴ ≤ α |a_old|, M the
/// cell's mass, l its longest side, d the distance from the group's box to its centre of mass,
/// |a_old| the smallest of the group's previous accelerations: args.acc when
/// args.accelerationsValid (read before being overwritten), else a pre-pass of every row with the
/// geometric criterion alone. θ is then the guard (the geometric test still has to pass). Lists
/// then differ from the CUDA row's, which refuses α > 0.
/// Throws std::invalid_argument for θ outside (0, 2] or a leaf size outside 1..kMaxLeafSize
/// (treeParamsProblem's message).
void cpuTreeForces(const HostForceArgs& args);

/// What one evaluation of cpuTreeForces did: interactions summed (body–body and body–cell) over
/// all N bodies. For the benchmark's and docs' counts.
struct TreeWork {
    std::uint64_t bodyInteractions = 0;
    std::uint64_t cellInteractions = 0;
};
/// The interaction counts cpuTreeForces makes for these arguments (walks only, no sums; with
/// α > 0 and no valid accelerations, after the same pre-pass, which is not counted).
TreeWork treeWork(const HostForceArgs& args);

} // namespace nbody
