// The collision system (docs/collisions.md): the radius component and its file
// round trips, the cell-list contact search against the all-pairs reference, deterministic
// merging with mass, momentum and centre of mass conserved to rounding, the energy accounting,
// the pipeline in Simulation::step, scenarios and the CLI. CPU only: the CUDA search rows are
// compared with these in tst_kernels on the GPU machine.
#include "CliRunner.h"

#include "sim/collide/CollisionSystem.h"
#include "sim/collide/Collisions.h"
#include "sim/core/Diagnostics.h"
#include "sim/io/Scenarios.h"
#include "sim/core/Simulation.h"
#include "sim/io/Snapshot.h"
#include "sim/io/Tipsy.h"

#include <QtTest>

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

using namespace nbody;

namespace {

constexpr double kU = 0x1p-24;  ///< fp32 unit roundoff
constexpr double kU64 = 0x1p-53; ///< fp64 unit roundoff

std::vector<ContactPair> search(std::string_view id, const World& w)
{
    const ContactSearchInfo* row = findContactSearch(id);
    if (!row || !row->find)
        throw std::logic_error("no row " + std::string(id));
    ContactSearchArgs a;
    a.position = w.positions().data();
    a.radius = w.radii().data();
    a.n = w.size();
    a.maxRadius = w.maxRadius();
    return row->find(a);
}

/// A chain of n bodies in random order: link k joins bodies perm[k] and perm[k+1], whose centres
/// lie 0.9 (r_a + r_b) apart in a random direction, so every body touches at least one other.
/// Returns the links as sorted pairs.
std::vector<ContactPair> makeChain(World& w, std::size_t n, std::uint64_t seed, double offset = 0)
{
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1, 1), size(0.5, 1.5);
    std::vector<std::uint32_t> perm(n);
    std::iota(perm.begin(), perm.end(), 0u);
    std::shuffle(perm.begin(), perm.end(), rng);
    std::vector<Double3> x(n);
    std::vector<float> r(n);
    for (std::size_t k = 0; k < n; ++k)
        r[k] = float(0.01 * size(rng));
    x[0] = {offset, offset, offset};
    for (std::size_t k = 1; k < n; ++k) {
        double dx, dy, dz, l;
        do {
            dx = u(rng), dy = u(rng), dz = u(rng);
            l = std::sqrt(dx * dx + dy * dy + dz * dz);
        } while (l < 0.1 || l > 1);
        const double d = 0.9 * (double(r[k - 1]) + double(r[k]));
        x[k] = {x[k - 1].x + d * dx / l, x[k - 1].y + d * dy / l, x[k - 1].z + d * dz / l};
    }
    // Body perm[k] is chain element k.
    std::vector<std::size_t> element(n);
    for (std::size_t k = 0; k < n; ++k)
        element[perm[k]] = k;
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t k = element[i];
        w.addBody({float(x[k].x), float(x[k].y), float(x[k].z), 1.f}, {}, Group::Generic, World::kAutoId, r[k]);
    }
    std::vector<ContactPair> links;
    for (std::size_t k = 0; k + 1 < n; ++k)
        links.push_back({std::min(perm[k], perm[k + 1]), std::max(perm[k], perm[k + 1])});
    std::sort(links.begin(), links.end(), [](auto a, auto b) { return a.i != b.i ? a.i < b.i : a.j < b.j; });
    return links;
}

/// |computed − exact| ≤ bound, with a message naming the quantity.
void checkWithin(const char* what, double computed, double exact, double bound)
{
    if (!(std::fabs(computed - exact) <= bound))
        QFAIL(qPrintable(QStringLiteral("%1: %2 vs %3, difference %4 above the bound %5")
                             .arg(what)
                             .arg(computed, 0, 'g', 17)
                             .arg(exact, 0, 'g', 17)
                             .arg(std::fabs(computed - exact), 0, 'g', 3)
                             .arg(bound, 0, 'g', 3)));
}

World twoBodyCourse()
{
    // Head-on along x: masses 1 and 3, total momentum −0.3, radii 0.05 (contact at d < 0.1).
    World w;
    w.addBody({-1.f, 0.f, 0.f, 1.f}, {0.6f, 0.f, 0.f, 0.f}, Group::Generic, World::kAutoId, 0.05f);
    w.addBody({1.f, 0.f, 0.f, 3.f}, {-0.3f, 0.f, 0.f, 0.f}, Group::Generic, World::kAutoId, 0.05f);
    return w;
}

/// "" when kernel `id` can run here, else why not.
QString unavailable(const QString& id)
{
    const KernelInfo* k = findKernel(id.toStdString());
    if (!k)
        return QStringLiteral("no kernel '%1' in this build").arg(id);
    if (const Availability a = availability(*k); !a.available)
        return QString::fromStdString("kernel '" + id.toStdString() + "' unavailable: " + a.reason);
    return {};
}

} // namespace

class TestCollisions : public QObject {
    Q_OBJECT
private slots:
    // ---- the radius component ----
    void radiusColumn()
    {
        World w;
        w.addBody({0, 0, 0, 1}, {});
        w.addBody({1, 0, 0, 2}, {}, Group::Star, World::kAutoId, 0.25f);
        w.addBody({2, 0, 0, 3}, {}, Group::Gas, World::kAutoId, 0.5f);
        QCOMPARE(w.radii(), (std::vector<float>{0.f, 0.25f, 0.5f}));
        QCOMPARE(w.maxRadius(), 0.5f);
        QCOMPARE(w.removeBodies({1}), std::size_t(1));
        QCOMPARE(w.radii(), (std::vector<float>{0.f, 0.5f}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, w.addBody({0, 0, 0, 1}, {}, Group::Generic, World::kAutoId, -1.f));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, w.setRadius(0, NAN));
        QVERIFY_THROWS_EXCEPTION(std::out_of_range, w.setRadius(9, 1.f));
        w.radii()[0] = INFINITY;
        QVERIFY(w.validate().find("radius") != std::string::npos);
        w.radii()[0] = 0.f;
        QVERIFY(w.validate().empty());
        // r = (3 m / (4 π ρ))^{1/3}: a unit mass at ρ = 3 / (4π) has radius 1.
        QCOMPARE(radiusFromDensity(1.0, 3.0 / (4.0 * 3.14159265358979323846)), 1.0);
        QCOMPARE(radiusFromDensity(8.0, 3.0 / (4.0 * 3.14159265358979323846)), 2.0);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, radiusFromDensity(1.0, 0.0));
    }

    void radiusFileRoundTrips_data()
    {
        QTest::addColumn<QString>("format");
        QTest::newRow("csv") << "csv";
        QTest::newRow("hdf5") << "hdf5";
        QTest::newRow("tipsy-star-eps") << "tipsy";
    }
    void radiusFileRoundTrips()
    {
        QFETCH(QString, format);
        QTemporaryDir dir;
        World w;
        std::mt19937 rng(7);
        std::uniform_real_distribution<float> u(0.f, 1.f);
        for (int i = 0; i < 37; ++i) // stars, so Tipsy's star eps carries the radius
            w.addBody({u(rng), u(rng), u(rng), 1.f + u(rng)}, {u(rng), 0.f, 0.f, 0.f}, Group::Star,
                      World::kAutoId, i % 3 == 0 ? 0.f : 1e-3f * u(rng) + float(i) * 1e-7f);
        const std::string ext = format == "csv" ? ".csv" : format == "hdf5" ? ".h5" : ".bin";
        const std::string path = dir.filePath(QStringLiteral("r")).toStdString() + ext;
        writeSnapshot(path, w);
        World back = format == "tipsy" ? readTipsy(path, nullptr, /*starEpsAsRadius*/ true) : readSnapshot(path).world;
        QCOMPARE(back.size(), w.size());
        QCOMPARE(back.radii(), w.radii()); // fp32 exact: shortest round-trip text, F32 datasets, F32 eps
        if (format == "tipsy") { // without the option, eps is not a radius
            const World plain = readTipsy(path);
            QCOMPARE(plain.maxRadius(), 0.f);
        }
        // Without radii the files stay as before: no radius column or dataset, radii read as 0.
        World none;
        none.addBody({0, 0, 0, 1}, {});
        none.addBody({1, 0, 0, 1}, {});
        const std::string plainPath = dir.filePath(QStringLiteral("plain")).toStdString() + ext;
        writeSnapshot(plainPath, none);
        QCOMPARE(readSnapshot(plainPath).world.radii(), (std::vector<float>{0.f, 0.f}));
        if (format == "csv") {
            QFile f(QString::fromStdString(plainPath));
            QVERIFY(f.open(QIODevice::ReadOnly));
            const QByteArray text = f.readAll();
            QVERIFY(text.contains("\nx,y,z,vx,vy,vz,m,id,group\n"));
            QFile g(QString::fromStdString(path));
            QVERIFY(g.open(QIODevice::ReadOnly));
            QVERIFY(g.readAll().contains("\nx,y,z,vx,vy,vz,m,id,group,r\n"));
        }
    }

    void csvRadiusRefused()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("bad.csv"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("x,y,z,vx,vy,vz,m,radius\n0,0,0,0,0,0,1,0.5\n1,0,0,0,0,0,1,-2\n");
        f.close();
        try {
            (void)readSnapshot(path.toStdString());
            QFAIL("a negative radius was accepted");
        } catch (const std::exception& e) {
            QVERIFY2(std::string(e.what()).find("r is negative") != std::string::npos, e.what());
        }
    }

    // ---- contact searches ----
    void cellsMatchPairsOnChains_data()
    {
        QTest::addColumn<int>("n");
        QTest::addColumn<double>("offset");
        for (int n : {1, 2, 31, 33, 1000, 4097})
            QTest::addRow("N=%d", n) << n << 0.0;
        QTest::newRow("N=1000 far from the origin") << 1000 << 1e4; // fp32 spacing 1e-3: coarse coordinates
    }
    void cellsMatchPairsOnChains()
    {
        QFETCH(int, n);
        QFETCH(double, offset);
        World w;
        const std::vector<ContactPair> links = makeChain(w, std::size_t(n), 1000 + std::uint64_t(n), offset);
        const std::vector<ContactPair> pairs = search("cpu-pairs", w), cells = search("cpu-cells", w);
        QCOMPARE(cells.size(), pairs.size());
        QVERIFY(cells == pairs);
        QVERIFY(std::is_sorted(pairs.begin(), pairs.end(), [](auto a, auto b) { return a.i != b.i ? a.i < b.i : a.j < b.j; }));
        if (offset == 0) {
            // Every link touches (0.9 (r_a + r_b) apart, far beyond fp32 rounding at this scale): none missed.
            for (const ContactPair& l : links)
                QVERIFY2(std::binary_search(pairs.begin(), pairs.end(), l,
                                            [](auto a, auto b) { return a.i != b.i ? a.i < b.i : a.j < b.j; }),
                         qPrintable(QStringLiteral("link (%1, %2) missed").arg(l.i).arg(l.j)));
            if (n > 1) {
                std::vector<bool> touched(std::size_t(n), false);
                for (const ContactPair& p : pairs)
                    touched[p.i] = touched[p.j] = true;
                QVERIFY(std::all_of(touched.begin(), touched.end(), [](bool b) { return b; }));
            }
        }
    }

    void cellsMatchPairsDegenerate_data()
    {
        QTest::addColumn<QString>("kind");
        for (const char* k : {"empty", "radius0", "oneCell", "zeroRadiusInside", "hugeExtent", "randomCube",
                              "boundary", "nonFinite"})
            QTest::newRow(k) << QString::fromLatin1(k);
    }
    void cellsMatchPairsDegenerate()
    {
        QFETCH(QString, kind);
        World w;
        std::mt19937 rng(11);
        std::uniform_real_distribution<float> u(-1.f, 1.f);
        std::size_t wantAtLeast = 0;
        if (kind == "radius0") { // all radii 0: no pair, even for coincident bodies
            for (int i = 0; i < 257; ++i)
                w.addBody({u(rng), u(rng), u(rng), 1.f}, {});
            w.addBody(w.positions()[0], {});
        } else if (kind == "oneCell") { // every body in one cell: all N(N−1)/2 pairs
            for (int i = 0; i < 301; ++i)
                w.addBody({1e-3f * u(rng), 1e-3f * u(rng), 1e-3f * u(rng), 1.f}, {}, Group::Generic, World::kAutoId, 0.5f);
            wantAtLeast = 301 * 300 / 2;
        } else if (kind == "zeroRadiusInside") { // radius-0 bodies inside big ones touch them
            for (int i = 0; i < 100; ++i)
                w.addBody({10.f * u(rng), 10.f * u(rng), 10.f * u(rng), 1.f}, {}, Group::Generic, World::kAutoId,
                          i % 10 == 0 ? 2.f : 0.f);
            w.addBody(w.positions()[0], {}); // radius 0, at the centre of body 0
            wantAtLeast = 1;
        } else if (kind == "hugeExtent") { // tiny radii over 1e6: the grid is capped
            for (int i = 0; i < 500; ++i)
                w.addBody({1e6f * u(rng), 1e6f * u(rng), 1e6f * u(rng), 1.f}, {}, Group::Generic, World::kAutoId, 1e-3f);
            for (int i = 0; i < 20; ++i) { // touching pairs among them
                const Float4 p = w.positions()[std::size_t(i)];
                w.addBody({p.x, p.y, p.z, 1.f}, {}, Group::Generic, World::kAutoId, 1e-3f);
            }
            wantAtLeast = 20;
        } else if (kind == "randomCube") { // random radii, some 0, in a cube: many pairs of all kinds
            std::uniform_real_distribution<float> r(0.f, 0.08f);
            for (int i = 0; i < 3001; ++i)
                w.addBody({u(rng), u(rng), u(rng), 1.f}, {}, Group::Generic, World::kAutoId, i % 7 ? r(rng) : 0.f);
            wantAtLeast = 100;
        } else if (kind == "boundary") { // pairs at d just below and above r_i + r_j, on a lattice of cell edges
            for (int i = 0; i < 200; ++i) {
                const float x = float(i) * 0.5f;
                w.addBody({x, 0.f, 0.f, 1.f}, {}, Group::Generic, World::kAutoId, 0.25f);
                w.addBody({std::nextafter(x + 0.5f, 0.f), 1.f, 0.f, 1.f}, {}, Group::Generic, World::kAutoId, 0.25f);
            }
            wantAtLeast = 1;
        } else if (kind == "nonFinite") { // a body at infinity touches nothing; the others still do
            w.addBody({0, 0, 0, 1}, {}, Group::Generic, World::kAutoId, 1.f);
            w.addBody({0.5f, 0, 0, 1}, {}, Group::Generic, World::kAutoId, 1.f);
            w.addBody({0, 0, 0, 1}, {}, Group::Generic, World::kAutoId, 1.f);
            w.positions()[2].x = INFINITY;
            wantAtLeast = 1;
        }
        const std::vector<ContactPair> pairs = search("cpu-pairs", w), cells = search("cpu-cells", w);
        QVERIFY(cells == pairs);
        QVERIFY(pairs.size() >= wantAtLeast);
        if (kind == "radius0" || kind == "empty")
            QVERIFY(pairs.empty());
    }

    void searchesRefuseBadInput()
    {
        ContactSearchArgs a;
        a.n = 3;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, findContactsCpuCells(a));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, findContactsCpuPairs(a));
        const Float4 p[2] = {{0, 0, 0, 1}, {0, 0, 0, 1}};
        const float r[2] = {1.f, -1.f};
        a.position = p;
        a.radius = r;
        a.n = 2;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, findContactsCpuCells(a));
        QVERIFY(findContactSearch("cpu-cells") && findContactSearch("cpu-pairs"));
    }

    // ---- merging ----
    void headOnMergeConserves()
    {
        // The system function alone, on a touching pair with awkward values.
        World w;
        w.addBody({0.1f, -0.3f, 7.f, 0.7f}, {1.1f, -2.3f, 0.3f, 0.f}, Group::Star, World::kAutoId, 0.3f);
        w.addBody({0.2f, -0.2f, 7.1f, 2.9f}, {-0.7f, 0.4f, -0.9f, 0.f}, Group::Gas, World::kAutoId, 0.2f);
        const Float4 p0 = w.positions()[0], p1 = w.positions()[1], v0 = w.velocities()[0], v1 = w.velocities()[1];
        const std::vector<ContactPair> pairs = search("cpu-pairs", w);
        QCOMPARE(pairs.size(), std::size_t(1));
        const std::vector<MergeRecord> rec = mergeContacts(w, pairs, 1.0, 1e-4);
        QCOMPARE(rec.size(), std::size_t(1));
        QCOMPARE(w.size(), std::size_t(1));
        QCOMPARE(rec[0].survivorId, 0u);
        QCOMPARE(rec[0].absorbedId, 1u);
        QCOMPARE(w.groups()[0], Group::Star); // the survivor keeps its group and id
        const double m0 = p0.w, m1 = p1.w, m = m0 + m1;
        const Float4 p = w.positions()[0], v = w.velocities()[0];
        // Mass: one rounding of the exact sum to fp32, |M_f − M| ≤ u M.
        checkWithin("mass", p.w, m, kU * m);
        // Momentum and centre of mass, per component: the fp64 weighted mean has an error of at
        // most 3 fp64 roundings of Σ m|v| / M; rounding it and M to fp32 adds (2u + u²)|P|, so
        // |M_f v_f − P| ≤ (2u + u²)|P| + 3.01 · 2^-53 Σ m|v| (the same for m x).
        const double pw[3][2] = {{v0.x, v1.x}, {v0.y, v1.y}, {v0.z, v1.z}};
        const double xw[3][2] = {{p0.x, p1.x}, {p0.y, p1.y}, {p0.z, p1.z}};
        const double vf[3] = {v.x, v.y, v.z}, xf[3] = {p.x, p.y, p.z};
        for (int c = 0; c < 3; ++c) {
            const double P = m0 * pw[c][0] + m1 * pw[c][1];
            checkWithin("momentum", double(p.w) * vf[c], P,
                        (2 * kU + kU * kU) * std::fabs(P) + 3.01 * kU64 * (m0 * std::fabs(pw[c][0]) + m1 * std::fabs(pw[c][1])));
            const double X = m0 * xw[c][0] + m1 * xw[c][1];
            checkWithin("mass moment", double(p.w) * xf[c], X,
                        (2 * kU + kU * kU) * std::fabs(X) + 3.01 * kU64 * (m0 * std::fabs(xw[c][0]) + m1 * std::fabs(xw[c][1])));
        }
        // Radius: volume conserved, cbrt(0.3³ + 0.2³) rounded once.
        const double r = std::cbrt(0.3 * 0.3 * 0.3 + 0.2 * 0.2 * 0.2);
        checkWithin("radius", w.radii()[0], r, 2 * kU * r); // the inputs are fp32 0.3f, 0.2f: u each
        // Kinetic energy of the relative motion: ½ μ |v0 − v1|².
        const double dv2 = std::pow(double(v0.x) - v1.x, 2) + std::pow(double(v0.y) - v1.y, 2) + std::pow(double(v0.z) - v1.z, 2);
        checkWithin("energy lost", rec[0].energyLost, 0.5 * m0 * m1 / m * dv2, 1e-14 * dv2);
    }

    void headOnMergesOnceInSimulation_data()
    {
        // The host states (fp32, fp64) and the device states of the three layouts (Float4,
        // Float3, Double4): GPU rows skip without a device and run in scripts/gpu-check.sh.
        QTest::addColumn<QString>("kernel");
        QTest::newRow("cpu") << "cpu";
        QTest::newRow("reference (fp64 state)") << "reference";
        QTest::newRow("tiled (device, float4)") << "tiled";
        QTest::newRow("reduction2d-float3 (device, float3)") << "reduction2d-float3";
        QTest::newRow("tiled-fp64 (device, double4)") << "tiled-fp64";
    }
    void headOnMergesOnceInSimulation()
    {
        QFETCH(QString, kernel);
        if (const QString why = unavailable(kernel); !why.isEmpty())
            QSKIP(qPrintable(why)); // QSKIP returns from the test function: not in a helper
        SimParams p;
        p.dt = 0.005f;
        p.eps2 = 1e-4f;
        p.collisions = true;
        const World w0 = twoBodyCourse();
        Simulation sim(w0, p, kernel.toStdString());
        const Diagnostics d0 = sim.measure();
        sim.step(800); // contact after about 1.6 time units; 4 time units in all
        QCOMPARE(sim.size(), std::size_t(1));
        QCOMPARE(sim.mergeLog().size(), std::size_t(1)); // once, and never again
        const MergeRecord& r = sim.mergeLog()[0];
        QCOMPARE(r.survivorId, 0u);
        QCOMPARE(r.absorbedId, 1u);
        QVERIFY(r.step > 100 && r.step < 800);
        QCOMPARE(r.time, double(r.step) * double(p.dt));
        const World& w = sim.world();
        QCOMPARE(w.positions()[0].w, 4.f); // 1 + 3, exact
        // Momentum: the leapfrog's kicks conserve it to rounding (antisymmetric pair forces), and
        // the merge to (2u + u²)|P|; over ~800 steps of 4 roundings each of velocities of at
        // most |v|max ≈ 10, |ΔP| ≤ 800 · 4 · u · Σ m |v|max ≈ 8e-3 in the worst case. The run
        // stays far below that (errors of random sign): asserted at 1e-4 of Σ m |v0| = 1.5.
        const Diagnostics d1 = sim.measure();
        checkWithin("momentum", d1.momentum.x, d0.momentum.x, 1e-4 * 1.5);
        // The survivor moves with the centre-of-mass velocity P / M = −0.075.
        checkWithin("velocity", w.velocities()[0].x, -0.3 / 4.0, 1e-4);
        checkWithin("radius", w.radii()[0], std::cbrt(2.0) * 0.05, 4 * kU * 0.063);
        QCOMPARE(d1.energyLost, sim.energyLost());
        QVERIFY(d1.energyLost != 0);
    }

    void mergingRunOnEachKernel_data() { headOnMergesOnceInSimulation_data(); }
    void mergingRunOnEachKernel()
    {
        // A merging cluster collision on each state: merges happen, every body is accounted for
        // (N + merges = N0), mass is conserved to the rounding of the merges (N0 · 2^-24 relative
        // for the fp32 columns; each merge rounds M once), the state stays valid, and
        // E + energyLost stays near E0 (1e-2: merges of close pairs at dt = 0.01 with softening
        // 0.05 are a violent system; the fp64 accounting itself is exact, energyAccountingIsExact).
        QFETCH(QString, kernel);
        if (const QString why = unavailable(kernel); !why.isEmpty())
            QSKIP(qPrintable(why)); // QSKIP returns from the test function: not in a helper
        // N = 255: below the host loops' OpenMP threshold (Parallel.h), so the CPU rows stay quick on
        // a loaded machine; not a multiple of any block size.
        ScenarioSpec spec = scenarioSpec("cluster-collision", 255, 4);
        spec.args = {{"separation", 3.0}, {"density", 30.0}};
        const BuiltScenario b = buildScenario(spec);
        SimParams p = b.params;
        p.diagnosticsInterval = 50;
        Simulation sim(b.bodies.world, p, kernel.toStdString());
        double m0 = 0;
        for (const Float4& x : b.bodies.world.positions())
            m0 += x.w;
        sim.step(150);
        const World& w = sim.world();
        QVERIFY(w.validate().empty());
        QVERIFY(!sim.mergeLog().empty());
        QCOMPARE(w.size() + sim.mergeLog().size(), std::size_t(255));
        double m = 0;
        for (const Float4& x : w.positions())
            m += x.w;
        checkWithin("mass", m, m0, 255 * kU * m0);
        const Diagnostics d = sim.measure();
        QVERIFY2(std::fabs(d.energyChange) < 1e-2, qPrintable(QString::number(d.energyChange)));
        QCOMPARE(w.radii().size(), w.size());
    }

    void mergeChains_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::newRow("A-B, B-C") << "chain";
        QTest::newRow("triangle") << "triangle";
        QTest::newRow("into a lower survivor") << "lower";
    }
    void mergeChains()
    {
        QFETCH(QString, kind);
        World w;
        for (int i = 0; i < 6; ++i)
            w.addBody({float(i), 0.f, 0.f, float(i + 1)}, {0.f, float(i), 0.f, 0.f}, Group::Generic, World::kAutoId, 0.1f);
        std::vector<ContactPair> pairs;
        std::vector<std::pair<std::uint32_t, std::uint32_t>> want; // (survivor, absorbed) ids
        std::vector<std::uint32_t> members;
        if (kind == "chain") {
            pairs = {{0, 1}, {1, 2}};
            want = {{0, 1}, {0, 2}};
            members = {0, 1, 2};
        } else if (kind == "triangle") {
            pairs = {{0, 1}, {0, 2}, {1, 2}};
            want = {{0, 1}, {0, 2}}; // (1, 2) is already one body
            members = {0, 1, 2};
        } else {
            pairs = {{1, 5}, {2, 5}, {3, 4}};
            want = {{1, 5}, {1, 2}, {3, 4}}; // 5 went into 1, so (2, 5) merges 2 into 1
            members = {1, 2, 5};
        }
        double m = 0, px = 0, py = 0;
        for (const std::uint32_t i : members) {
            m += w.positions()[i].w;
            px += double(w.positions()[i].w) * w.positions()[i].x;
            py += double(w.positions()[i].w) * w.velocities()[i].y;
        }
        const std::vector<MergeRecord> rec = mergeContacts(w, pairs, 1.0, 0.0);
        QCOMPARE(rec.size(), want.size());
        for (std::size_t k = 0; k < want.size(); ++k) {
            QCOMPARE(rec[k].survivorId, want[k].first);
            QCOMPARE(rec[k].absorbedId, want[k].second);
        }
        QCOMPARE(w.size(), std::size_t(6 - want.size()));
        const std::size_t s = std::size_t(std::find(w.ids().begin(), w.ids().end(), members[0]) - w.ids().begin());
        QVERIFY(s < w.size());
        // Chained merges round after each merge: (k merges) · (2u + u²) relative, + fp64 terms.
        checkWithin("chain mass", w.positions()[s].w, m, 2 * kU * m);
        checkWithin("chain mass moment", double(w.positions()[s].w) * w.positions()[s].x, px, 6 * kU * std::fabs(px) + 1e-12);
        checkWithin("chain momentum", double(w.positions()[s].w) * w.velocities()[s].y, py, 6 * kU * std::fabs(py) + 1e-12);
        checkWithin("chain radius", w.radii()[s], std::cbrt(3 * 0.001), 4 * kU * 0.15);
        // Bad pair lists are refused, the world unchanged.
        World copy = w;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, mergeContacts(copy, std::vector<ContactPair>{{1, 0}}, 1, 0));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 mergeContacts(copy, std::vector<ContactPair>{{0, 2}, {0, 1}}, 1, 0));
        QCOMPARE(copy.size(), w.size());
    }

    void energyAccountingIsExact()
    {
        // E_after − E_before of the whole system equals Σ energyChange, with many merges and
        // chains among 200 bodies (the terms with the other bodies included). Both diagnostics
        // evaluations and the merge's sums are fp64: each pair term rounds with a few 2^-53 and
        // the sums accumulate at most N · 2^-53 of Σ |terms|, so the difference is bounded by
        // 3 (N + 8) · 2^-53 · (K + |W|).
        World w;
        std::mt19937 rng(5);
        std::uniform_real_distribution<float> u(-1.f, 1.f), mass(0.5f, 2.f), r(0.f, 0.2f);
        for (int i = 0; i < 200; ++i)
            w.addBody({u(rng), u(rng), u(rng), mass(rng)}, {u(rng), u(rng), u(rng), 0.f}, Group::Generic,
                      World::kAutoId, r(rng));
        const double G = 1.3, eps2 = 1e-3;
        const Diagnostics before = measureDiagnostics(w, G, eps2);
        const std::vector<ContactPair> pairs = search("cpu-cells", w);
        QVERIFY(pairs.size() > 20);
        const std::vector<MergeRecord> rec = mergeContacts(w, pairs, G, eps2);
        QVERIFY(rec.size() > 20);
        const Diagnostics after = measureDiagnostics(w, G, eps2);
        double change = 0, kineticLost = 0;
        for (const MergeRecord& m : rec) {
            change += m.energyChange;
            kineticLost += m.energyLost;
        }
        const double bound = 3 * (200 + 8) * kU64 * (before.kinetic + std::fabs(before.potential));
        checkWithin("E_after - E_before", after.total - before.total, change, bound);
        // The accounting is not the kinetic part alone: the potential change is far above the bound.
        QVERIFY(std::fabs(change + kineticLost) > 1e6 * bound);
        checkWithin("mass", after.mass, before.mass, 200 * kU * before.mass);
    }

    void energyPlusLostConservedInSlowMerge()
    {
        // Two unit masses falling together from rest (d = 0.3, radii 0.1: contact at 0.2) and a
        // third far away. E + energyLost stays at E0 within the integrator's error: leapfrog's
        // energy error is O((dt / t_dyn)²) ≈ (1e-4 / 0.12)² ≈ 7e-7 relative, and fp32 positions
        // at this scale add ~1e-7 relative per step (a random walk: ~3e-6 over the ~1000 steps to
        // contact); asserted at 1e-4. Without the accounting the change is O(1): the pair's
        // mutual potential (−5 at contact) disappears with it.
        World w;
        w.addBody({-0.15f, 0.f, 0.f, 1.f}, {}, Group::Generic, World::kAutoId, 0.1f);
        w.addBody({0.15f, 0.f, 0.f, 1.f}, {}, Group::Generic, World::kAutoId, 0.1f);
        w.addBody({0.f, 5.f, 0.f, 0.5f}, {}, Group::Generic, World::kAutoId, 0.01f);
        SimParams p;
        p.dt = 1e-4f;
        p.eps2 = 0.f;
        p.collisions = true;
        p.diagnosticsInterval = 100;
        Simulation sim(w, p, "cpu");
        sim.step(2000);
        QCOMPARE(sim.mergeLog().size(), std::size_t(1));
        const Diagnostics& e0 = *sim.initialDiagnostics();
        const Diagnostics e1 = sim.measure();
        QVERIFY2(std::fabs(e1.energyChange) < 1e-4, qPrintable(QString::number(e1.energyChange)));
        QVERIFY(std::fabs(e1.total - e0.total) > 0.5 * std::fabs(e0.total));
        checkWithin("accounted", e1.total + e1.energyLost, e0.total, 1e-4 * std::fabs(e0.total));
    }

    void deterministicAcrossThreads()
    {
        // A merging cluster collision gives the same bits and the same merges on 1 and 2 threads.
        ScenarioSpec spec = scenarioSpec("cluster-collision", 333);
        spec.args = {{"separation", 3.0}, {"density", 30.0}}; // the clusters overlap within the run
        const BuiltScenario b = buildScenario(spec);
        QVERIFY(b.params.collisions);
        auto run = [&](int threads) {
            const int was = omp_get_max_threads();
            omp_set_num_threads(threads);
            SimParams p = b.params;
            p.dt = 0.02f;
            Simulation sim(b.bodies.world, p, "cpu");
            sim.step(150);
            omp_set_num_threads(was);
            return std::make_pair(sim.world(), sim.mergeLog());
        };
        const auto [w1, log1] = run(1);
        const auto [w2, log2] = run(2);
        QVERIFY(!log1.empty());
        QCOMPARE(log1.size(), log2.size());
        for (std::size_t k = 0; k < log1.size(); ++k) {
            QCOMPARE(log1[k].survivorId, log2[k].survivorId);
            QCOMPARE(log1[k].absorbedId, log2[k].absorbedId);
            QCOMPARE(log1[k].step, log2[k].step);
        }
        QCOMPARE(w1.size(), w2.size());
        QVERIFY(std::memcmp(w1.positions().data(), w2.positions().data(), w1.size() * sizeof(Float4)) == 0);
        QVERIFY(std::memcmp(w1.velocities().data(), w2.velocities().data(), w1.size() * sizeof(Float4)) == 0);
        QCOMPARE(w1.radii(), w2.radii());
        QCOMPARE(w1.ids(), w2.ids());
    }

    void searchRowsGiveTheSameRun()
    {
        // The same run with each CPU search row: identical merges and state.
        World w;
        (void)makeChain(w, 300, 3);
        for (std::size_t i = 0; i < w.size(); ++i)
            w.velocities()[i] = {float(i % 5) * 0.01f, 0.f, 0.f, 0.f};
        // Spread them so that not everything merges in the first step.
        for (auto& x : w.positions())
            x = {x.x * 1.5f, x.y * 1.5f, x.z * 1.5f, x.w};
        std::vector<std::vector<std::uint32_t>> ids;
        for (const char* row : {"cpu-pairs", "cpu-cells"}) {
            SimParams p;
            p.dt = 1e-3f;
            p.collisions = true;
            p.contactSearch = row;
            Simulation sim(w, p, "cpu");
            QCOMPARE(std::string(sim.contactSearch().id), std::string(row));
            sim.step(30);
            ids.push_back(sim.world().ids());
        }
        QCOMPARE(ids[0], ids[1]);
        SimParams bad;
        bad.contactSearch = "no-such-search";
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, Simulation(w, bad, "cpu"));
    }

    void noCollisionsLeavesEverythingAlone()
    {
        // Collisions off (the default): touching bodies do not merge, and the run is bit for bit
        // the one before the collision system existed (same code path: nothing is searched).
        World w = twoBodyCourse();
        SimParams p;
        p.dt = 0.005f;
        Simulation sim(w, p, "cpu");
        sim.step(800);
        QCOMPARE(sim.size(), std::size_t(2));
        QVERIFY(sim.mergeLog().empty());
        QCOMPARE(sim.energyLost(), 0.0);
    }

    // ---- scenarios and the CLI ----
    void scenarioKeys()
    {
        const nlohmann::json doc = nlohmann::json::parse(R"({"collisions": true, "contactSearch": "cpu-cells",
            "radius": {"star": 0.125}, "bodies": {"generator": "galaxy-collision", "N": 64}})");
        const ScenarioSpec s = parseScenario(doc);
        const BuiltScenario b = buildScenario(s);
        QVERIFY(b.params.collisions);
        QCOMPARE(b.params.contactSearch, std::string("cpu-cells"));
        std::size_t stars = 0;
        for (std::size_t i = 0; i < b.bodies.world.size(); ++i) {
            const bool star = b.bodies.world.groups()[i] == Group::Star;
            stars += star;
            QCOMPARE(b.bodies.world.radii()[i], star ? 0.125f : 0.f);
        }
        QVERIFY(stars > 0);
        QCOMPARE(parseScenario(toJson(s)).radius, s.radius); // round trip
        const BuiltScenario d = buildScenario(parseScenario(nlohmann::json::parse(
            R"({"density": 2.0, "bodies": {"generator": "plummer", "N": 10}})")));
        QVERIFY(!d.params.collisions);
        QCOMPARE(double(d.bodies.world.radii()[3]), double(float(radiusFromDensity(d.bodies.world.positions()[3].w, 2.0))));
        for (const char* bad : {R"({"collisions": 1, "bodies": {"generator": "cube"}})",
                                R"({"contactSearch": "x", "bodies": {"generator": "cube"}})",
                                R"({"radius": -1, "bodies": {"generator": "cube"}})",
                                R"({"radius": {"stars": 1}, "bodies": {"generator": "cube"}})",
                                R"({"radius": 1, "density": 1, "bodies": {"generator": "cube"}})"})
            QVERIFY_THROWS_EXCEPTION(ScenarioError, parseScenario(nlohmann::json::parse(bad)));
    }

    void cliRunWithCollisions()
    {
        const nbody_test::CliResult r = nbody_test::runCli(
            {"run", "--scenario", "cluster-collision", "-n", "400", "--steps", "300", "--dt", "0.05", "-k", "cpu",
             "--collisions", "--contact-search", "cpu-cells"});
        QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
        const QRegularExpression merges(QStringLiteral("collisions: +(\\d+) merges \\(search cpu-cells\\), N 400 -> (\\d+)"));
        const QRegularExpressionMatch m = merges.match(r.out);
        QVERIFY2(m.hasMatch(), qPrintable(r.out));
        QVERIFY(m.captured(1).toInt() > 0);
        QCOMPARE(m.captured(2).toInt(), 400 - m.captured(1).toInt());
        QVERIFY(r.out.contains(QStringLiteral("energy lost to merges:")));

        const nbody_test::CliResult radius = nbody_test::runCli(
            {"run", "-n", "200", "--steps", "5", "-k", "cpu", "--collisions", "--radius", "2e4"});
        QVERIFY2(radius.code == 0, qPrintable(radius.out + radius.err));
        QVERIFY2(radius.out.contains(QStringLiteral("collisions: ")), qPrintable(radius.out));
        const nbody_test::CliResult bad = nbody_test::runCli({"run", "-n", "10", "--steps", "1", "--collisions",
                                                              "--contact-search", "nope"});
        QCOMPARE(bad.code, 2);
        QVERIFY(bad.err.contains(QStringLiteral("unknown contact search 'nope'")));
        const nbody_test::CliResult list = nbody_test::runCli({"kernels"});
        QVERIFY(list.out.contains(QStringLiteral("cpu-cells")) && list.out.contains(QStringLiteral("cpu-pairs")));
    }
};

QTEST_APPLESS_MAIN(TestCollisions)
#include "tst_collisions.moc"
