// The Barnes–Hut tree rows (contracts/Tree.h, sim/core/TreeCpu.h): `tree-cpu` against the fp64 reference
// (N = 1 … 100 000, degenerate boxes), the error against θ, the radix tree's invariants, the
// quadrupole moments in closed form, the walk against the stack walk of contracts/Tree.h,
// bit-identical runs for any thread count, and the CUDA row
// `tree` against `tree-cpu` where a device is present.
//
// Error measure: ErrorStats.h (relative to max(|a_ref|, 1e-3 · RMS|a_ref|)). The tree's accuracy
// goal, asserted at the default θ and leaf size: p99 ≤ 1e-3 and median ≤ 1e-4.
#include "ErrorStats.h"

#include "sim/core/CpuKernels.h"
#include "sim/core/ForceAccuracy.h"
#include "sim/core/ParamTable.h"
#include "sim/core/KernelRegistry.h"
#include "sim/core/Models.h"
#include "sim/base/Random.h"
#include "sim/core/Scenario.h"
#include "sim/core/SimParams.h"
#include "sim/core/Simulation.h"
#include "contracts/Tree.h"
#include "sim/core/TreeCpu.h"

#include <QtTest>

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <numeric>

using namespace nbody;

namespace {

/// The tree's accuracy goal at the defaults.
constexpr double kGoalP99 = 1e-3;
constexpr double kGoalMedian = 1e-4;

/// Bodies evaluated against all N in fp64 when N is large (as the validation engine samples).
constexpr std::size_t kSample = 3000;

std::vector<Float4> plummer(std::size_t n, std::uint64_t seed = 7)
{
    PlummerParams p;
    p.bodies = n;
    p.seed = seed;
    const World w = makePlummer(p).world;
    return {w.positions().begin(), w.positions().end()};
}

/// Degenerate and awkward systems built from a Plummer sphere of n bodies.
std::vector<Float4> system(const QString& shape, std::size_t n)
{
    std::vector<Float4> b = plummer(n);
    if (shape == "plummer")
        return b;
    if (shape == "coincident") { // every body has a twin at the same position (pairs at r = 0)
        for (std::size_t i = 1; i < n; i += 2)
            b[i] = Float4{b[i - 1].x, b[i - 1].y, b[i - 1].z, b[i].w};
        return b;
    }
    if (shape == "point") { // all bodies at one point: every key equal, a box of size 0
        for (Float4& p : b)
            p = Float4{0.25f, -0.5f, 1.0f, p.w};
        return b;
    }
    if (shape == "far") { // one body 10^4 virial radii away: the rest share a few key cells
        b.back() = Float4{1.0e4f, -3.0e3f, 2.0e3f, b.back().w};
        return b;
    }
    if (shape == "line") { // all on the x axis: a box of sides (l, 0, 0)
        for (Float4& p : b)
            p = Float4{p.x, 0.f, 0.f, p.w};
        return b;
    }
    if (shape == "plane") { // all in z = 0
        for (Float4& p : b)
            p.z = 0.f;
        return b;
    }
    qFatal("unknown shape");
}

HostForceArgs argsOf(const std::vector<Float4>& pos, std::vector<Float4>& acc, double theta, int leaf, double eps2)
{
    acc.assign(pos.size(), Float4{});
    HostForceArgs a;
    a.pos = pos.data();
    a.acc = acc.data();
    a.n = pos.size();
    a.eps2 = eps2;
    a.G = 1.0;
    a.openingAngle = theta;
    a.leafSize = leaf;
    return a;
}

std::vector<Float4> treeForces(const std::vector<Float4>& pos, double theta, int leaf, double eps2)
{
    std::vector<Float4> acc;
    cpuTreeForces(argsOf(pos, acc, theta, leaf, eps2));
    return acc;
}

/// `count` distinct body indices below n drawn with a fixed seed (all of them when n ≤ count).
std::vector<std::size_t> sampleOf(std::size_t n, std::size_t count)
{
    std::vector<std::size_t> idx(n);
    std::iota(idx.begin(), idx.end(), std::size_t(0));
    if (n <= count)
        return idx;
    Xoshiro256 rng(12345);
    for (std::size_t i = 0; i < count; ++i) // partial Fisher–Yates
        std::swap(idx[i], idx[i + std::size_t(rng.next() % (n - i))]);
    idx.resize(count);
    std::sort(idx.begin(), idx.end());
    return idx;
}

/// The error of acc on the bodies `which` against the fp64 reference (each against all N).
ForceError errorOn(const std::vector<Float4>& pos, const std::vector<Float4>& acc, const std::vector<std::size_t>& which,
                   double eps2)
{
    const std::vector<Double3> ref = referenceAccelerationsAt(pos.data(), pos.size(), which, eps2, 1.0);
    std::vector<Double4> a(which.size());
    for (std::size_t s = 0; s < which.size(); ++s) {
        const Float4& v = acc[which[s]];
        a[s] = Double4{v.x, v.y, v.z, 0};
    }
    return relativeErrors(a, ref);
}

ForceError treeError(const std::vector<Float4>& pos, double theta, int leaf, double eps2)
{
    return errorOn(pos, treeForces(pos, theta, leaf, eps2), sampleOf(pos.size(), kSample), eps2);
}

template <class V>
bool sameBits(const std::vector<V>& a, const std::vector<V>& b)
{
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(V)) == 0;
}

/// Restores the OpenMP thread count on scope exit.
struct Threads {
    int saved = omp_get_max_threads();
    ~Threads() { omp_set_num_threads(saved); }
};

} // namespace

class TestTree : public QObject {
    Q_OBJECT
private slots:
    void registryRow()
    {
        const KernelInfo* k = findKernel("tree-cpu");
        QVERIFY(k);
        QVERIFY(k->method == ForceMethod::Tree);
        QVERIFY(k->backend == Backend::Cpu);
        QVERIFY(k->layout == Layout::Float4);
        QVERIFY(k->deterministic);
        QVERIFY(k->host == &cpuTreeForces);
        QCOMPARE(QString::fromUtf8(toString(k->method).data()), QStringLiteral("tree"));
    }

    // The accuracy goal at the default θ and leaf size, for N not a multiple of the group
    // (32) or of any SIMD block, and for boxes that are degenerate (a point, a line, a plane)
    // or very unequal (one far body), with ε² = 0 where pairs coincide only with a guard.
    //
    // Bodies on a plane are held to the goal at θ = 0.1, on a line at 0.05: a 1-D or 2-D distribution
    // has no 3-D averaging of its higher multipoles (at the default θ the line's median is
    // ~2e-3), and its forces cancel along the line (the relative measure's floor is 1e-3 of the
    // RMS only). What those rows test is that degenerate boxes (sides of 0, keys equal in one or
    // two axes) build a correct tree whose error converges like any other.
    void againstReference_data()
    {
        QTest::addColumn<QString>("shape");
        QTest::addColumn<int>("n");
        QTest::addColumn<double>("eps2");
        QTest::addColumn<double>("theta");
        const double eps2 = double(SimParams{}.eps2);
        const double theta = double(SimParams{}.openingAngle);
        // N = 65 537: the size the speed figures of docs/tree.md are measured at, plus one body.
        for (int n : {1, 2, 31, 33, 1000, 4097, 65537, 100000})
            QTest::addRow("plummer N=%d", n) << QStringLiteral("plummer") << n << eps2 << theta;
        for (int n : {2, 33, 4097}) {
            QTest::addRow("plummer eps2=0 N=%d", n) << QStringLiteral("plummer") << n << 0.0 << theta;
            QTest::addRow("coincident N=%d", n) << QStringLiteral("coincident") << n << eps2 << theta;
            QTest::addRow("coincident eps2=0 N=%d", n) << QStringLiteral("coincident") << n << 0.0 << theta;
            QTest::addRow("far N=%d", n) << QStringLiteral("far") << n << eps2 << theta;
            QTest::addRow("line N=%d", n) << QStringLiteral("line") << n << eps2 << 0.05;
            QTest::addRow("plane N=%d", n) << QStringLiteral("plane") << n << eps2 << 0.1;
            QTest::addRow("point N=%d", n) << QStringLiteral("point") << n << eps2 << theta;
        }
        QTest::addRow("far N=100000") << QStringLiteral("far") << 100000 << eps2 << theta;
        QTest::addRow("coincident N=100000") << QStringLiteral("coincident") << 100000 << eps2 << theta;
        QTest::addRow("plane N=100000") << QStringLiteral("plane") << 100000 << eps2 << 0.1;
    }
    void againstReference()
    {
        QFETCH(QString, shape);
        QFETCH(int, n);
        QFETCH(double, eps2);
        QFETCH(double, theta);
        SimParams p;
        p.openingAngle = float(theta);
        const std::vector<Float4> pos = system(shape, std::size_t(n));
        const std::vector<Float4> acc = treeForces(pos, p.openingAngle, p.leafSize, eps2);
        for (const Float4& a : acc)
            QVERIFY2(std::isfinite(a.x) && std::isfinite(a.y) && std::isfinite(a.z) && a.w == 0.f, "non-finite");
        const ForceError e = errorOn(pos, acc, sampleOf(pos.size(), kSample), eps2);
        qInfo("%s N=%d eps2=%g theta=%g leaf=%d: median %.3g, p99 %.3g, max %.3g (sampled %zu)", qPrintable(shape), n,
              eps2, double(p.openingAngle), p.leafSize, e.median, e.p99, e.max, std::min<std::size_t>(kSample, pos.size()));
        QCOMPARE_LE(e.median, kGoalMedian);
        QCOMPARE_LE(e.p99, kGoalP99);
        // N ≤ leaf size + 1: every cell is a leaf or the root, summed body by body: all-pairs
        // accuracy (the `cpu` bound of tst_kernels, 1e-4; fp32 sums of ≤ 33 terms are ≲ 1e-6).
        if (n <= p.leafSize + 1)
            QCOMPARE_LE(e.max, 1e-5);
        // A system at one point: cells of size 0 and no quadrupole; the sum is exact up to
        // fp32 rounding whatever the tree accepts (their monopole is the bodies' sum).
        if (shape == "point")
            QCOMPARE_LE(e.max, 1e-5);
    }

    // The error falls as θ falls (p99 and median, each at least 1.5× per halving at N = 4097
    // measured > 3×), and with θ = 1e-4 every cell of positive size is opened: all pairs, so
    // the error is fp32 rounding (≲ √N · 6e-8 ≈ 4e-6 typical, measured 8e-6 for the worst of
    // 3000 bodies; bound 2e-5).
    void errorFallsWithTheta()
    {
        const std::vector<Float4> pos = plummer(4097);
        const double eps2 = double(SimParams{}.eps2);
        ForceError last = treeError(pos, 1.0, 16, eps2);
        qInfo("theta 1: median %.3g p99 %.3g max %.3g", last.median, last.p99, last.max);
        for (double theta : {0.5, 0.25, 0.125}) {
            const ForceError e = treeError(pos, theta, 16, eps2);
            qInfo("theta %g: median %.3g p99 %.3g max %.3g", theta, e.median, e.p99, e.max);
            QCOMPARE_LE(e.p99 * 1.5, last.p99);
            QCOMPARE_LE(e.median * 1.5, last.median);
            last = e;
        }
        const ForceError exact = treeError(pos, 1e-4, 16, eps2);
        qInfo("theta 1e-4: max %.3g", exact.max);
        QCOMPARE_LE(exact.max, 2e-5);
        // And the same holds against the `cpu` all-pairs kernel directly.
        const std::vector<Float4> tree = treeForces(pos, 1e-4, 16, eps2);
        std::vector<Float4> all(pos.size());
        HostForceArgs a;
        a.pos = pos.data();
        a.acc = all.data();
        a.n = pos.size();
        a.eps2 = eps2;
        cpuForcesFp32(a);
        double worst = 0;
        for (std::size_t i = 0; i < pos.size(); ++i) {
            const double d = std::hypot(tree[i].x - all[i].x, tree[i].y - all[i].y, tree[i].z - all[i].z);
            worst = std::max(worst, d / std::hypot(all[i].x, all[i].y, all[i].z));
        }
        // Two fp32 sums of 4097 terms in different orders (list order vs. index order), each
        // measured within 8e-6 of fp64 (bounded as above by 2e-5): they differ by at most 4e-5.
        qInfo("theta 1e-4 vs cpu: max relative difference %.3g", worst);
        QCOMPARE_LE(worst, 4e-5);
    }

    // Karras's radix tree over sorted keys: the root covers every body, children split their
    // parent's range at one point (a partition), every body is the child of exactly one node,
    // every node but the root has one parent, and the depth is bounded (≤ 63 key bits + 32
    // index bits; for all-equal keys the index bits alone: ≤ ⌈log2 N⌉).
    void radixInvariants_data()
    {
        QTest::addColumn<QString>("shape");
        QTest::addColumn<int>("n");
        for (int n : {2, 3, 31, 33, 1000, 4097})
            for (const char* s : {"plummer", "coincident", "point", "line", "far"})
                QTest::addRow("%s N=%d", s, n) << QString::fromLatin1(s) << n;
    }
    void radixInvariants()
    {
        QFETCH(QString, shape);
        QFETCH(int, n);
        const std::vector<Float4> pos = system(shape, std::size_t(n));
        HostTree t;
        buildTree(pos.data(), pos.size(), 0.5, t);
        QCOMPARE(t.root, 0);
        // order is a permutation; (key, index) strictly increasing; positions follow order.
        std::vector<int> seen(std::size_t(n), 0);
        for (std::size_t s = 0; s < t.n; ++s) {
            ++seen[t.order[s]];
            QCOMPARE(std::memcmp(&t.sorted[s], &pos[t.order[s]], sizeof(Float4)), 0);
            if (s > 0)
                QVERIFY(t.keys[s - 1] < t.keys[s] || (t.keys[s - 1] == t.keys[s] && t.order[s - 1] < t.order[s]));
        }
        QVERIFY(std::all_of(seen.begin(), seen.end(), [](int c) { return c == 1; }));
        std::vector<int> bodyParents(std::size_t(n), 0), nodeParents(std::size_t(n - 1), 0);
        const auto range = [&](int ref) {
            return tree::isBodyRef(ref) ? std::pair{tree::bodyOf(ref), tree::bodyOf(ref)}
                                        : std::pair{t.nodes[std::size_t(ref)].first, t.nodes[std::size_t(ref)].last};
        };
        for (int i = 0; i < n - 1; ++i) {
            const tree::RadixNode& r = t.nodes[std::size_t(i)];
            const auto [lf, ll] = range(r.left);
            const auto [rf, rl] = range(r.right);
            QCOMPARE(lf, r.first);
            QCOMPARE(rl, r.last);
            QCOMPARE(ll + 1, rf);
            for (int c : {r.left, r.right})
                ++(tree::isBodyRef(c) ? bodyParents[std::size_t(tree::bodyOf(c))] : nodeParents[std::size_t(c)]);
            QCOMPARE(t.cells[std::size_t(i)].count, r.last - r.first + 1);
        }
        QCOMPARE(t.nodes[0].first, 0);
        QCOMPARE(t.nodes[0].last, n - 1);
        QCOMPARE(nodeParents[0], 0);
        QVERIFY(std::all_of(nodeParents.begin() + 1, nodeParents.end(), [](int c) { return c == 1; }));
        QVERIFY(std::all_of(bodyParents.begin(), bodyParents.end(), [](int c) { return c == 1; }));
        // Depth by a walk from the root.
        int depth = 0;
        std::vector<std::pair<int, int>> stack{{0, 1}};
        while (!stack.empty()) {
            const auto [ref, d] = stack.back();
            stack.pop_back();
            depth = std::max(depth, d);
            if (!tree::isBodyRef(ref))
                for (int c : {t.nodes[std::size_t(ref)].left, t.nodes[std::size_t(ref)].right})
                    stack.push_back({c, d + 1});
        }
        const int log2n = int(std::ceil(std::log2(double(n))));
        QVERIFY2(depth <= 63 + 32 + 1, qPrintable(QString::number(depth)));
        if (shape == "point")
            QVERIFY2(depth <= log2n + 1, qPrintable(QStringLiteral("depth %1, log2 N %2").arg(depth).arg(log2n)));
        // The root's moments are the system's: mass and centre of mass as fp64 sums.
        double m = 0, cx = 0, cy = 0, cz = 0;
        for (const Float4& p : pos)
            m += p.w, cx += double(p.w) * p.x, cy += double(p.w) * p.y, cz += double(p.w) * p.z;
        const tree::Moments& root = t.moments[0];
        QCOMPARE_LE(std::abs(root.m - m), 1e-13 * m);
        const double scale = 1e-12 * (1 + std::abs(cx / m) + std::abs(cy / m) + std::abs(cz / m)) * 1e4;
        QCOMPARE_LE(std::abs(root.cx - cx / m), scale);
        QCOMPARE_LE(std::abs(root.cy - cy / m), scale);
        QCOMPARE_LE(std::abs(root.cz - cz / m), scale);
    }

    // The quadrupole Q_ab = Σ m (3 s_a s_b − |s|² δ_ab) of configurations with closed forms:
    //  - 8 bodies of mass m at (±1, ±2, ±3): Σ m s_a s_b = 8m diag(1, 4, 9), |s|² = 14, so
    //    Q = 8m diag(3 − 14, 12 − 14, 27 − 14) = m diag(−88, −16, 104), off-diagonals 0;
    //  - two bodies m1, m2 a vector d apart: Σ m s s = μ d d (μ = m1 m2 / (m1 + m2)), so
    //    Q = μ (3 d dᵀ − |d|² I).
    // Combined bottom-up in fp64 from exactly representable inputs: agreement to 1e-12.
    void quadrupoleClosedForm()
    {
        std::vector<Float4> cube;
        const float m = 0.375f;
        for (int sx : {-1, 1})
            for (int sy : {-1, 1})
                for (int sz : {-1, 1})
                    cube.push_back(Float4{float(sx) + 0.5f, 2.f * float(sy) - 1.f, 3.f * float(sz) + 2.f, m});
        HostTree t;
        buildTree(cube.data(), cube.size(), 0.5, t);
        const tree::Moments& q = t.moments[0];
        const double tol = 1e-12;
        QCOMPARE_LE(std::abs(q.cx - 0.5) + std::abs(q.cy + 1.0) + std::abs(q.cz - 2.0), tol);
        QCOMPARE_LE(std::abs(q.qxx + 88 * double(m)), tol);
        QCOMPARE_LE(std::abs(q.qyy + 16 * double(m)), tol);
        QCOMPARE_LE(std::abs(q.qzz - 104 * double(m)), tol);
        QCOMPARE_LE(std::abs(q.qxy) + std::abs(q.qxz) + std::abs(q.qyz), tol);
        QCOMPARE_LE(std::abs(q.qxx + q.qyy + q.qzz), tol); // traceless
        // The cell's box and r_crit² = (l/θ + δ)²: l = 6 (the z side), δ = 0.
        QCOMPARE_LE(std::abs(tree::criticalRadius2(q, 0.5) - 144.0), 1e-9);

        const std::vector<Float4> two{{0.f, 0.f, 0.f, 1.f}, {1.f, 2.f, -2.f, 3.f}};
        buildTree(two.data(), two.size(), 0.5, t);
        const double mu = 3.0 / 4.0, dx = 1, dy = 2, dz = -2, d2 = 9;
        const tree::Moments& r = t.moments[0];
        QCOMPARE_LE(std::abs(r.qxx - mu * (3 * dx * dx - d2)), tol);
        QCOMPARE_LE(std::abs(r.qyy - mu * (3 * dy * dy - d2)), tol);
        QCOMPARE_LE(std::abs(r.qzz - mu * (3 * dz * dz - d2)), tol);
        QCOMPARE_LE(std::abs(r.qxy - mu * 3 * dx * dy), tol);
        QCOMPARE_LE(std::abs(r.qxz - mu * 3 * dx * dz), tol);
        QCOMPARE_LE(std::abs(r.qyz - mu * 3 * dy * dz), tol);
        QCOMPARE_LE(std::abs(r.cx - 0.75) + std::abs(r.cy - 1.5) + std::abs(r.cz + 1.5), tol);
    }

    // cellInteraction is the multipole expansion to second order. For the 8 bodies at
    // (±1, ±2, ±3) seen from distance R, the monopole alone (quadrupole zeroed) leaves the
    // quadrupole term, a relative error ∝ R⁻² (doubling R divides it by 4; asserted 3.5…4.5);
    // with the quadrupole the next term is the octupole, zero by the configuration's symmetry
    // about its centre of mass, then the hexadecapole ∝ R⁻⁴ (divided by 16; asserted > 10), and
    // it is more than 10× smaller than the monopole's at R = 40. fp64 evaluation (the cell's
    // fp32 moments are exact here: small integers).
    void cellInteractionOrder()
    {
        std::vector<Float4> cube;
        for (int sx : {-1, 1})
            for (int sy : {-1, 1})
                for (int sz : {-1, 1})
                    cube.push_back(Float4{float(sx), 2.f * float(sy), 3.f * float(sz), 1.f});
        HostTree t;
        buildTree(cube.data(), cube.size(), 0.5, t);
        const tree::Cell cell = t.cells[0];
        tree::Cell mono = cell;
        mono.qxx = mono.qyy = mono.qzz = mono.qxy = mono.qxz = mono.qyz = 0.f;
        const auto relErr = [&](const tree::Cell& c, double R) {
            const Double4 bi{R * 0.48, R * 0.6, R * 0.64, 0}; // |direction| = 1
            Double3 exact{0, 0, 0}, approx{0, 0, 0};
            for (const Float4& b : cube)
                bodyBodyInteraction<double>(bi, Double4{b.x, b.y, b.z, b.w}, exact, 0.0);
            tree::cellInteraction<double>(bi, c, approx, 0.0);
            return std::hypot(approx.x - exact.x, approx.y - exact.y, approx.z - exact.z) /
                   std::hypot(exact.x, exact.y, exact.z);
        };
        for (double R : {40.0, 80.0}) {
            const double q1 = relErr(cell, R), q2 = relErr(cell, 2 * R);
            const double m1 = relErr(mono, R), m2 = relErr(mono, 2 * R);
            qInfo("R=%g: quadrupole %.3g -> %.3g, monopole %.3g -> %.3g", R, q1, q2, m1, m2);
            QVERIFY(q1 < m1 / 10);
            QCOMPARE_GE(q1 / q2, 10.0);
            QCOMPARE_GE(m1 / m2, 3.5);
            QCOMPARE_LE(m1 / m2, 4.5);
        }
    }

    // The walk of `tree-cpu` (a forward scan of the tree in depth-first order, SIMD acceptance
    // tests) makes the lists of the stack walk of contracts/Tree.h that the CUDA row runs: the
    // interactions it counts (treeWork) equal those of that walk written here with
    // tree::acceptCell, per group, for leaf sizes from 1 (every node and body an entry) to 32
    // and boxes of every shape. Equal sums of every group's list lengths (bodies and cells).
    void walkMatchesStackWalk_data()
    {
        QTest::addColumn<QString>("shape");
        QTest::addColumn<int>("n");
        QTest::addColumn<double>("theta");
        QTest::addColumn<int>("leaf");
        QTest::addRow("plummer N=65537 theta=0.3 leaf=16") << QStringLiteral("plummer") << 65537 << 0.3 << 16;
        QTest::addRow("plummer N=65537 theta=0.55 leaf=16") << QStringLiteral("plummer") << 65537 << 0.55 << 16;
        QTest::addRow("plummer N=4097 theta=0.5 leaf=1") << QStringLiteral("plummer") << 4097 << 0.5 << 1;
        QTest::addRow("plummer N=4097 theta=1 leaf=32") << QStringLiteral("plummer") << 4097 << 1.0 << 32;
        for (const char* shape : {"coincident", "far", "line", "plane", "point"})
            QTest::addRow("%s N=4097 theta=0.3 leaf=8", shape) << QString::fromLatin1(shape) << 4097 << 0.3 << 8;
        QTest::addRow("plummer N=33 theta=0.3 leaf=16") << QStringLiteral("plummer") << 33 << 0.3 << 16;
        QTest::addRow("plummer N=2 theta=0.3 leaf=1") << QStringLiteral("plummer") << 2 << 0.3 << 1;
        QTest::addRow("plummer N=1 theta=0.3 leaf=16") << QStringLiteral("plummer") << 1 << 0.3 << 16;
    }
    void walkMatchesStackWalk()
    {
        QFETCH(QString, shape);
        QFETCH(int, n);
        QFETCH(double, theta);
        QFETCH(int, leaf);
        const std::vector<Float4> pos = system(shape, std::size_t(n));
        HostTree t;
        buildTree(pos.data(), pos.size(), theta, t);
        std::uint64_t bodies = 0, cells = 0;
        std::vector<int> stack;
        for (const tree::Group& g : t.groups) {
            float lo[3] = {t.sorted[std::size_t(g.first)].x, t.sorted[std::size_t(g.first)].y,
                           t.sorted[std::size_t(g.first)].z};
            float hi[3] = {lo[0], lo[1], lo[2]};
            for (int s = g.first; s < g.first + g.count; ++s) {
                const Float4& p = t.sorted[std::size_t(s)];
                const float c[3] = {p.x, p.y, p.z};
                for (int k = 0; k < 3; ++k)
                    lo[k] = std::min(lo[k], c[k]), hi[k] = std::max(hi[k], c[k]);
            }
            float gc[3], h[3];
            for (int k = 0; k < 3; ++k)
                tree::groupBoxAxis(lo[k], hi[k], gc[k], h[k]);
            std::uint64_t listed = 0, accepted = 0;
            stack.assign(1, t.root);
            while (!stack.empty()) {
                const int ref = stack.back();
                stack.pop_back();
                if (tree::isBodyRef(ref)) {
                    ++listed;
                    continue;
                }
                const tree::Cell& c = t.cells[std::size_t(ref)];
                if (tree::acceptCell(c, gc[0], gc[1], gc[2], h[0], h[1], h[2]))
                    ++accepted;
                else if (c.count <= leaf)
                    listed += std::uint64_t(c.count);
                else {
                    stack.push_back(c.right);
                    stack.push_back(c.left);
                }
            }
            bodies += std::uint64_t(g.count) * listed;
            cells += std::uint64_t(g.count) * accepted;
        }
        std::vector<Float4> acc;
        const TreeWork w = treeWork(argsOf(pos, acc, theta, leaf, double(SimParams{}.eps2)));
        qInfo("%s N=%d theta=%g leaf=%d: %llu body and %llu cell interactions", qPrintable(shape), n, theta, leaf,
              static_cast<unsigned long long>(bodies), static_cast<unsigned long long>(cells));
        QCOMPARE(w.bodyInteractions, bodies);
        QCOMPARE(w.cellInteractions, cells);
    }

    // Deterministic: bit-identical accelerations on a second run and with 1 thread against 2
    // (keys, sort of a total order, nodes, moments combined left then right, each body's sums in
    // list order whatever the schedule), for N with a partial last group.
    void bitIdentical()
    {
        Threads restore;
        const std::vector<Float4> pos = plummer(20011);
        const double eps2 = double(SimParams{}.eps2);
        omp_set_num_threads(2);
        const std::vector<Float4> a = treeForces(pos, 0.6, 16, eps2);
        const std::vector<Float4> b = treeForces(pos, 0.6, 16, eps2);
        QVERIFY2(sameBits(a, b), "two runs differ");
        HostTree t2, t1;
        buildTree(pos.data(), pos.size(), 0.6, t2);
        omp_set_num_threads(1);
        const std::vector<Float4> c = treeForces(pos, 0.6, 16, eps2);
        QVERIFY2(sameBits(a, c), "1 and 2 threads differ");
        buildTree(pos.data(), pos.size(), 0.6, t1);
        QVERIFY(sameBits(t1.cells, t2.cells));
    }

    // The relative opening criterion (GADGET-2's, SimParams::openingAlpha) on a Plummer sphere of
    // 20 011 bodies (the default ε²), θ = 1 as the guard, errors on 3000 sampled bodies against the
    // fp64 direct sum. Measured here (AVX-512): the geometric criterion alone at θ = 1 gives p99
    // 9.1e-3; with α = 0.005, p99 1.24e-3, median 2.4e-4, for 2458 pair-equivalents per body (body
    // + 2.4 × cell interactions) against 4119 of θ = 0.55 alone, whose p99 is 1.60e-3: more accurate
    // for 0.60 of the work. Bounds: α's p99 ≤ 2e-3, below θ = 0.55's and under half the guard's;
    // its work under 0.7 of θ = 0.55's (a few acceptances move with the ISA's rounding of |a_old|).
    void relativeCriterion()
    {
        const std::vector<Float4> pos = plummer(20011);
        const double eps2 = double(SimParams{}.eps2);
        const std::vector<std::size_t> sample = sampleOf(pos.size(), kSample);
        std::vector<Float4> acc;
        HostForceArgs a = argsOf(pos, acc, 1.0, 16, eps2);
        a.openingAlpha = 0.005;
        cpuTreeForces(a); // no valid accelerations: the pre-pass at θ = 1 gives |a_old|
        const std::vector<Float4> first = acc;
        const ForceError relative = errorOn(pos, acc, sample, eps2);
        const ForceError guard = treeError(pos, 1.0, 16, eps2);
        const ForceError geometric = treeError(pos, 0.55, 16, eps2);
        qInfo("p99 / median: alpha 0.005 %.2e / %.2e, theta 1 alone %.2e, theta 0.55 alone %.2e", relative.p99,
              relative.median, guard.p99, geometric.p99);
        QVERIFY2(relative.p99 <= 2e-3, qPrintable(QString::number(relative.p99)));
        QVERIFY2(relative.p99 < geometric.p99, qPrintable(QString::number(relative.p99)));
        QVERIFY2(relative.p99 < 0.5 * guard.p99, qPrintable(QString::number(relative.p99)));

        // Work: counted with the same |a_old| (the previous evaluation's, valid).
        std::vector<Float4> scratch;
        HostForceArgs g = argsOf(pos, scratch, 0.55, 16, eps2);
        const TreeWork geometricWork = treeWork(g);
        a.accelerationsValid = true; // acc holds the forces just computed
        const TreeWork relativeWork = treeWork(a);
        const auto pairs = [](const TreeWork& w) { return double(w.bodyInteractions) + 2.4 * double(w.cellInteractions); };
        qInfo("pair-equivalents per body: alpha 0.005 %.0f, theta 0.55 %.0f", pairs(relativeWork) / double(pos.size()),
              pairs(geometricWork) / double(pos.size()));
        QVERIFY(pairs(relativeWork) < 0.7 * pairs(geometricWork));

        // The previous evaluation's accelerations read in place: same bits on rerun from the same
        // acc, for 1 and 2 threads, and close to the pre-pass's result (the same criterion with a
        // slightly different |a_old|).
        Threads restore;
        std::vector<Float4> again = first, once = first;
        a.acc = again.data();
        omp_set_num_threads(2);
        cpuTreeForces(a);
        a.acc = once.data();
        omp_set_num_threads(1);
        cpuTreeForces(a);
        QVERIFY2(sameBits(again, once), "1 and 2 threads differ");
        const ForceError steady = errorOn(pos, again, sample, eps2);
        QVERIFY2(steady.p99 <= 2e-3, qPrintable(QString::number(steady.p99)));

        // α = 0 is the geometric criterion, bit for bit, whatever acc holds.
        std::vector<Float4> plain;
        HostForceArgs z = argsOf(pos, plain, 0.55, 16, eps2);
        z.accelerationsValid = true;
        cpuTreeForces(z);
        QVERIFY(sameBits(plain, treeForces(pos, 0.55, 16, eps2)));

        // α is a parameter of the table, range [0, 1].
        const ParamInfo* row = findParam("openingAlpha");
        QVERIFY(row);
        QCOMPARE(QString::fromStdString(paramTextProblem(*row, "0.005")), QString());
        QCOMPARE(QString::fromStdString(paramTextProblem(*row, "-0.1")),
                 QStringLiteral("relative criterion alpha = -0.1 is outside [0, 1]"));
    }

    // Refused parameters name the parameter and the range.
    void refusesBadParameters()
    {
        const std::vector<Float4> pos = plummer(100);
        std::vector<Float4> acc;
        for (const auto& [theta, leaf, want] : {std::tuple{0.0, 16, "opening angle theta = 0 is outside (0, 2]"},
                                               std::tuple{2.5, 16, "opening angle theta = 2.5 is outside (0, 2]"},
                                               std::tuple{0.5, 0, "leaf size 0 is outside 1..32"},
                                               std::tuple{0.5, 33, "leaf size 33 is outside 1..32"}}) {
            try {
                cpuTreeForces(argsOf(pos, acc, theta, leaf, 0.002));
                QFAIL("accepted");
            } catch (const std::invalid_argument& e) {
                QCOMPARE(QString::fromStdString(e.what()), QString::fromLatin1(want));
            }
        }
        SimParams p;
        p.leafSize = 40;
        World w;
        w.addBody({0, 0, 0, 1}, {});
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, Simulation(w, p, "tree-cpu"));
    }

    // The calibration tables (ForceAccuracy.h): every tree row of the kernel registry has one
    // (its geometric criterion's first), each with θ increasing (or, at one θ, α increasing) and
    // the measured p99 increasing and the work decreasing with it (a larger θ or α accepts more
    // cells as multipoles), the median below the p99.
    void forceAccuracyTableCoversTheTreeRows()
    {
        for (const KernelInfo& k : kernelRegistry()) {
            const ForceAccuracyCalibration* c = findForceAccuracyCalibration(k.id);
            QCOMPARE(c != nullptr, k.method == ForceMethod::Tree);
        }
        for (const ForceAccuracyCalibration& c : forceAccuracyCalibrations()) {
            QVERIFY(findKernel(c.kernel));
            QVERIFY(c.points.size() >= 2);
            QVERIFY(c.bodies == 131072 || c.bodies == 1048576); // the N of the measurements
            QCOMPARE(c.leafSize, kDefaultLeafSize);
            for (std::size_t i = 0; i < c.points.size(); ++i) {
                const AccuracyPoint& pt = c.points[i];
                QVERIFY(pt.theta > 0 && pt.theta <= kMaxOpeningAngle);
                QVERIFY(pt.alpha >= 0 && pt.alpha <= 1);
                QVERIFY(pt.median > 0 && pt.median < pt.p99);
                QVERIFY(pt.work > 0);
                if (i > 0) {
                    const AccuracyPoint& before = c.points[i - 1];
                    QVERIFY(pt.theta > before.theta || (pt.theta == before.theta && pt.alpha > before.alpha));
                    QVERIFY(pt.p99 > before.p99);
                    QVERIFY(pt.work < before.work);
                }
            }
        }
    }

    // The choice: of the row's settings whose calibrated p99 is at most the target (table points
    // only), the one of least work; for tree-cpu the relative criterion's points beat every
    // geometric one but θ = 0.2 in both p99 and work (0.3: p99 1.80e-4 for 18 576 pair-equivalents
    // per body, α = 0.0005: 1.68e-4 for 5 778), and above p99 5e-4 the guard θ = 2 beats θ = 1,
    // so its choices are θ = 0.2, then θ = 1 with α, then θ = 2 with α; a target looser than the
    // cheapest setting's p99 takes that one, with the note saying so.
    void chooseOpeningAngle_data()
    {
        QTest::addColumn<QString>("kernel");
        QTest::addColumn<double>("target");
        QTest::addColumn<double>("theta");
        QTest::addColumn<double>("alpha");
        QTest::addColumn<double>("p99");
        QTest::addColumn<bool>("loosest");
        // tree-cpu's front: θ 0.2 4.00e-5; θ 1 with α 0.0002 9.07e-5, 0.0005 1.68e-4, 0.001 2.81e-4,
        // 0.002 5.20e-4; θ 2 with α 0.001 3.00e-4 (between those two), 0.002 5.60e-4, 0.0025 6.80e-4,
        // 0.003 7.90e-4, 0.0035 9.08e-4, 0.004 1.03e-3, 0.005 1.23e-3, 0.006 1.44e-3, 0.007 1.66e-3,
        // 0.01 2.17e-3 (θ 1's α 0.003 … 0.02 each cost more than a θ 2 point of smaller p99).
        QTest::newRow("tree-cpu smallest") << "tree-cpu" << 4.0e-5 << 0.2 << 0.0 << 4.0e-5 << false;
        QTest::newRow("tree-cpu between 0.2 and alpha 0.0002") << "tree-cpu" << 9.0e-5 << 0.2 << 0.0 << 4.0e-5 << false;
        QTest::newRow("tree-cpu 2e-4: alpha, not theta 0.3") << "tree-cpu" << 2.0e-4 << 1.0 << 0.0005 << 1.68e-4 << false;
        QTest::newRow("tree-cpu 5.5e-4: guard 1") << "tree-cpu" << 5.5e-4 << 1.0 << 0.002 << 5.20e-4 << false;
        QTest::newRow("tree-cpu 1e-3: guard 2") << "tree-cpu" << 1.0e-3 << 2.0 << 0.0035 << 9.08e-4 << false;
        QTest::newRow("tree-cpu on alpha 0.006's p99") << "tree-cpu" << 1.44e-3 << 2.0 << 0.006 << 1.44e-3 << false;
        QTest::newRow("tree-cpu just below it") << "tree-cpu" << 1.43e-3 << 2.0 << 0.005 << 1.23e-3 << false;
        QTest::newRow("tree-cpu cheapest") << "tree-cpu" << 2.17e-3 << 2.0 << 0.01 << 2.17e-3 << false;
        QTest::newRow("tree-cpu looser than the table") << "tree-cpu" << 0.5 << 2.0 << 0.01 << 2.17e-3 << true;
        // tree (H200), geometric only: 0.3 1.8e-4, 0.4 4.5e-4, 0.5 7.3e-4, 0.6 1.5e-3, 0.75 3.2e-3.
        QTest::newRow("tree 1e-3") << "tree" << 1.0e-3 << 0.5 << 0.0 << 7.3e-4 << false;
        QTest::newRow("tree 2e-4") << "tree" << 2.0e-4 << 0.3 << 0.0 << 1.8e-4 << false;
        QTest::newRow("tree looser than the table") << "tree" << 1e-2 << 0.75 << 0.0 << 3.2e-3 << true;
    }
    void chooseOpeningAngle()
    {
        QFETCH(QString, kernel);
        QFETCH(double, target);
        const OpeningAngleChoice c = nbody::chooseOpeningAngle(kernel.toStdString(), target);
        QTEST(c.point.theta, "theta");
        QTEST(c.point.alpha, "alpha");
        QTEST(c.point.p99, "p99");
        QTEST(c.loosest, "loosest");
        const QString setting = "theta = " + QString::number(c.point.theta) +
                                (c.point.alpha > 0 ? ", alpha = " + QString::number(c.point.alpha) : QString());
        const QString note = QString::fromStdString(c.note);
        QVERIFY2(note.startsWith(kernel + ": " + setting + " for force accuracy "), qPrintable(note));
        QCOMPARE(note.contains("the table's cheapest setting"), c.loosest);
        // A system of unknown N, and one of the smallest calibration's N (131 072), take the
        // tables of 131 072.
        const OpeningAngleChoice same = nbody::chooseOpeningAngle(kernel.toStdString(), target, 131072);
        QCOMPARE(same.note, c.note);
        QCOMPARE(same.calibrationBodies, std::size_t(131072));
        QVERIFY(!same.largerThanCalibration);
        // A system larger than the row's largest calibration takes that one's choice, and only
        // its note says that the error grows with N.
        const std::size_t largest = calibrationBodies(kernel.toStdString(), std::numeric_limits<std::size_t>::max());
        if (accuracyChoices(kernel.toStdString(), largest).front().p99 > target) { // tighter than that table reaches
            QVERIFY_THROWS_EXCEPTION(std::invalid_argument, nbody::chooseOpeningAngle(kernel.toStdString(), target, largest + 1));
            return;
        }
        const OpeningAngleChoice atLargest = nbody::chooseOpeningAngle(kernel.toStdString(), target, largest);
        const OpeningAngleChoice larger = nbody::chooseOpeningAngle(kernel.toStdString(), target, largest + 1);
        QVERIFY(!atLargest.largerThanCalibration && larger.largerThanCalibration);
        QCOMPARE(larger.point.theta, atLargest.point.theta);
        QCOMPARE(larger.point.alpha, atLargest.point.alpha);
        const std::string suffix = "; this system has " + std::to_string(largest + 1) +
                                   " bodies, more than the calibration's " + std::to_string(largest) +
                                   ", and the error grows with N (p99 at theta = 0.5: 7.3e-04 at 131072 bodies, "
                                   "1.2e-03 at 1048576, 1.6e-03 at 8388608), so it can exceed the target: `nbody "
                                   "validate --reference sampled` measures it";
        QVERIFY2(larger.note.ends_with(suffix), larger.note.c_str());
        QVERIFY2(!atLargest.note.ends_with(suffix), atLargest.note.c_str());
    }

    // The tables per N: `tree` has the geometric criterion's at 131 072 (H200) and both criteria's
    // at 1 048 576 (H100). A system takes the smallest calibrated N at or above its own, so every
    // N above 131 072 up to 1 M (and beyond) chooses from the 1 M tables, where the relative
    // criterion is cheaper at equal p99: at 1e-3, θ = 1 with α = 0.0015 (p99 9.52e-4, 3 512
    // pair-equivalents per body) instead of θ = 0.4 (7.47e-4, 12 636), while θ = 0.5 — the 131 072
    // table's choice — has p99 1.24e-3 at 1 M. A target tighter than the 1 M table's best (θ = 0.3,
    // 3.16e-4) is refused for a large system although the 131 072 table reaches it.
    void forceAccuracyTablesPerN_data()
    {
        QTest::addColumn<qulonglong>("bodies");
        QTest::addColumn<double>("target");
        QTest::addColumn<qulonglong>("table");
        QTest::addColumn<double>("theta");
        QTest::addColumn<double>("alpha");
        QTest::addColumn<double>("p99");
        QTest::newRow("unknown N, 1e-3") << 0ull << 1e-3 << 131072ull << 0.5 << 0.0 << 7.3e-4;
        QTest::newRow("65536, 1e-3") << 65536ull << 1e-3 << 131072ull << 0.5 << 0.0 << 7.3e-4;
        QTest::newRow("131072, 1e-3") << 131072ull << 1e-3 << 131072ull << 0.5 << 0.0 << 7.3e-4;
        QTest::newRow("131073, 1e-3") << 131073ull << 1e-3 << 1048576ull << 1.0 << 0.0015 << 9.52e-4;
        QTest::newRow("1048576, 1e-3") << 1048576ull << 1e-3 << 1048576ull << 1.0 << 0.0015 << 9.52e-4;
        QTest::newRow("8388608, 1e-3") << 8388608ull << 1e-3 << 1048576ull << 1.0 << 0.0015 << 9.52e-4;
        QTest::newRow("1048576, 5e-4") << 1048576ull << 5e-4 << 1048576ull << 1.0 << 0.0005 << 4.45e-4;
        QTest::newRow("1048576, 3.2e-4") << 1048576ull << 3.2e-4 << 1048576ull << 0.3 << 0.0 << 3.16e-4;
        QTest::newRow("1048576, 1e-2: the cheapest") << 1048576ull << 1e-2 << 1048576ull << 1.0 << 0.005 << 2.21e-3;
    }
    void forceAccuracyTablesPerN()
    {
        QFETCH(qulonglong, bodies);
        QFETCH(double, target);
        QFETCH(qulonglong, table);
        QCOMPARE(qulonglong(calibrationBodies("tree", std::size_t(bodies))), table);
        const OpeningAngleChoice c = nbody::chooseOpeningAngle("tree", target, std::size_t(bodies));
        QCOMPARE(qulonglong(c.calibrationBodies), table);
        QTEST(c.point.theta, "theta");
        QTEST(c.point.alpha, "alpha");
        QTEST(c.point.p99, "p99");
        QVERIFY2(c.note.find(" on a Plummer sphere of " + std::to_string(table) + " bodies)") != std::string::npos,
                 c.note.c_str());
        // The Simulation runs what the choice says, for its N.
        SimParams p;
        p.forceAccuracy = target;
        const SimParams applied = withForceAccuracy(*findKernel("tree"), p, std::size_t(bodies));
        QCOMPARE(double(applied.openingAngle), double(float(c.point.theta)));
        QCOMPARE(applied.openingAlpha, c.point.alpha);
    }
    void forceAccuracyTablesPerNRefuse()
    {
        QCOMPARE(nbody::chooseOpeningAngle("tree", 2e-4, 131072).point.theta, 0.3); // 1.8e-4 at 131 072
        try {
            nbody::chooseOpeningAngle("tree", 2e-4, 1048576);
            QFAIL("accepted");
        } catch (const std::invalid_argument& e) {
            QCOMPARE(QString::fromStdString(e.what()),
                     QStringLiteral("force accuracy 2.0e-04 is tighter than tree's calibration at 1048576 bodies "
                                    "reaches: p99 3.2e-04 at theta = 0.3, its smallest; give the opening angle theta "
                                    "below 0.3, or use an all-pairs kernel"));
        }
        QCOMPARE(calibrationBodies("cpu", 1000), std::size_t(0));
        QCOMPARE(calibrationBodies("tree-cpu", 1048576), std::size_t(131072)); // its largest
    }

    // accuracyChoices: tree-cpu's settings worth choosing, in increasing p99 and decreasing work.
    void accuracyChoicesAreTheFront()
    {
        const std::vector<AccuracyPoint> front = accuracyChoices("tree-cpu");
        QCOMPARE(front.size(), std::size_t(15));
        QCOMPARE(front.front().theta, 0.2);
        QCOMPARE(front[1].alpha, 0.0002);
        QCOMPARE(front[4].theta, 2.0); // θ 2, α 0.001 (3.00e-4) between θ 1's α 0.001 and 0.002
        QCOMPARE(front.back().theta, 2.0);
        QCOMPARE(front.back().alpha, 0.01);
        for (std::size_t i = 1; i < front.size(); ++i) {
            QVERIFY(front[i].p99 > front[i - 1].p99);
            QVERIFY(front[i].work < front[i - 1].work);
        }
        QCOMPARE(accuracyChoices("tree").size(), std::size_t(5)); // one criterion at 131 072: every θ
        // At 1 M: θ 0.3, then α 0.0005, 0.001, 0.0015, 0.002, 0.003, 0.005 (each geometric θ
        // above 0.3 costs more than a relative point of smaller p99).
        const std::vector<AccuracyPoint> oneM = accuracyChoices("tree", 1048576);
        QCOMPARE(oneM.size(), std::size_t(7));
        QCOMPARE(oneM.front().theta, 0.3);
        for (std::size_t i = 1; i < oneM.size(); ++i)
            QVERIFY(oneM[i].alpha > 0 && oneM[i].work < oneM[i - 1].work);
        QVERIFY(accuracyChoices("cpu").empty());
    }

    // Targets the table cannot serve are refused, naming the problem.
    void chooseOpeningAngleRefuses_data()
    {
        QTest::addColumn<QString>("kernel");
        QTest::addColumn<double>("target");
        QTest::addColumn<QString>("message");
        QTest::newRow("zero") << "tree-cpu" << 0.0 << "force accuracy (p99) must be positive and finite (got 0)";
        QTest::newRow("negative") << "tree-cpu" << -1e-3 << "force accuracy (p99) must be positive and finite (got -0.001)";
        QTest::newRow("infinite") << "tree-cpu" << std::numeric_limits<double>::infinity()
                                  << "force accuracy (p99) must be positive and finite (got inf)";
        QTest::newRow("nan") << "tree-cpu" << std::nan("") << "force accuracy (p99) must be positive and finite (got nan)";
        QTest::newRow("tighter than tree-cpu reaches")
            << "tree-cpu" << 1e-5
            << "force accuracy 1.0e-05 is tighter than tree-cpu's calibration at 131072 bodies reaches: p99 4.0e-05 at "
               "theta = 0.2, its "
               "smallest; give the opening angle theta below 0.2, or use an all-pairs kernel";
        QTest::newRow("tighter than tree reaches")
            << "tree" << 1e-4
            << "force accuracy 1.0e-04 is tighter than tree's calibration at 131072 bodies reaches: p99 1.8e-04 at "
               "theta = 0.3, its "
               "smallest; give the opening angle theta below 0.3, or use an all-pairs kernel";
        QTest::newRow("all-pairs row") << "cpu" << 1e-3
                                       << "kernel 'cpu' has no force-accuracy calibration: give the opening angle theta instead";
    }
    void chooseOpeningAngleRefuses()
    {
        QFETCH(QString, kernel);
        QFETCH(double, target);
        try {
            nbody::chooseOpeningAngle(kernel.toStdString(), target);
            QFAIL("accepted");
        } catch (const std::invalid_argument& e) {
            QTEST(QString::fromStdString(e.what()), "message");
        }
    }

    // The parameter row: unset by default (θ as given), a value in (0, 1]; a Simulation running
    // a tree row with it uses the calibrated θ and keeps it when the parameters change; an
    // all-pairs row ignores it; a target the row cannot reach is refused and nothing changes.
    void forceAccuracyParameter()
    {
        const ParamInfo* row = findParam("forceAccuracy");
        QVERIFY(row);
        QCOMPARE(QString::fromLatin1(row->option.data(), qsizetype(row->option.size())), QStringLiteral("--force-accuracy"));
        QCOMPARE(QString::fromStdString(paramDefaultText(*row)), QString());
        QCOMPARE(QString::fromStdString(paramTextProblem(*row, "1e-3")), QString());
        QCOMPARE(QString::fromStdString(paramTextProblem(*row, "0")),
                 QStringLiteral("force accuracy (p99) = 0 is outside (0, 1]"));
        QCOMPARE(QString::fromStdString(paramTextProblem(*row, "-1e-3")),
                 QStringLiteral("force accuracy (p99) = -1e-3 is outside (0, 1]"));
        QCOMPARE(QString::fromStdString(paramTextProblem(*row, "inf")),
                 QStringLiteral("force accuracy (p99) = inf is outside (0, 1]"));

        World w;
        for (int i = 0; i < 37; ++i)
            w.addBody({float(i % 5), float(i / 5), float(i % 3), 1}, {});
        SimParams p;
        QVERIFY(row->set("1e-3", p).empty());
        QCOMPARE(p.forceAccuracy, 1e-3);
        Simulation sim(w, p, "tree-cpu");
        // tree-cpu: θ = 2 with α = 0.0035 has p99 9.08e-4 ≤ 1e-3 (α = 0.004: 1.03e-3) for less work
        // than any other setting that meets it (θ 1 with α 0.004: 9.02e-4 for 2 694 against 2 378
        // pair-equivalents; θ 0.5: 7.68e-4 for 6 736).
        QCOMPARE(sim.params().openingAngle, 2.0f);
        QCOMPARE(sim.params().openingAlpha, 0.0035);
        QCOMPARE(QString::fromStdString(describe(sim.params())).contains("theta=2"), true);
        QVERIFY(QString::fromStdString(describe(sim.params())).contains("alpha=0.0035"));
        QVERIFY(QString::fromStdString(describe(sim.params())).contains("accuracy=0.001"));
        SimParams q = sim.params();
        q.forceAccuracy = 3.4e-3;
        q.openingAngle = 0.3f; // replaced: the force accuracy picks θ
        sim.setParams(q);
        QCOMPARE(sim.params().openingAlpha, 0.01); // the cheapest setting: θ 2, p99 2.17e-3 ≤ 3.4e-3
        QCOMPARE(sim.params().openingAngle, 2.0f);
        q.forceAccuracy = 1e-5; // tighter than tree-cpu reaches
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, sim.setParams(q));
        QCOMPARE(sim.params().openingAlpha, 0.01);
        QCOMPARE(sim.params().forceAccuracy, 3.4e-3);
        q.forceAccuracy = 0; // off: θ and α as given
        q.openingAlpha = 0;
        sim.setParams(q);
        QCOMPARE(sim.params().openingAngle, 0.3f);
        QCOMPARE(sim.params().openingAlpha, 0.0);

        SimParams allPairs;
        allPairs.forceAccuracy = 1e-5; // no table, no tree: ignored
        Simulation cpu(w, allPairs, "cpu");
        QCOMPARE(cpu.params().openingAngle, kDefaultOpeningAngle);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, cpu.setKernel("tree-cpu"));
        QCOMPARE(QString::fromLatin1(cpu.kernel().id.data()), QStringLiteral("cpu"));
    }

    // The CUDA row `tree` against `tree-cpu` (same tree, same lists): they differ by the
    // rounding of their fp32 sums (hardware rsqrt vs. Newton-refined estimate: ~1e-7 per term,
    // ≲ √terms · 1e-7 ≈ 1e-5 summed) and, where a cell sits on the opening boundary within
    // fp32 rounding of the group box, by one cell opened on one side only (a difference of the
    // order of the tree's own error there, ≤ 1e-3). Bounds: median 1e-5, p99 1e-4, max 1e-2.
    // The CUDA row against tree-cpu: the same tree and the same acceptance tests, so the two differ
    // by the rounding of their sums only (fp32: median ~1e-7, p99 ~1e-6 measured on the H200;
    // an acceptance test that rounds the other way moves a few bodies to ~1e-3, hence the max).
    // alpha > 0: GADGET-2's relative criterion, first with no previous accelerations (each row's
    // geometric pre-pass), then reading each row's own accelerations of that first evaluation.
    void gpuAgreesWithCpu_data()
    {
        QTest::addColumn<int>("n");
        QTest::addColumn<double>("alpha");
        for (int n : {33, 4097, 100000})
            QTest::addRow("N=%d", n) << n << 0.0;
        for (int n : {33, 4097, 100000})
            QTest::addRow("N=%d alpha=0.005", n) << n << 0.005;
    }
    void gpuAgreesWithCpu()
    {
        QFETCH(int, n);
        QFETCH(double, alpha);
        const KernelInfo* gpu = findKernel("tree");
        if (!gpu)
            QSKIP("no `tree` row in this build's registry");
        if (const Availability a = availability(*gpu); !a.available)
            QSKIP(qPrintable(QString::fromStdString(a.reason)));
        PlummerParams pp;
        pp.bodies = std::size_t(n);
        const World w = makePlummer(pp).world;
        SimParams p;
        if (alpha > 0) {
            p.openingAngle = 1.0f;
            p.openingAlpha = alpha;
        }
        // evaluations: 1, or 2 (the second reads the first's accelerations, each row its own).
        const auto compare = [&](int evaluations) {
            Simulation gs(w, p, "tree"), cs(w, p, "tree-cpu");
            for (int k = 0; k < evaluations; ++k) {
                gs.computeAccelerations();
                cs.computeAccelerations();
            }
            const std::vector<Double4> g = gs.accelerations64(), c = cs.accelerations64();
            std::vector<Double3> ref(c.size());
            for (std::size_t i = 0; i < c.size(); ++i)
                ref[i] = Double3{c[i].x, c[i].y, c[i].z};
            const ForceError e = relativeErrors(g, ref);
            qInfo("tree vs tree-cpu N=%d alpha=%g, evaluation %d: median %.3g p99 %.3g max %.3g", n, alpha,
                  evaluations, e.median, e.p99, e.max);
            QCOMPARE_LE(e.median, 1e-5);
            QCOMPARE_LE(e.p99, 1e-4);
            QCOMPARE_LE(e.max, 1e-2);
        };
        compare(1);
        if (alpha > 0)
            compare(2);
    }
};

QTEST_APPLESS_MAIN(TestTree)
#include "tst_tree.moc"
