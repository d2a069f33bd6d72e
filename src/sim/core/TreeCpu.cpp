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
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#ifndef NBODY_TREE_CPU_ONCE_
#define NBODY_TREE_CPU_ONCE_
namespace nbody::treecpu {

/// The walk's result for one group: what every body of the group sums, in this order. The
/// arrays only grow (a step allocates nothing once they are large enough); the first
/// rangeCount / cellCount entries are the lists.
struct Lists {
    /// Body list as ranges (first, count) of sorted bodies, in walk order: an opened leaf is one
    /// range, not copies of its bodies (the copies cost as much as the sums).
    std::vector<std::pair<int, int>> ranges;
    std::vector<int> cells; ///< indices of the accepted cells (HostTree::cells), in walk order
    std::size_t rangeCount = 0, cellCount = 0;

    /// Room for `more` entries past the ones in use (doubling; the step's walk allocates
    /// nothing once the arrays are large enough).
    void reserveMore(std::size_t more)
    {
        if (rangeCount + more > ranges.size())
            ranges.resize(2 * (rangeCount + more));
        if (cellCount + more > cells.size())
            cells.resize(2 * (cellCount + more));
    }
};

/// Entries past the end of a WalkTree's columns, never visited (r_crit² = +∞: never accepted):
/// the SIMD test reads whole vectors of up to this many lanes.
inline constexpr std::size_t kWalkPadding = 64;

/// The tree as the walk of one leaf size reads it: the references the walk can meet (cells of
/// more than leafSize bodies, and their children) in depth-first order, left child first, as
/// columns. Entry e's subtree is [e, skip[e]): an accepted cell continues at skip, anything else
/// at e + 1 (its left child when it is opened: the next entry in this order). A cell of at most
/// leafSize bodies and a single body have no entries below them (the walk never opens them), so
/// skip = e + 1 for them. A body has count 1 and r_crit² = +∞ (never accepted: a body range).
/// Column q (the relative opening criterion, SimParams::openingAlpha = α > 0): √(G M l² / α)
/// of a cell of mass M and longest side l, so that G M l² / d⁴ ≤ α |a| is d² ≥ q / √|a|; 0 for
/// bodies, padding and every entry when α = 0.
/// With this layout the walk is a forward scan whose acceptance tests run a SIMD vector of
/// consecutive entries at a time, and it visits the references of the stack walk of
/// contracts/Tree.h in the same order (so the lists, and the sums, are the same).
struct WalkTree {
    std::size_t size = 0;
    std::vector<float> cx, cy, cz, rcrit2, q;
    std::vector<int> first, count, skip;
    std::vector<int> cell; ///< the entry's index in HostTree::cells (a body: 0, unused)
    std::vector<int> stack; ///< scratch of buildWalkTree (the radix tree's depth: ≤ 63 + 32)
};

/// Fills w from the tree t for leafSize, and q for G and α (0: the geometric criterion alone)
/// (sequential: O(entries), a few per leaf).
inline void buildWalkTree(const HostTree& t, int leafSize, double G, double alpha, WalkTree& w)
{
    // Entries: the root and both children of every cell of more than leafSize bodies (each such
    // cell is reached: its ancestors hold more bodies still). At most 2n − 1 (leaf size 1).
    std::size_t opened = 0;
    for (const tree::Cell& c : t.cells)
        opened += std::size_t(c.count > leafSize);
    const std::size_t entries = 1 + 2 * opened + kWalkPadding;
    for (auto* v : {&w.cx, &w.cy, &w.cz, &w.rcrit2, &w.q})
        v->resize(entries);
    for (auto* v : {&w.first, &w.count, &w.skip, &w.cell})
        v->resize(entries);
    std::vector<int>& stack = w.stack;
    stack.clear();
    stack.push_back(t.root);
    std::size_t e = 0;
    while (!stack.empty()) {
        const int ref = stack.back();
        stack.pop_back();
        if (tree::isBodyRef(ref)) {
            w.cx[e] = w.cy[e] = w.cz[e] = 0.0f;
            w.rcrit2[e] = std::numeric_limits<float>::infinity();
            w.q[e] = 0.0f;
            w.first[e] = tree::bodyOf(ref), w.count[e] = 1, w.cell[e] = 0;
        } else {
            const tree::Cell& c = t.cells[std::size_t(ref)];
            w.cx[e] = c.cx, w.cy[e] = c.cy, w.cz[e] = c.cz, w.rcrit2[e] = c.rcrit2;
            w.q[e] = 0.0f;
            // G M l² / d⁴ ≤ α |a|  ⇔  d² ≥ √(G M l² / α) / √|a| (0 when α = 0)
            w.q[e] = tree::relativeOpeningQ(t.moments[std::size_t(ref)], G, alpha);
            w.first[e] = c.first, w.count[e] = c.count, w.cell[e] = ref;
            if (c.count > leafSize) {
                stack.push_back(c.right);
                stack.push_back(c.left);
            }
        }
        ++e;
    }
    w.size = e;
    // skip, from the end: a cell opened by the walk has its left child at e + 1 and its right
    // child where the left child's subtree ends.
    for (std::size_t k = e; k-- > 0;)
        w.skip[k] = w.count[k] > leafSize ? w.skip[std::size_t(w.skip[k + 1])] : int(k + 1);
    for (std::size_t k = e; k < e + kWalkPadding; ++k) {
        w.cx[k] = w.cy[k] = w.cz[k] = 0.0f;
        w.rcrit2[k] = std::numeric_limits<float>::infinity();
        w.q[k] = 0.0f;
        w.first[k] = 0, w.count[k] = 1, w.skip[k] = int(k + 1), w.cell[k] = 0;
    }
}

/// The box of the sorted bodies [first, first + count): centre g and half sides h in fp32 from
/// the bodies' min and max coordinates (tree::groupBoxAxis: rounded to contain them).
struct GroupBox {
    float gx, gy, gz, hx, hy, hz;
    /// The relative criterion's 1/√|a_old| for the group's smallest |a_old| (0: not used).
    float s = 0.0f;
};

/// GroupBox::s for the sorted bodies [first, first + count) from their previous accelerations
/// (prevAcc by original index, order: sorted → original): tree::relativeScale of the smallest
/// |a|² (accelerations that are not numbers are skipped).
inline float relativeScale(const Float4* prevAcc, const std::uint32_t* order, std::size_t first, std::size_t count)
{
    double amin2 = std::numeric_limits<double>::infinity();
    for (std::size_t k = first; k < first + count; ++k) {
        const Float4& p = prevAcc[order[k]];
        const double a2 = tree::squaredNorm(p.x, p.y, p.z);
        amin2 = a2 < amin2 ? a2 : amin2;
    }
    return tree::relativeScale(amin2);
}

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

} // namespace nbody::treecpu
#endif // NBODY_TREE_CPU_ONCE_

HWY_BEFORE_NAMESPACE();
namespace nbody {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

/// The walk of contracts/Tree.h for one group over w (WalkTree: the references in the stack
/// walk's order): a body goes to the body list; a cell accepted for the box g to the cell list;
/// a cell of at most leafSize bodies gives its bodies to the body list; any other cell is opened
/// (its left child is the next entry). The acceptance tests of a vector of consecutive entries
/// run at once (those the walk then skips are wasted, fewer than the mispredicted branches of a
/// scalar walk would cost), as tree::acceptCell computes them: |c − g| − h, max(·, 0), squares
/// summed x + y then + z, without FMA, > r_crit², so the walk takes exactly the CUDA row's cells.
/// Relative: the relative criterion too (g.s, w.q): a cell is accepted only when d² exceeds both
/// r_crit² and s·q (the larger of the two).
template <bool Relative>
HWY_INLINE void Walk(const treecpu::WalkTree& w, const treecpu::GroupBox& g, int leafSize, treecpu::Lists& l)
{
    using D = hn::ScalableTag<float>;
    using V = hn::Vec<D>;
    const D d;
    const std::size_t L = hn::Lanes(d);
    const V gx = hn::Set(d, g.gx), gy = hn::Set(d, g.gy), gz = hn::Set(d, g.gz);
    const V hx = hn::Set(d, g.hx), hy = hn::Set(d, g.hy), hz = hn::Set(d, g.hz);
    const V zero = hn::Zero(d);
    const V vs = hn::Set(d, g.s);
    const float* qcol = w.q.data();
    // The columns as plain pointers: the stores into the lists cannot change them (a vector's
    // data pointer would be read again after every store).
    const float *cx = w.cx.data(), *cy = w.cy.data(), *cz = w.cz.data(), *rcrit2 = w.rcrit2.data();
    const int *first = w.first.data(), *count = w.count.data(), *skip = w.skip.data(), *cell = w.cell.data();
    const std::size_t size = w.size;
    l.rangeCount = l.cellCount = 0;
    std::size_t nr = 0, nc = 0;
    std::size_t e = 0;
    while (e < size) {
        l.rangeCount = nr, l.cellCount = nc;
        l.reserveMore(L);
        std::pair<int, int>* ranges = l.ranges.data();
        int* cells = l.cells.data();
        const std::size_t base = e;
        const V dx = hn::Max(hn::Sub(hn::Abs(hn::Sub(hn::LoadU(d, cx + base), gx)), hx), zero);
        const V dy = hn::Max(hn::Sub(hn::Abs(hn::Sub(hn::LoadU(d, cy + base), gy)), hy), zero);
        const V dz = hn::Max(hn::Sub(hn::Abs(hn::Sub(hn::LoadU(d, cz + base), gz)), hz), zero);
        const V d2 = hn::Add(hn::Add(hn::Mul(dx, dx), hn::Mul(dy, dy)), hn::Mul(dz, dz));
        std::uint8_t maskBytes[8] = {};
        V limit = hn::LoadU(d, rcrit2 + base);
        if constexpr (Relative)
            limit = hn::Max(limit, hn::Mul(vs, hn::LoadU(d, qcol + base)));
        hn::StoreMaskBits(d, hn::Gt(d2, limit), maskBytes);
        std::uint64_t accepted = 0;
        std::memcpy(&accepted, maskBytes, sizeof accepted);
        const std::size_t end = std::min(base + L, size);
        do {
            const std::size_t a = std::size_t(accepted >> (e - base)) & 1u;
            cells[nc] = cell[e];
            nc += a;
            ranges[nr] = {first[e], count[e]};
            nr += (a ^ 1u) & std::size_t(count[e] <= leafSize);
            e = a ? std::size_t(skip[e]) : e + 1;
        } while (e < end);
    }
    l.rangeCount = nr, l.cellCount = nc;
}

/// The walk of the group of sorted bodies [first, first + count): its box, and with prevAcc (the
/// relative criterion) its factor from the bodies' previous accelerations.
HWY_INLINE void WalkGroup(const HostTree& t, const treecpu::WalkTree& w, std::size_t first, std::size_t count, int leafSize,
                          const Float4* prevAcc, treecpu::Lists& l)
{
    treecpu::GroupBox box = treecpu::groupBox(t.sorted.data(), first, count);
    if (prevAcc) {
        box.s = treecpu::relativeScale(prevAcc, t.order.data(), first, count);
        Walk<true>(w, box, leafSize, l);
    } else {
        Walk<false>(w, box, leafSize, l);
    }
}

/// i vectors evaluated together against each list entry (each broadcast entry feeds kRows
/// vectors; as in CpuForcesSimd.cpp).
constexpr std::size_t kRows = 2;

/// Sums the lists for the bodies [i0, i0 + Rows·L) of x, y, z (sorted, padded) into out
/// (written, fp32, without G: ax | ay | az at strides of kRows·L). Rows ≤ kRows: a group's last
/// block of at most L bodies takes one vector (each lane's sum is its own: the same bits).
template <bool Guard, std::size_t Rows>
HWY_INLINE void SumLists(const float* HWY_RESTRICT x, const float* HWY_RESTRICT y, const float* HWY_RESTRICT z,
                         std::size_t i0, const treecpu::Lists& l, const Float4* HWY_RESTRICT sorted,
                         const tree::Cell* HWY_RESTRICT cells, float eps2,
                         float* HWY_RESTRICT out)
{
    using D = hn::ScalableTag<float>;
    using V = hn::Vec<D>;
    const D d;
    const std::size_t L = hn::Lanes(d);
    const V vEps2 = hn::Set(d, eps2);
    const V zero = hn::Zero(d);
    V xi[Rows], yi[Rows], zi[Rows], ax[Rows], ay[Rows], az[Rows];
    for (std::size_t r = 0; r < Rows; ++r) {
        xi[r] = hn::LoadU(d, x + i0 + r * L);
        yi[r] = hn::LoadU(d, y + i0 + r * L);
        zi[r] = hn::LoadU(d, z + i0 + r * L);
        ax[r] = ay[r] = az[r] = zero;
    }
    // Body list: bodyBodyInteraction with u = 2/√(r² + ε²) and m/8 (as the `cpu` kernel; the
    // ½ of Newton's step folded into the mass, exactly: a power of two).
    for (std::size_t k = 0; k < l.rangeCount; ++k)
    for (const Float4* b = sorted + l.ranges[k].first; b != sorted + l.ranges[k].first + l.ranges[k].second; ++b) {
        const V xj = hn::Set(d, b->x), yj = hn::Set(d, b->y), zj = hn::Set(d, b->z), mj = hn::Set(d, b->w * 0.125f);
        for (std::size_t r = 0; r < Rows; ++r)
            AddPair<Guard>(d, xj, yj, zj, mj, xi[r], yi[r], zi[r], vEps2, ax[r], ay[r], az[r]);
    }
    // Cell list: cellInteraction (contracts/Tree.h) term by term. A cell is never at zero distance
    // from a body of the group (it was accepted: the group's box lies outside its critical
    // sphere), and no power beyond r⁻⁴ is formed (coincident bodies with ε² = 0).
    const V half = hn::Set(d, 0.5f);
    const V twoAndHalf = hn::Set(d, 2.5f);
    for (std::size_t k = 0; k < l.cellCount; ++k) {
        const tree::Cell& c = cells[l.cells[k]];
        const V cx = hn::Set(d, c.cx), cy = hn::Set(d, c.cy), cz = hn::Set(d, c.cz), m = hn::Set(d, c.m);
        const V qxx = hn::Set(d, c.qxx), qyy = hn::Set(d, c.qyy), qzz = hn::Set(d, c.qzz);
        const V qxy = hn::Set(d, c.qxy), qxz = hn::Set(d, c.qxz), qyz = hn::Set(d, c.qyz);
        for (std::size_t r = 0; r < Rows; ++r) {
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
    for (std::size_t r = 0; r < Rows; ++r) {
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
/// prevAcc (by original index; may be acc itself: a group reads its own bodies' rows before it
/// writes them): the relative criterion with w.q; nullptr: the geometric criterion alone.
void TreeSums(const HostTree& t, const treecpu::WalkTree& w, const float* x, const float* y, const float* z, float eps2, float G,
              int leafSize, std::size_t iBegin, std::size_t iEnd, const std::uint8_t* activeMask, const Float4* prevAcc,
              Float4* acc)
{
    const std::size_t n = t.n;
    const auto groups = static_cast<std::ptrdiff_t>(t.groups.size());
    const std::size_t block = BlockBodies();
    const std::size_t lanes = block / kRows;
    const tree::Cell* cells = t.cells.data();
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
            WalkGroup(t, w, first, count, leafSize, prevAcc, l);
            for (std::size_t i0 = first; i0 < first + count; i0 += block) {
                const std::size_t end = std::min(first + count, i0 + block);
                const bool one = end - i0 <= lanes;
                if (guard && one)
                    SumLists<true, 1>(x, y, z, i0, l, t.sorted.data(), cells, eps2, sums.data());
                else if (guard)
                    SumLists<true, kRows>(x, y, z, i0, l, t.sorted.data(), cells, eps2, sums.data());
                else if (one)
                    SumLists<false, 1>(x, y, z, i0, l, t.sorted.data(), cells, eps2, sums.data());
                else
                    SumLists<false, kRows>(x, y, z, i0, l, t.sorted.data(), cells, eps2, sums.data());
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

/// The walks of every group, no sums: interactions the sums would make (treeWork).
void TreeCounts(const HostTree& t, const treecpu::WalkTree& w, int leafSize, const Float4* prevAcc,
                std::uint64_t* bodyInteractions, std::uint64_t* cellInteractions)
{
    const auto groups = static_cast<std::ptrdiff_t>(t.groups.size());
    std::uint64_t bodies = 0, cells = 0;
#pragma omp parallel reduction(+ : bodies, cells)
    {
        treecpu::Lists l;
#pragma omp for schedule(dynamic, 4)
        for (std::ptrdiff_t g = 0; g < groups; ++g) {
            const std::size_t first = std::size_t(t.groups[std::size_t(g)].first);
            const std::size_t c = std::size_t(t.groups[std::size_t(g)].count);
            WalkGroup(t, w, first, c, leafSize, prevAcc, l);
            std::size_t listed = 0;
            for (std::size_t k = 0; k < l.rangeCount; ++k)
                listed += std::size_t(l.ranges[k].second);
            bodies += c * listed;
            cells += c * l.cellCount;
        }
    }
    *bodyInteractions = bodies;
    *cellInteractions = cells;
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
HWY_EXPORT(TreeCounts);

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
    thread_local treecpu::WalkTree callerWalk;
    const bool relative = a.openingAlpha > 0;
    treecpu::buildWalkTree(t, a.leafSize, a.G, a.openingAlpha, callerWalk);
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
    // The relative criterion's |a_old|: the previous evaluation's (in acc, read by each group
    // before it writes its rows), or, where there is none, a pre-pass of every row with the
    // geometric criterion at θ (the guard) into scratch (GADGET-2 starts the same way).
    const Float4* prevAcc = nullptr;
    thread_local std::vector<Float4> callerPrePass;
    if (relative && a.accelerationsValid) {
        prevAcc = static_cast<const Float4*>(a.acc);
    } else if (relative) {
        callerPrePass.assign(a.n, Float4{});
        HWY_DYNAMIC_DISPATCH(TreeSums)(t, callerWalk, soa.data(), soa.data() + padded, soa.data() + 2 * padded,
                                       float(a.eps2), float(a.G), a.leafSize, 0, a.n, nullptr, nullptr,
                                       callerPrePass.data());
        prevAcc = callerPrePass.data();
    }
    HWY_DYNAMIC_DISPATCH(TreeSums)(t, callerWalk, soa.data(), soa.data() + padded, soa.data() + 2 * padded, float(a.eps2),
                                   float(a.G), a.leafSize, rows.begin, rows.end, mask, prevAcc, static_cast<Float4*>(a.acc));
}

TreeWork treeWork(const HostForceArgs& a)
{
    if (const std::string why = treeParamsProblem(a.openingAngle, a.leafSize); !why.empty())
        throw std::invalid_argument(why);
    TreeWork w;
    if (a.n == 0)
        return w;
    // The relative criterion's |a_old| as cpuTreeForces has them: acc when valid, else the pre-pass
    // (the same geometric evaluation at θ).
    std::vector<Float4> prePass;
    const Float4* prevAcc = nullptr;
    if (a.openingAlpha > 0 && a.accelerationsValid) {
        prevAcc = static_cast<const Float4*>(a.acc);
    } else if (a.openingAlpha > 0) {
        prePass.assign(a.n, Float4{});
        HostForceArgs geometric = a;
        geometric.openingAlpha = 0;
        geometric.acc = prePass.data();
        geometric.iBegin = 0, geometric.iEnd = kAllRows, geometric.active = nullptr, geometric.activeCount = 0;
        cpuTreeForces(geometric);
        prevAcc = prePass.data();
    }
    HostTree t;
    buildTree(static_cast<const Float4*>(a.pos), a.n, a.openingAngle, t);
    treecpu::WalkTree walk;
    treecpu::buildWalkTree(t, a.leafSize, a.G, a.openingAlpha, walk);
    HWY_DYNAMIC_DISPATCH(TreeCounts)(t, walk, a.leafSize, prevAcc, &w.bodyInteractions, &w.cellInteractions);
    return w;
}

} // namespace nbody
#endif // HWY_ONCE
