#pragma once
/// \file Tree.h
/// The pieces of the Barnes–Hut tree code written once for the host and the device: Morton keys,
/// the binary radix tree's construction per node (Karras 2012), the cells' multipole moments
/// (monopole + quadrupole, combined bottom-up in fp64), the opening criterion and the
/// body–cell interaction. The CUDA row `tree` (kernels/TreeForces.cu) and the OpenMP row
/// `tree-cpu` (src/sim/core/TreeCpu.cpp) both build the same tree from the same keys with these
/// functions, so they agree up to the rounding of their sums.
///
/// The method:
///  - Barnes & Hut, "A hierarchical O(N log N) force-calculation algorithm", Nature 324 (1986).
///  - Bodies are sorted by a 63-bit Morton key (21 bits per axis over the cubic bounding box of
///    the system), ties by index; T. Karras, "Maximizing parallelism in the construction of BVHs,
///    octrees, and k-d trees", HPG 2012, gives each internal node of the binary radix tree over
///    the sorted keys independently: N − 1 internal nodes, node 0 the root, every node covering
///    a contiguous range of sorted bodies [first, first + count).
///  - A cell of at most leafSize bodies is a leaf: its bodies are summed one by one with the
///    softened pair interaction (bodyBodyInteraction), so ε² means what it means for all-pairs.
///  - Other cells carry their mass M, centre of mass c and traceless quadrupole tensor
///    Q_ab = Σ_k m_k (3 s_a s_b − |s|² δ_ab), s = x_k − c (Hernquist 1987, ApJS 64, 715).
///  - Opening criterion (Barnes 1994 / the Bonsai code's form, Bédorf et al. 2012): a cell is
///    used as one multipole for a group of bodies when the distance from its centre of mass to
///    the group's bounding box exceeds r_crit = l/θ + δ, l the longest side of the cell's tight
///    bounding box, δ the distance from c to the box's centre. θ → 0 opens everything (exact).
///  - Optionally the relative (acceleration-based) criterion of GADGET-2 (Springel 2005,
///    MNRAS 364, 1105, §3.2, eq. 18) on top: a cell is accepted only when G M l² / d⁴ ≤ α |a_old|
///    too, d the distance from its centre of mass to the group's box and |a_old| the smallest
///    acceleration of the group's bodies in the previous evaluation; θ is then only a guard.
///    Written as d² > q · s with the cell's q = √(G M l² / α) (relativeOpeningQ) and the group's
///    s = 1 / √|a_old| (relativeScale), so the walk compares squares as for θ.
///
/// Conventions: positions are (x, y, z, m) in length and mass units; accelerations without G
/// (callers multiply); all fp64 values in the build are exact sums over the cell's bodies in a
/// fixed order (left child, then right), so trees are deterministic.

#include "contracts/Interaction.h"

#include <cstdint>

namespace nbody::tree {

/// Largest leaf size a tree row accepts (the GPU walk's body list holds 32 leaves of this size).
inline constexpr int kMaxLeafSize = 32;
/// Bits of the Morton key per axis (3 × 21 = 63).
inline constexpr int kKeyBitsPerAxis = 21;

/// A child reference: ≥ 0 an internal node, < 0 the sorted body ~ref (−ref − 1).
NB_HD int bodyRef(int sortedBody) { return ~sortedBody; }
NB_HD bool isBodyRef(int ref) { return ref < 0; }
NB_HD int bodyOf(int ref) { return ~ref; }

/// Spreads the low 21 bits of v to every third bit of a 64-bit word (bit b → bit 3b).
NB_HD std::uint64_t spreadBits3(std::uint64_t v)
{
    v &= 0x1fffffull;
    v = (v | (v << 32)) & 0x1f00000000ffffull;
    v = (v | (v << 16)) & 0x1f0000ff0000ffull;
    v = (v | (v << 8)) & 0x100f00f00f00f00full;
    v = (v | (v << 4)) & 0x10c30c30c30c30c3ull;
    v = (v | (v << 2)) & 0x1249249249249249ull;
    return v;
}

/// The Morton key of a position: each coordinate mapped to [0, 2^21) by (x − lo) · scale
/// (scale = (2^21 − 1) / side of the cubic bounding box, 0 when the box is a point), clamped,
/// bits interleaved z y x from the most significant end.
NB_HD std::uint64_t mortonKey(double x, double y, double z, double loX, double loY, double loZ, double scale)
{
    const double top = double((1u << kKeyBitsPerAxis) - 1);
    const auto cell = [&](double v, double lo) {
        double c = (v - lo) * scale;
        c = c > 0.0 ? (c < top ? c : top) : 0.0; // NaN → 0
        return std::uint64_t(c);
    };
    return (spreadBits3(cell(z, loZ)) << 2) | (spreadBits3(cell(y, loY)) << 1) | spreadBits3(cell(x, loX));
}

/// Scale of mortonKey for a bounding box of sides (sx, sy, sz): (2^21 − 1) / max side, or 0.
NB_HD double mortonScale(double sx, double sy, double sz)
{
    const double side = sx > sy ? (sx > sz ? sx : sz) : (sy > sz ? sy : sz);
    return side > 0.0 ? double((1u << kKeyBitsPerAxis) - 1) / side : 0.0;
}

NB_HD int countLeadingZeros64(std::uint64_t v)
{
#if defined(__CUDA_ARCH__)
    return __clzll(static_cast<long long>(v));
#else
    return v == 0 ? 64 : __builtin_clzll(v);
#endif
}

NB_HD int countLeadingZeros32(std::uint32_t v)
{
#if defined(__CUDA_ARCH__)
    return __clz(static_cast<int>(v));
#else
    return v == 0 ? 32 : __builtin_clz(v);
#endif
}

/// Karras's δ(i, j): the length of the common prefix of keys i and j (sorted), the indices
/// appended to equal keys so every key is distinct; −1 when j is outside [0, n).
NB_HD int commonPrefix(const std::uint64_t* keys, int n, int i, int j)
{
    if (j < 0 || j >= n)
        return -1;
    const std::uint64_t a = keys[i], b = keys[j];
    if (a != b)
        return countLeadingZeros64(a ^ b);
    return 64 + countLeadingZeros32(std::uint32_t(i) ^ std::uint32_t(j));
}

/// Internal node i (0 ≤ i < n − 1, n ≥ 2) of the binary radix tree over n sorted keys: its range
/// [first, last] of sorted bodies and its children (bodyRef for a single body). Karras 2012,
/// Figure 4. O(log n) key reads.
struct RadixNode {
    int first = 0, last = 0;
    int left = 0, right = 0;
};

NB_HD RadixNode radixNode(const std::uint64_t* keys, int n, int i)
{
    const int d = commonPrefix(keys, n, i, i + 1) - commonPrefix(keys, n, i, i - 1) >= 0 ? 1 : -1;
    const int deltaMin = commonPrefix(keys, n, i, i - d);
    int lmax = 2;
    while (commonPrefix(keys, n, i, i + lmax * d) > deltaMin)
        lmax *= 2;
    int l = 0;
    for (int t = lmax / 2; t >= 1; t /= 2)
        if (commonPrefix(keys, n, i, i + (l + t) * d) > deltaMin)
            l += t;
    const int j = i + l * d;
    const int deltaNode = commonPrefix(keys, n, i, j);
    int s = 0;
    for (int t = (l + 1) / 2;; t = (t + 1) / 2) {
        if (commonPrefix(keys, n, i, i + (s + t) * d) > deltaNode)
            s += t;
        if (t <= 1)
            break;
    }
    const int gamma = i + s * d + (d < 0 ? -1 : 0);
    RadixNode r;
    r.first = i < j ? i : j;
    r.last = i < j ? j : i;
    r.left = r.first == gamma ? bodyRef(gamma) : gamma;
    r.right = r.last == gamma + 1 ? bodyRef(gamma + 1) : gamma + 1;
    return r;
}

/// Bodies of a walk group at most (one warp on the GPU, a few SIMD blocks on the CPU).
inline constexpr int kGroupSize = 32;
/// Bodies of the largest subtrees cut into walk groups. The walk's groups are runs of kGroupSize
/// consecutive sorted bodies inside one such region: regions are compact in space, unlike runs
/// taken anywhere along the Morton curve, which may jump across the system (a run holding an
/// outlying body has a huge box and walks nearly all N), and a region of many groups leaves few
/// partial ones (regions of at most 32 leave a third of the lanes idle). Measured on the H200 at
/// N = 1 048 576, θ = 0.45, leaf 8 (Plummer sphere): 32 → 9.74 ms per force pass, 64 → 9.31,
/// 128 → 8.46, 256 → 8.18, with a slightly smaller median error (larger boxes walk more carefully).
inline constexpr int kGroupRegion = 256;

/// The walk regions that internal node i of n ≥ 2 bodies contributes: each child of at most
/// kGroupRegion bodies when the node has more (every body lies in exactly one such child), and
/// the whole system for the root when n ≤ kGroupRegion. Calls region(first, count) 0, 1 or 2
/// times; cut each into groups with groupsOf / groupOf.
template <class F>
NB_HD void nodeRegions(const RadixNode& r, int i, int n, F&& region)
{
    const int count = r.last - r.first + 1;
    const int split = isBodyRef(r.left) ? bodyOf(r.left) : r.left; // the left child's last body
    if (count > kGroupRegion) {
        if (split - r.first + 1 <= kGroupRegion)
            region(r.first, split - r.first + 1);
        if (r.last - split <= kGroupRegion)
            region(split + 1, r.last - split);
    } else if (i == 0) {
        region(0, n);
    }
}

/// Groups a region of `count` bodies is cut into, and group k of it (first body, bodies).
NB_HD int groupsOf(int count) { return (count + kGroupSize - 1) / kGroupSize; }
struct Group {
    int first = 0, count = 0;
};
NB_HD Group groupOf(int regionFirst, int regionCount, int k)
{
    const int rest = regionCount - kGroupSize * k;
    return {regionFirst + kGroupSize * k, rest < kGroupSize ? rest : kGroupSize};
}

/// Multipole moments of a cell in fp64 (about its centre of mass) and its tight bounding box.
struct Moments {
    double m = 0.0;
    double cx = 0.0, cy = 0.0, cz = 0.0;            ///< centre of mass (the box centre when m = 0)
    double qxx = 0.0, qyy = 0.0, qzz = 0.0, qxy = 0.0, qxz = 0.0, qyz = 0.0; ///< traceless quadrupole
    double lox = 0.0, loy = 0.0, loz = 0.0, hix = 0.0, hiy = 0.0, hiz = 0.0; ///< bounding box
};

/// The moments of one body (a point: no quadrupole, a box of size 0).
template <class P>
NB_HD Moments bodyMoments(const P& b)
{
    Moments r;
    r.m = double(b.w);
    r.cx = r.lox = r.hix = double(b.x);
    r.cy = r.loy = r.hiy = double(b.y);
    r.cz = r.loz = r.hiz = double(b.z);
    return r;
}

/// Adds the quadrupole of a point mass m at offset s from the new centre to the tensor of r.
NB_HD void addShiftedQuadrupole(Moments& r, const Moments& c)
{
    const double sx = c.cx - r.cx, sy = c.cy - r.cy, sz = c.cz - r.cz;
    const double s2 = sx * sx + sy * sy + sz * sz;
    r.qxx += c.qxx + c.m * (3.0 * sx * sx - s2);
    r.qyy += c.qyy + c.m * (3.0 * sy * sy - s2);
    r.qzz += c.qzz + c.m * (3.0 * sz * sz - s2);
    r.qxy += c.qxy + c.m * 3.0 * sx * sy;
    r.qxz += c.qxz + c.m * 3.0 * sx * sz;
    r.qyz += c.qyz + c.m * 3.0 * sy * sz;
}

/// The moments of the union of two cells (parallel-axis theorem for the quadrupole): a then b,
/// always in this order, so the result does not depend on which thread computes it.
NB_HD Moments combineMoments(const Moments& a, const Moments& b)
{
    Moments r;
    r.m = a.m + b.m;
    r.lox = a.lox < b.lox ? a.lox : b.lox;
    r.loy = a.loy < b.loy ? a.loy : b.loy;
    r.loz = a.loz < b.loz ? a.loz : b.loz;
    r.hix = a.hix > b.hix ? a.hix : b.hix;
    r.hiy = a.hiy > b.hiy ? a.hiy : b.hiy;
    r.hiz = a.hiz > b.hiz ? a.hiz : b.hiz;
    if (r.m != 0.0) {
        r.cx = (a.m * a.cx + b.m * b.cx) / r.m;
        r.cy = (a.m * a.cy + b.m * b.cy) / r.m;
        r.cz = (a.m * a.cz + b.m * b.cz) / r.m;
    } else { // massless cell (test particles): the box centre, no quadrupole
        r.cx = 0.5 * (r.lox + r.hix);
        r.cy = 0.5 * (r.loy + r.hiy);
        r.cz = 0.5 * (r.loz + r.hiz);
    }
    addShiftedQuadrupole(r, a);
    addShiftedQuadrupole(r, b);
    return r;
}

/// The square of the cell's critical radius r_crit = l/θ + δ (see the file comment). theta > 0.
NB_HD double criticalRadius2(const Moments& c, double theta)
{
    const double sx = c.hix - c.lox, sy = c.hiy - c.loy, sz = c.hiz - c.loz;
    const double l = sx > sy ? (sx > sz ? sx : sz) : (sy > sz ? sy : sz);
    const double dx = c.cx - 0.5 * (c.lox + c.hix);
    const double dy = c.cy - 0.5 * (c.loy + c.hiy);
    const double dz = c.cz - 0.5 * (c.loz + c.hiz);
    const double r = l / theta + sqrt(dx * dx + dy * dy + dz * dz);
    return r * r;
}

/// The relative criterion's factor of a cell (see the file comment): √(G M l² / α), l the longest
/// side of its bounding box; 0 when α is not positive (the criterion is off). Evaluated in fp64
/// and rounded once, the same on the host and the device.
NB_HD float relativeOpeningQ(const Moments& c, double G, double alpha)
{
    if (!(alpha > 0.0))
        return 0.0f;
    const double sx = c.hix - c.lox, sy = c.hiy - c.loy, sz = c.hiz - c.loz;
    const double l = sx > sy ? (sx > sz ? sx : sz) : (sy > sz ? sy : sz);
    return float(sqrt(G * c.m * l * l / alpha));
}

/// |a|² of an fp32 acceleration, in fp64, without fused multiply-adds (the same bits on the host
/// and the device).
NB_HD double squaredNorm(float x, float y, float z)
{
#ifdef __CUDA_ARCH__
    return __dadd_rn(__dadd_rn(__dmul_rn(x, x), __dmul_rn(y, y)), __dmul_rn(z, z));
#else
    return double(x) * x + double(y) * y + double(z) * z;
#endif
}

/// A group's relative-criterion factor s = 1/√|a_old| from the smallest |a_old|² of its bodies
/// (+∞ when none is known: s = 0, the geometric criterion alone). An |a_old| of 0 or not a number
/// gives the largest finite float: every cell then fails the relative test and is opened.
NB_HD float relativeScale(double minSquaredAcceleration)
{
    constexpr float largest = 3.40282347e+38f; // FLT_MAX, usable in device code
    const double amin = sqrt(minSquaredAcceleration);
    if (!(amin > 0.0))
        return largest;
    const double s = 1.0 / sqrt(amin);
    return s < double(largest) ? float(s) : largest;
}

/// A cell as the traversal reads it, fp32, 64 bytes: centre of mass and mass; the quadrupole;
/// r_crit²; the relative criterion's q (relativeOpeningQ; 0: off); its children and its range of
/// sorted bodies.
struct alignas(16) Cell {
    float cx, cy, cz, m;
    float qxx, qyy, qzz, qxy;
    float qxz, qyz, rcrit2, q;
    int left, right, first, count;
};
static_assert(sizeof(Cell) == 64);

/// The first 48 bytes of a Cell: what a body–cell interaction reads.
struct alignas(16) Multipole {
    float cx, cy, cz, m;
    float qxx, qyy, qzz, qxy;
    float qxz, qyz, pad0, pad1;
};
static_assert(sizeof(Multipole) == 48);

/// The fp32 cell of moments c at opening angle θ; G and α give the relative criterion's q (α = 0:
/// none).
NB_HD Cell packCell(const Moments& c, double theta, const RadixNode& node, double G = 1.0, double alpha = 0.0)
{
    Cell r;
    r.cx = float(c.cx);
    r.cy = float(c.cy);
    r.cz = float(c.cz);
    r.m = float(c.m);
    r.qxx = float(c.qxx);
    r.qyy = float(c.qyy);
    r.qzz = float(c.qzz);
    r.qxy = float(c.qxy);
    r.qxz = float(c.qxz);
    r.qyz = float(c.qyz);
    // Rounded up so the fp32 criterion never accepts a cell the fp64 one would open.
    const float rc = float(criticalRadius2(c, theta));
    r.rcrit2 = rc * (1.0f + 1e-6f);
    r.q = relativeOpeningQ(c, G, alpha);
    r.left = node.left;
    r.right = node.right;
    r.first = node.first;
    r.count = node.last - node.first + 1;
    return r;
}

/// Squared distance from the point (px, py, pz) to the box of centre (gx, gy, gz) and half
/// sides (hx, hy, hz) (0 inside).
template <class T>
NB_HD T boxDistance2(T px, T py, T pz, T gx, T gy, T gz, T hx, T hy, T hz)
{
    T dx = (px > gx ? px - gx : gx - px) - hx;
    T dy = (py > gy ? py - gy : gy - py) - hy;
    T dz = (pz > gz ? pz - gz : gz - pz) - hz;
    dx = dx > T(0) ? dx : T(0);
    dy = dy > T(0) ? dy : T(0);
    dz = dz > T(0) ? dz : T(0);
    return dx * dx + dy * dy + dz * dz;
}

/// One axis of a group's box from its bodies' min and max coordinate (fp32): centre g = (lo + hi)/2
/// and half side h = max(hi − g, g − lo) enlarged by 2^-22 relative, so that the box contains lo
/// and hi despite rounding. A box that misses one of its own bodies by an ulp may accept a cell
/// that contains that body (a cell of coincident bodies has r_crit = 0): r = 0, and with ε² = 0
/// the interaction is 0 · ∞ = NaN (found by tst_tree, coincident bodies, ε² = 0).
NB_HD void groupBoxAxis(float lo, float hi, float& g, float& h)
{
    g = 0.5f * (lo + hi);
    const float a = hi - g, b = g - lo;
    h = (a > b ? a : b) * (1.0f + 2.384185791015625e-7f); // 1 + 2^-22
}

/// True when `cell` may act on a whole group of bodies inside the box (centre g, half sides h)
/// as one multipole: the box lies outside the cell's critical sphere.
NB_HD bool acceptCell(const Cell& c, float gx, float gy, float gz, float hx, float hy, float hz)
{
    return boxDistance2(c.cx, c.cy, c.cz, gx, gy, gz, hx, hy, hz) > c.rcrit2;
}

/// acceptCell with the relative criterion too, for a group of factor s (relativeScale): the
/// squared distance must exceed both r_crit² and s · q.
NB_HD bool acceptCellRelative(const Cell& c, float gx, float gy, float gz, float hx, float hy, float hz, float s)
{
    const float rel = s * c.q;
    return boxDistance2(c.cx, c.cy, c.cz, gx, gy, gz, hx, hy, hz) > (c.rcrit2 > rel ? c.rcrit2 : rel);
}

/// Adds to `ai` the acceleration (without G) of the cell's monopole and quadrupole at body bi:
///
///     a += M d / r³ − Q d / r⁵ + (5/2) (dᵀ Q d) d / r⁷,   d = c − x_i, r² = |d|² + ε²
///
/// (the softened monopole is exactly bodyBodyInteraction of a body of mass M at c; the
/// quadrupole terms use the same softened r), evaluated through u = d / r as
///
///     a += r⁻² ((M + t) u − r⁻² Q u),   t = (5/2) (uᵀ Q u) r⁻²
///
/// so that no product beyond the size of Q itself is formed: dᵀ Q d ~ M l² r² overflows fp32 for
/// a system of large masses flung far apart (a cube of 1e9 masses after close encounters: NaN),
/// and r⁻⁵ overflows for a cell of coincident bodies accepted at a tiny distance with ε² = 0
/// (Q = 0, r_crit = 0); every term here is bounded by M r⁻² and Q r⁻⁴ ≲ M r⁻² (l/r)².
/// 54 flops: 3 (d) + 6 (r²) + 2 (rsqrt, r⁻²) + 3 (u) + 15 (Q u) + 5 (uᵀQu) + 3 (t, M + t)
/// + 17 (combine, scale by r⁻², accumulate).
/// C is Cell or any type with its first ten members (cx, cy, cz, m, qxx, qyy, qzz, qxy, qxz, qyz).
template <class T, class P, class C, class A>
NB_HD void cellInteraction(const P& bi, const C& c, A& ai, T eps2)
{
    const T dx = T(c.cx) - T(bi.x);
    const T dy = T(c.cy) - T(bi.y);
    const T dz = T(c.cz) - T(bi.z);
    const T r2 = eps2 + dx * dx + dy * dy + dz * dz;
    const T inv = nbRsqrt(r2);
    const T inv2 = inv * inv;
    const T ux = dx * inv, uy = dy * inv, uz = dz * inv;
    const T qux = T(c.qxx) * ux + T(c.qxy) * uy + T(c.qxz) * uz;
    const T quy = T(c.qxy) * ux + T(c.qyy) * uy + T(c.qyz) * uz;
    const T quz = T(c.qxz) * ux + T(c.qyz) * uy + T(c.qzz) * uz;
    const T uqu = ux * qux + uy * quy + uz * quz;
    const T w = T(c.m) + T(2.5) * uqu * inv2;
    ai.x += inv2 * (w * ux - inv2 * qux);
    ai.y += inv2 * (w * uy - inv2 * quy);
    ai.z += inv2 * (w * uz - inv2 * quz);
}

/// Flops counted per body–cell interaction (cellInteraction).
inline constexpr int kFlopsPerCellInteraction = 54;

} // namespace nbody::tree
