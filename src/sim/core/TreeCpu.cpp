/// \file TreeCpu.cpp
/// The `tree-cpu` row: the tree of contracts/Tree.h built with OpenMP and walked per group of bodies,
/// the interaction lists evaluated with Highway SIMD vectors over the group's bodies (compiled
/// once per SIMD target by foreach_target.h and chosen at run time, as CpuForcesSimd.cpp). See
/// TreeCpu.h for the contract.

// Re-included by foreach_target.h once per target (HWY_TARGET_INCLUDE names this file).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "sim/core/TreeCpu.cpp"
#include <hwy/foreach_target.h> // IWYU pragma: keep

#include <hwy/highway.h>

#include "sim/core/SimdRsqrt-inl.h"

#include "contracts/Interaction.h"
#include "sim/base/Parallel.h"
#include "sim/core/TreeCpu.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#ifndef NBODY_TREE_CPU_ONCE_
#define NBODY_TREE_CPU_ONCE_
namespace nbody::treecpu {

/// The walk's result for one group: what every body of the group sums, in this order.
struct Lists {
    /// Body list as ranges (first, count) of sorted bodies, in walk order: an opened leaf is one
    /// range, not copies of its bodies (the copies cost as much as the sums).
    std::vector<std::pair<int, int>> ranges;
    std::vector<tree::Cell> cells;  ///< accepted cells
    std::vector<int> stack;         ///< the walk's stack of references
};

/// The box of the sorted bodies [first, first + count): centre g and half sides h in fp32 from
/// the bodies' min and max coordinates (tree::groupBoxAxis: rounded to contain them).
struct GroupBox {
    float gx, gy, gz, hx, hy, hz;
};

inline GroupBox groupBox(const Float4* sorted, std::size_t first, std::size_t count)
{
    float lx = sorted[first].x, ly = sorted[first].y, lz = sorted[first].z;
    float ux = lx, uy = ly, uz = lz;
    for (std::size_t k = first + 1; k < first + count; ++k) {
        const Float4& p = sorted[k];
        lx = std::min(lx, p.x), ly = std::min(ly, p.y), lz = std::min(lz, p.z);
        ux = std::max(ux, p.x), uy = std::max(uy, p.y), uz = std::max(uz, p.z);
    }
    GroupBox b{};
    tree::groupBoxAxis(lx, ux, b.gx, b.hx);
    tree::groupBoxAxis(ly, uy, b.gy, b.hy);
    tree::groupBoxAxis(lz, uz, b.gz, b.hz);
    return b;
}

/// The walk of contracts/Tree.h for one group (the CUDA row's, one reference at a time): a body child
/// goes to the body list; a cell accepted for the box to the cell list; a cell of at most
/// leafSize bodies gives its bodies to the body list; any other cell is opened (left first).
inline void walk(const HostTree& t, const GroupBox& g, int leafSize, Lists& l)
{
    l.ranges.clear();
    l.cells.clear();
    l.stack.clear();
    l.stack.push_back(t.root);
    while (!l.stack.empty()) {
        const int ref = l.stack.back();
        l.stack.pop_back();
        if (tree::isBodyRef(ref)) {
            l.ranges.push_back({tree::bodyOf(ref), 1});
            continue;
        }
        const tree::Cell& c = t.cells[std::size_t(ref)];
        if (tree::acceptCell(c, g.gx, g.gy, g.gz, g.hx, g.hy, g.hz))
            l.cells.push_back(c);
        else if (c.count <= leafSize)
            l.ranges.push_back({c.first, c.count});
        else {
            l.stack.push_back(c.right);
            l.stack.push_back(c.left);
        }
    }
}

} // namespace nbody::treecpu
#endif // NBODY_TREE_CPU_ONCE_

HWY_BEFORE_NAMESPACE();
namespace nbody {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

/// i vectors evaluated together against each list entry (each broadcast entry feeds kRows
/// vectors; as in CpuForcesSimd.cpp).
constexpr std::size_t kRows = 2;

/// Sums the lists for the bodies [i0, i0 + kRows·L) of x, y, z (sorted, padded) into acc
/// (written, fp32, without G: ax | ay | az, kRows·L each).
template <bool Guard>
HWY_INLINE void SumLists(const float* HWY_RESTRICT x, const float* HWY_RESTRICT y, const float* HWY_RESTRICT z,
                         std::size_t i0, const treecpu::Lists& l, const Float4* HWY_RESTRICT sorted, float eps2,
                         float* HWY_RESTRICT out)
{
    using D = hn::ScalableTag<float>;
    using V = hn::Vec<D>;
    const D d;
    const std::size_t L = hn::Lanes(d);
    const V vEps2 = hn::Set(d, eps2);
    const V zero = hn::Zero(d);
    V xi[kRows], yi[kRows], zi[kRows], ax[kRows], ay[kRows], az[kRows];
    for (std::size_t r = 0; r < kRows; ++r) {
        xi[r] = hn::LoadU(d, x + i0 + r * L);
        yi[r] = hn::LoadU(d, y + i0 + r * L);
        zi[r] = hn::LoadU(d, z + i0 + r * L);
        ax[r] = ay[r] = az[r] = zero;
    }
    // Body list: bodyBodyInteraction with u = 2/√(r² + ε²) and m/8 (as the `cpu` kernel; the
    // ½ of Newton's step folded into the mass, exactly: a power of two).
    for (const auto& [from, count] : l.ranges)
    for (const Float4* b = sorted + from; b != sorted + from + count; ++b) {
        const V xj = hn::Set(d, b->x), yj = hn::Set(d, b->y), zj = hn::Set(d, b->z), mj = hn::Set(d, b->w * 0.125f);
        for (std::size_t r = 0; r < kRows; ++r)
            AddPair<Guard>(d, xj, yj, zj, mj, xi[r], yi[r], zi[r], vEps2, ax[r], ay[r], az[r]);
    }
    // Cell list: cellInteraction (contracts/Tree.h) term by term. A cell is never at zero distance
    // from a body of the group (it was accepted: the group's box lies outside its critical
    // sphere), and no power beyond r⁻⁴ is formed (coincident bodies with ε² = 0).
    const V half = hn::Set(d, 0.5f);
    const V twoAndHalf = hn::Set(d, 2.5f);
    for (const tree::Cell& c : l.cells) {
        const V cx = hn::Set(d, c.cx), cy = hn::Set(d, c.cy), cz = hn::Set(d, c.cz), m = hn::Set(d, c.m);
        const V qxx = hn::Set(d, c.qxx), qyy = hn::Set(d, c.qyy), qzz = hn::Set(d, c.qzz);
        const V qxy = hn::Set(d, c.qxy), qxz = hn::Set(d, c.qxz), qyz = hn::Set(d, c.qyz);
        for (std::size_t r = 0; r < kRows; ++r) {
            const V dx = hn::Sub(cx, xi[r]);
            const V dy = hn::Sub(cy, yi[r]);
            const V dz = hn::Sub(cz, zi[r]);
            const V r2 = hn::MulAdd(dz, dz, hn::MulAdd(dy, dy, hn::MulAdd(dx, dx, vEps2)));
            const V inv = hn::Mul(half, TwiceRsqrt(d, r2));
            const V inv2 = hn::Mul(inv, inv);
            // a += r⁻² ((M + t) u − r⁻² Q u), u = d/r, t = 2.5 uᵀQu r⁻² (see cellInteraction)
            const V ux = hn::Mul(dx, inv), uy = hn::Mul(dy, inv), uz = hn::Mul(dz, inv);
            const V qux = hn::MulAdd(qxz, uz, hn::MulAdd(qxy, uy, hn::Mul(qxx, ux)));
            const V quy = hn::MulAdd(qyz, uz, hn::MulAdd(qyy, uy, hn::Mul(qxy, ux)));
            const V quz = hn::MulAdd(qzz, uz, hn::MulAdd(qyz, uy, hn::Mul(qxz, ux)));
            const V uqu = hn::MulAdd(uz, quz, hn::MulAdd(uy, quy, hn::Mul(ux, qux)));
            const V w = hn::MulAdd(hn::Mul(twoAndHalf, uqu), inv2, m);
            ax[r] = hn::MulAdd(inv2, hn::NegMulAdd(inv2, qux, hn::Mul(w, ux)), ax[r]);
            ay[r] = hn::MulAdd(inv2, hn::NegMulAdd(inv2, quy, hn::Mul(w, uy)), ay[r]);
            az[r] = hn::MulAdd(inv2, hn::NegMulAdd(inv2, quz, hn::Mul(w, uz)), az[r]);
        }
    }
    const std::size_t block = kRows * L;
    for (std::size_t r = 0; r < kRows; ++r) {
        hn::StoreU(ax[r], d, out + r * L);
        hn::StoreU(ay[r], d, out + block + r * L);
        hn::StoreU(az[r], d, out + 2 * block + r * L);
    }
}

/// Bodies the SIMD sums take at once on this target (kRows vectors).
std::size_t BlockBodies()
{
    const hn::ScalableTag<float> d;
    return kRows * hn::Lanes(d);
}

/// For every group of kTreeGroupSize sorted bodies: the walk, then the sums of its lists for
/// the group's bodies in blocks of BlockBodies(); acc[order[s]] = G · a_s. x, y, z: the sorted
/// positions, padded to a whole number of groups plus one block with copies of the last body.
void TreeSums(const HostTree& t, const float* x, const float* y, const float* z, float eps2, float G,
              int leafSize, std::size_t iBegin, std::size_t iEnd, const std::uint8_t* activeMask, Float4* acc)
{
    const std::size_t n = t.n;
    const auto groups = static_cast<std::ptrdiff_t>(t.groups.size());
    const std::size_t block = BlockBodies();
    const bool guard = eps2 < kMinUnguardedEps2;
    // The lists grow on the worker threads: what they throw (std::bad_alloc when memory runs
    // short) is rethrown after the region instead of ending the process.
    ParallelErrors errors;
#pragma omp parallel if (std::ptrdiff_t(n) >= kParallelPairsFrom)
    {
        treecpu::Lists l;
        std::vector<float> sums;
        errors.run([&] { sums.resize(3 * block); });
#pragma omp for schedule(dynamic, 4)
        for (std::ptrdiff_t g = 0; g < groups; ++g) errors.run([&] {
            const std::size_t first = std::size_t(t.groups[std::size_t(g)].first);
            const std::size_t count = std::size_t(t.groups[std::size_t(g)].count);
            if (activeMask) { // block time steps: only the groups that hold an active body walk
                bool any = false;
                for (std::size_t s = first; s < first + count && !any; ++s)
                    any = activeMask[t.order[s]] != 0;
                if (!any)
                    return;
            }
            treecpu::walk(t, treecpu::groupBox(t.sorted.data(), first, count), leafSize, l);
            for (std::size_t i0 = first; i0 < first + count; i0 += block) {
                if (guard)
                    SumLists<true>(x, y, z, i0, l, t.sorted.data(), eps2, sums.data());
                else
                    SumLists<false>(x, y, z, i0, l, t.sorted.data(), eps2, sums.data());
                const std::size_t end = std::min(first + count, i0 + block);
                for (std::size_t s = i0; s < end; ++s) {
                    const std::size_t k = s - i0;
                    const std::size_t i = t.order[s];
                    // The rows asked for (HostForceArgs::iBegin/iEnd, or its active rows).
                    if (activeMask ? activeMask[i] != 0 : (i >= iBegin && i < iEnd))
                        acc[i] = Float4{G * sums[k], G * sums[block + k], G * sums[2 * block + k], 0.f};
                }
            }
        });
    }
    errors.rethrow();
}

} // namespace HWY_NAMESPACE
} // namespace nbody
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "sim/core/CpuKernels.h"
#include "sim/core/SimParams.h"

#include <omp.h>

#include <atomic>
#include <limits>
#include <stdexcept>

namespace nbody {

HWY_EXPORT(BlockBodies);
HWY_EXPORT(TreeSums);

namespace {

/// Loops over nodes or bodies run in parallel from this many (each item is O(log N) work).
constexpr std::ptrdiff_t kParallelTreeFrom = 4096;

bool keyIndexLess(const HostTree::KeyIndex& a, const HostTree::KeyIndex& b)
{
    return a.key != b.key ? a.key < b.key : a.index < b.index;
}

/// Sorts `a` by (key, index) on the OpenMP threads with no allocation while they run (an
/// exception cannot leave a parallel region): one chunk a thread sorted in place (std::sort),
/// then rounds of pairwise merges between `a` and `buffer` (a.size() elements, allocated by the
/// caller). (key, index) is a total order, so the result does not depend on the thread count.
void sortKeyIndex(std::vector<HostTree::KeyIndex>& a, std::vector<HostTree::KeyIndex>& buffer)
{
    const std::size_t n = a.size();
    const int chunks = std::ptrdiff_t(n) >= kParallelTreeFrom ? std::max(1, omp_get_max_threads()) : 1;
    std::vector<std::size_t> bounds(std::size_t(chunks) + 1);
    for (int c = 0; c <= chunks; ++c)
        bounds[std::size_t(c)] = n * std::size_t(c) / std::size_t(chunks);
#pragma omp parallel for schedule(static, 1) if (chunks > 1)
    for (int c = 0; c < chunks; ++c)
        std::sort(a.begin() + std::ptrdiff_t(bounds[std::size_t(c)]), a.begin() + std::ptrdiff_t(bounds[std::size_t(c) + 1]),
                  keyIndexLess);
    if (chunks == 1)
        return;
    HostTree::KeyIndex* from = a.data();
    HostTree::KeyIndex* to = buffer.data();
    for (int width = 1; width < chunks; width *= 2) {
#pragma omp parallel for schedule(static, 1)
        for (int c = 0; c < chunks; c += 2 * width) {
            const std::size_t lo = bounds[std::size_t(c)];
            const std::size_t mid = bounds[std::size_t(std::min(c + width, chunks))];
            const std::size_t hi = bounds[std::size_t(std::min(c + 2 * width, chunks))];
            std::merge(from + lo, from + mid, from + mid, from + hi, to + lo, keyIndexLess);
        }
        std::swap(from, to);
    }
    if (from != a.data()) {
        const auto count = static_cast<std::ptrdiff_t>(n);
#pragma omp parallel for schedule(static)
        for (std::ptrdiff_t i = 0; i < count; ++i)
            a[std::size_t(i)] = from[i];
    }
}

/// The moments of a child reference (a sorted body or an internal node).
tree::Moments childMoments(const HostTree& t, int ref)
{
    return tree::isBodyRef(ref) ? tree::bodyMoments(t.sorted[std::size_t(tree::bodyOf(ref))])
                                : t.moments[std::size_t(ref)];
}

} // namespace

void buildTree(const Float4* pos, std::size_t n, double theta, HostTree& t)
{
    if (const std::string why = treeParamsProblem(theta, 1); !why.empty())
        throw std::invalid_argument(why);
    if (n >= std::size_t(std::numeric_limits<int>::max()))
        throw std::invalid_argument("the tree takes fewer than 2^31 - 1 bodies (got " + std::to_string(n) + ")");
    t.n = n;
    t.keys.resize(n);
    t.order.resize(n);
    t.sorted.resize(n);
    t.pairs.resize(n);
    t.pairsBuffer.resize(n);
    const std::size_t inner = n > 0 ? n - 1 : 0;
    t.nodes.resize(inner);
    t.moments.resize(inner);
    t.cells.resize(inner);
    t.parent.assign(inner, -1);
    t.bodyParent.assign(n, -1);
    t.visits.assign(inner, 0);
    t.root = n == 1 ? tree::bodyRef(0) : 0;
    if (n == 0)
        return;
    const auto count = static_cast<std::ptrdiff_t>(n);

    // The bounding box (min and max are exact, so any reduction order gives the same box).
    double lx = pos[0].x, ly = pos[0].y, lz = pos[0].z, ux = lx, uy = ly, uz = lz;
#pragma omp parallel for reduction(min : lx, ly, lz) reduction(max : ux, uy, uz) if (count >= kParallelTreeFrom)
    for (std::ptrdiff_t i = 0; i < count; ++i) {
        const Float4& p = pos[i];
        lx = std::min(lx, double(p.x)), ly = std::min(ly, double(p.y)), lz = std::min(lz, double(p.z));
        ux = std::max(ux, double(p.x)), uy = std::max(uy, double(p.y)), uz = std::max(uz, double(p.z));
    }
    t.lo[0] = lx, t.lo[1] = ly, t.lo[2] = lz;
    t.scale = tree::mortonScale(ux - lx, uy - ly, uz - lz);

    // Keys, then the sort of (key, index): a total order, so the parallel sort is deterministic.
#pragma omp parallel for schedule(static) if (count >= kParallelTreeFrom)
    for (std::ptrdiff_t i = 0; i < count; ++i) {
        const Float4& p = pos[i];
        t.pairs[std::size_t(i)] = {tree::mortonKey(p.x, p.y, p.z, lx, ly, lz, t.scale), std::uint32_t(i)};
    }
    sortKeyIndex(t.pairs, t.pairsBuffer);
#pragma omp parallel for schedule(static) if (count >= kParallelTreeFrom)
    for (std::ptrdiff_t s = 0; s < count; ++s) {
        const HostTree::KeyIndex& k = t.pairs[std::size_t(s)];
        t.keys[std::size_t(s)] = k.key;
        t.order[std::size_t(s)] = k.index;
        t.sorted[std::size_t(s)] = pos[k.index];
    }
    t.groups.clear();
    if (n == 1) {
        t.groups.push_back({0, 1});
        return;
    }

    // Internal nodes (Karras 2012), each on its own, and the parent links.
    const int nInt = int(n);
    const auto inners = static_cast<std::ptrdiff_t>(inner);
#pragma omp parallel for schedule(static) if (inners >= kParallelTreeFrom)
    for (std::ptrdiff_t i = 0; i < inners; ++i) {
        const tree::RadixNode r = tree::radixNode(t.keys.data(), nInt, int(i));
        t.nodes[std::size_t(i)] = r;
        for (const int child : {r.left, r.right}) {
            if (tree::isBodyRef(child))
                t.bodyParent[std::size_t(tree::bodyOf(child))] = int(i);
            else
                t.parent[std::size_t(child)] = int(i);
        }
    }

    // The walk's groups: runs of kGroupSize inside the largest subtrees of at most kGroupRegion
    // bodies, the GPU row's rule (tree::nodeRegions), so both walk the same groups.
    for (std::ptrdiff_t i = 0; i < inners; ++i)
        tree::nodeRegions(t.nodes[std::size_t(i)], int(i), nInt, [&](int first, int c) {
            for (int k = 0; k < tree::groupsOf(c); ++k)
                t.groups.push_back(tree::groupOf(first, c, k));
        });

    // Moments bottom-up: from every body up its parents; the second child to arrive at a node
    // combines (left, right) and goes on, the first stops (the GPU's scheme: the combination and
    // its order are fixed by the tree, so any schedule gives the same moments).
#pragma omp parallel for schedule(static) if (count >= kParallelTreeFrom)
    for (std::ptrdiff_t b = 0; b < count; ++b) {
        int p = t.bodyParent[std::size_t(b)];
        while (p >= 0) {
            std::atomic_ref<int> visits(t.visits[std::size_t(p)]);
            if (visits.fetch_add(1, std::memory_order_acq_rel) == 0)
                break; // the other child is not done yet; its thread goes on from here
            const tree::RadixNode& r = t.nodes[std::size_t(p)];
            t.moments[std::size_t(p)] = tree::combineMoments(childMoments(t, r.left), childMoments(t, r.right));
            t.cells[std::size_t(p)] = tree::packCell(t.moments[std::size_t(p)], theta, r);
            p = t.parent[std::size_t(p)];
        }
    }
}

void cpuTreeForces(const HostForceArgs& a)
{
    if (const std::string why = treeParamsProblem(a.openingAngle, a.leafSize); !why.empty())
        throw std::invalid_argument(why);
    const RowRange rows = rowRange(a.iBegin, a.iEnd, a.n);
    if (a.n == 0 || rows.size() == 0)
        return;
    // Reused by the calling thread (a step allocates nothing once N stops growing); named by
    // plain references, since inside the parallel regions a thread_local name would be each
    // worker's own, empty, copy.
    thread_local HostTree callerTree;
    thread_local std::vector<float> callerSoa;
    HostTree& t = callerTree;
    std::vector<float>& soa = callerSoa;
    buildTree(static_cast<const Float4*>(a.pos), a.n, a.openingAngle, t);
    // Sorted positions as x | y | z, padded with copies of the last body (never at zero
    // distance from a list entry that a real body is not also at; their sums are dropped).
    const std::size_t block = HWY_DYNAMIC_DISPATCH(BlockBodies)();
    const std::size_t padded = (a.n + kTreeGroupSize - 1) / kTreeGroupSize * kTreeGroupSize + block;
    soa.resize(3 * padded);
    const auto count = static_cast<std::ptrdiff_t>(padded);
#pragma omp parallel for schedule(static) if (count >= kParallelElementsFrom)
    for (std::ptrdiff_t s = 0; s < count; ++s) {
        const Float4& p = t.sorted[std::min(std::size_t(s), a.n - 1)];
        soa[std::size_t(s)] = p.x;
        soa[padded + std::size_t(s)] = p.y;
        soa[2 * padded + std::size_t(s)] = p.z;
    }
    // Block time steps: a mask of the active rows (by original index) that the walk consults.
    thread_local std::vector<std::uint8_t> callerMask;
    const std::uint8_t* mask = nullptr;
    if (a.active) {
        checkActiveRows(a);
        callerMask.assign(a.n, 0);
        for (std::size_t k = 0; k < a.activeCount; ++k)
            callerMask[a.active[k]] = 1;
        mask = callerMask.data();
    }
    HWY_DYNAMIC_DISPATCH(TreeSums)(t, soa.data(), soa.data() + padded, soa.data() + 2 * padded, float(a.eps2),
                                   float(a.G), a.leafSize, rows.begin, rows.end, mask, static_cast<Float4*>(a.acc));
}

TreeWork treeWork(const HostForceArgs& a)
{
    if (const std::string why = treeParamsProblem(a.openingAngle, a.leafSize); !why.empty())
        throw std::invalid_argument(why);
    TreeWork w;
    if (a.n == 0)
        return w;
    HostTree t;
    buildTree(static_cast<const Float4*>(a.pos), a.n, a.openingAngle, t);
    const auto groups = static_cast<std::ptrdiff_t>(t.groups.size());
    std::uint64_t bodies = 0, cells = 0;
#pragma omp parallel reduction(+ : bodies, cells)
    {
        treecpu::Lists l;
#pragma omp for schedule(dynamic, 4)
        for (std::ptrdiff_t g = 0; g < groups; ++g) {
            const std::size_t first = std::size_t(t.groups[std::size_t(g)].first);
            const std::size_t c = std::size_t(t.groups[std::size_t(g)].count);
            treecpu::walk(t, treecpu::groupBox(t.sorted.data(), first, c), a.leafSize, l);
            std::size_t listed = 0;
            for (const auto& r : l.ranges)
                listed += std::size_t(r.second);
            bodies += c * listed;
            cells += c * l.cells.size();
        }
    }
    w.bodyInteractions = bodies;
    w.cellInteractions = cells;
    return w;
}

} // namespace nbody
#endif // HWY_ONCE
