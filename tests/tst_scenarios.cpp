// The scenario registry, the models and scenario files: the Plummer sphere's virial ratio and
// half-mass radius against the model's values with tolerances derived from N, the disk galaxy
// and the collision's set-up, the Solar System at J2000, every row built and stepped, scenario
// files written and read back, and malformed files refused with the field named.
#include "sim/core/Diagnostics.h"
#include "sim/core/Integrators.h"
#include "sim/core/KernelRegistry.h"
#include "sim/core/MemoryBudget.h"
#include "sim/core/Models.h"
#include "sim/core/TreeCpu.h"
#include "sim/base/Parallel.h"
#include "sim/core/Scenario.h"
#include "sim/io/Scenarios.h"
#include "sim/core/Simulation.h"
#include "sim/io/Snapshot.h"
#include "sim/io/Tipsy.h"
#include "sim/base/ShortestText.h"

#include <QtTest>

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <system_error>
#include <tuple>
#include <numbers>
#include <cfloat>
#include <cstring>
#include <iterator>
#include <random>

#include <unistd.h>

using namespace nbody;

namespace {

constexpr double kPi = std::numbers::pi;

/// Simpson's rule on [lo, hi] with n (even) intervals.
template <class F>
double simpson(F f, double lo, double hi, int n = 4000)
{
    const double h = (hi - lo) / n;
    double s = f(lo) + f(hi);
    for (int i = 1; i < n; ++i)
        s += f(lo + i * h) * (i % 2 ? 4 : 2);
    return s * h / 3;
}

/// Kinetic and potential energy of the sampled Plummer model in Hénon units (G = M = 1, scale a),
/// when the mass fraction c is sampled: positions follow F(r) = M(r)/c with M(r) = r³/(r²+a²)^{3/2}
/// and velocities the full model's distribution function, whose mean square speed at r is
/// <v²> = −φ/2 = 1 / (2 sqrt(r² + a²)). With X = M(r) = sin³θ (so r = a tanθ):
///   K = ½ ∫ <v²> dF = (1 / 4ca) ∫_0^{θc} 3 sin²θ cos²θ dθ,
///   W = −∫ F(r) / r dF = −(1 / c² a) ∫_0^{θc} 3 sin⁴θ cos²θ dθ,   sin θc = c^{1/3}.
/// For c = 1: K = 3π/64a = 1/4 and W = −3π/32a = −1/2.
std::pair<double, double> plummerEnergies(double c)
{
    const double a = plummerScaleHenon(), top = std::asin(std::cbrt(c));
    auto sc = [](double t, int k) { return 3 * std::pow(std::sin(t), k) * std::pow(std::cos(t), 2); };
    const double K = simpson([&](double t) { return sc(t, 2); }, 0, top) / (4 * c * a);
    const double W = -simpson([&](double t) { return sc(t, 4); }, 0, top) / (c * c * a);
    return {K, W};
}

/// JSON written with single quotes in the tables below (moc does not read raw strings).
std::string js(const QString& singleQuoted)
{
    std::string t = singleQuoted.toStdString();
    std::replace(t.begin(), t.end(), '\'', '"');
    return t;
}

QString field(const std::function<void()>& f)
{
    try {
        f();
    } catch (const ScenarioError& e) {
        return QString::fromStdString(e.field()) + QStringLiteral(" | ") + QString::fromUtf8(e.what());
    }
    return QStringLiteral("<no error>");
}

} // namespace

class TestScenarios : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        // Systems of 3 to 6001 bodies: one thread does each O(N²) sum in well under a second, and
        // OpenMP's fork/join per step would cost more than the work for the small systems on a
        // loaded machine (spinning threads competing for the cores).
        omp_set_num_threads(1);
    }

    void workspaceEstimate()
    {
        // One estimate for every kernel's workspace: a CPU tree (TreeCpu.h: keys, order, sorted
        // positions, nodes, moments, cells, groups, the construction's scratch and the merge
        // sort's buffer), an fp64 row's state, the contact lists with collisions; hostBytesFor
        // adds the system's two Worlds.
        const KernelInfo* tree = findKernel("tree-cpu");
        const KernelInfo* fp64 = findKernel("reference");
        QVERIFY(tree && fp64);
        QVERIFY(kTreeHostBytesPerBody >= 2 * sizeof(HostTree::KeyIndex) + sizeof(std::uint64_t) + sizeof(Float4));
        const WorkspaceEstimate w = workspaceFor(1000000, tree, /*collisions*/ true);
        QCOMPARE(w.scratch, std::size_t(16000000));
        QCOMPARE(w.tree, 1000000 * kTreeHostBytesPerBody);
        QCOMPARE(w.contacts, 1000000 * kContactHostBytesPerBody);
        QCOMPARE(w.fp64, std::size_t(0));
        QCOMPARE(w.device, std::size_t(0)); // a CPU row
        QCOMPARE(w.hostBytes(), w.scratch + w.tree + w.contacts);
        QVERIFY2(w.describeHost().starts_with("the tree and its sort buffer "), w.describeHost().c_str());
        QCOMPARE(hostBytesFor(1000, tree), std::size_t(122000) + 1000 * kTreeHostBytesPerBody);
        QCOMPARE(workspaceFor(1000, fp64).fp64, std::size_t(192000));
        // Nothing to refuse for a small system.
        checkWorkspace(1000, *tree, SimParams{});
        // A worker thread reserves at least its arena (64 MiB) and a stack.
        QVERIFY(threadReserveBytes() > (std::size_t(64) << 20));
        // A thread that could not be created reads as memory, other system errors as they are.
        const std::string eagain = systemErrorMessage(std::system_error(std::make_error_code(std::errc::resource_unavailable_try_again)));
        QVERIFY2(eagain.starts_with("out of host memory: a thread could not be created ("), eagain.c_str());
        QCOMPARE(systemErrorMessage(std::system_error(std::make_error_code(std::errc::permission_denied), "x")),
                 std::string(std::system_error(std::make_error_code(std::errc::permission_denied), "x").what()));
    }

    void parallelErrorsRethrown()
    {
        // A std::bad_alloc on a worker thread of an OpenMP loop reaches the caller after the
        // region (it would otherwise end the process through std::terminate); once one failed,
        // the iterations not yet started are skipped.
        ParallelErrors errors;
        std::vector<int> ran(1000, 0);
#pragma omp parallel for num_threads(4) schedule(static, 1)
        for (int i = 0; i < 1000; ++i)
            errors.run([&] {
                if (i == 37)
                    throw std::bad_alloc();
                ran[std::size_t(i)] = 1;
            });
        QVERIFY(errors.failed());
        bool caught = false;
        try {
            errors.rethrow();
        } catch (const std::bad_alloc&) {
            caught = true;
        }
        QVERIFY(caught);
        QCOMPARE(ran[37], 0);
        QVERIFY(std::count(ran.begin(), ran.end(), 1) < 1000); // which others ran depends on the threads' timing
        ParallelErrors none;
        none.run([] {});
        none.rethrow(); // nothing kept: no throw
        QVERIFY(!none.failed());
    }

    void hostMemoryEstimate()
    {
        // Two Worlds (53 B a body: 3 Float4 + id + group) and the CPU kernels' fp32 SoA (16 B);
        // an fp64 kernel adds its state and a widened copy (2 x 96 B).
        QCOMPARE(kWorldBytesPerBody, std::size_t(53));
        QCOMPARE(kFp64StateBytesPerBody, std::size_t(96));
        QCOMPARE(hostBytesFor(1), std::size_t(122));
        QCOMPARE(hostBytesFor(std::size_t(1) << 28), std::size_t(122) << 28); // 32.7 GB
        const KernelInfo* fp32 = findKernel("cpu");
        const KernelInfo* fp64 = findKernel("reference");
        QVERIFY(fp32 && fp64);
        QCOMPARE(hostBytesFor(1000, fp32), std::size_t(122000));
        QCOMPARE(hostBytesFor(1000, fp64), std::size_t(122000 + 192000));
        QCOMPARE(hostBytesFor(std::numeric_limits<std::size_t>::max(), fp64), std::numeric_limits<std::size_t>::max());
        QCOMPARE(formatBytes(32749125632ull), std::string("32.7 GB"));
        QCOMPARE(formatBytes(512), std::string("512 bytes"));
        // This process has some memory available, and a small system passes the check.
        const MemoryAvailable a = availableHostMemory();
        QVERIFY(a.known() && a.bytes > 0);
        checkHostMemory(1000, fp64);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, checkHostMemory(std::numeric_limits<std::size_t>::max() / 64));
    }
    void derivedScaleProblems()
    {
        // Scales fp32 cannot hold: the derived dt / eps2 carry a problem naming the scale.
        for (const auto& [x, dtBad, eps2Bad] : {std::tuple{1e30f, true, true}, std::tuple{1e-30f, true, true},
                                                std::tuple{1.0f, false, false}}) {
            World w;
            w.addBody({0, 0, 0, 1}, {});
            w.addBody({x, 0, 0, 1}, {});
            const ScaleDefaults d = deriveScaleDefaults(w, 1.0);
            QCOMPARE(!d.dtProblem.empty(), dtBad);
            QCOMPARE(!d.eps2Problem.empty(), eps2Bad);
            if (dtBad)
                QVERIFY2(d.dtProblem.find("dt derived from the system's scale (R_rms") == 0 &&
                             d.dtProblem.find("outside fp32's range") != std::string::npos,
                         d.dtProblem.c_str());
        }
    }
    void henonUnits()
    {
        // The closed forms the tests below use: for the complete model in Hénon units K = 1/4,
        // W = −1/2 (E = −1/4, virial ratio 1) and r_h = a / sqrt(2^{2/3} − 1) = 0.7686.
        const auto [K, W] = plummerEnergies(1.0);
        QCOMPARE_LE(std::abs(K - 0.25), 1e-12);
        QCOMPARE_LE(std::abs(W + 0.5), 1e-12);
        QCOMPARE_LE(std::abs(plummerHalfMassRadius(1.0) - 0.76857), 1e-5);
    }

    void plummer_data()
    {
        QTest::addColumn<QString>("spectrum");
        QTest::addColumn<int>("bodies");
        QTest::addColumn<quint64>("seed");
        QTest::newRow("equal N=4099") << "equal" << 4099 << quint64(42);
        QTest::newRow("equal N=4099 seed 7") << "equal" << 4099 << quint64(7);
        QTest::newRow("salpeter N=6001") << "salpeter" << 6001 << quint64(3);
    }
    void plummer()
    {
        QFETCH(QString, spectrum);
        QFETCH(int, bodies);
        QFETCH(quint64, seed);
        PlummerParams p;
        p.bodies = std::size_t(bodies);
        p.seed = seed;
        p.massSpectrum = spectrum.toStdString();
        const ModelBodies b = makePlummer(p);
        QVERIFY(b.exact);
        const Fp64State& s = *b.exact;
        QCOMPARE(s.size(), std::size_t(bodies));
        const double a = plummerScaleHenon();

        // Total mass 1, centre of mass at rest at the origin.
        double M = 0, sumM2 = 0;
        Double3 P, X;
        for (std::size_t i = 0; i < s.size(); ++i) {
            const double m = s.position[i].w;
            M += m;
            sumM2 += m * m;
            P.x += m * s.velocity[i].x; P.y += m * s.velocity[i].y; P.z += m * s.velocity[i].z;
            X.x += m * s.position[i].x; X.y += m * s.position[i].y; X.z += m * s.position[i].z;
        }
        QCOMPARE_LE(std::abs(M - 1), 1e-12);
        QCOMPARE_LE(std::hypot(P.x, P.y, P.z), 1e-12);
        QCOMPARE_LE(std::hypot(X.x, X.y, X.z), 1e-12);

        // ---- virial ratio Q = 2K / |W| (Newtonian: ε² = 0) ----
        // Expected: the sampled model's Q from plummerEnergies (massCutoff 0.999: Q = 0.99903).
        // Both K and W carry the factor (1 − Σ m²) in expectation (the centre-of-mass velocity
        // removed from K; the pair sum over i ≠ j in W), so it cancels in Q.
        // Scatter (independent bodies): σ_K = sqrt(Σ m_i² (u_i − ū)²) with u = ½ v², and — W
        // being a U-statistic with kernel −m_i m_j / r_ij, whose projection is the potential —
        // σ_W = sqrt(Σ m_i² (φ_i − φ̄)²) with φ(r) = −1 / sqrt(r² + a²) (Hoeffding). Ignoring the
        // positive correlation of K and |W| (it shrinks the scatter of their ratio) σ_Q / Q =
        // sqrt((σ_K/K)² + (σ_W/W)²) ≈ 1.3 / sqrt(N) for equal masses; we allow 4 σ_Q.
        const Diagnostics d = measureDiagnostics(s, 0.0, 0, 1.0, 0.0);
        const double Q = 2 * d.kinetic / std::abs(d.potential);
        const auto [Kc, Wc] = plummerEnergies(p.massCutoff);
        const double Qexp = 2 * Kc / std::abs(Wc);
        double ubar = 0, phibar = 0;
        std::vector<double> u(s.size()), phi(s.size()), r(s.size());
        for (std::size_t i = 0; i < s.size(); ++i) {
            const Double4& x = s.position[i];
            const Double4& v = s.velocity[i];
            r[i] = std::sqrt(x.x * x.x + x.y * x.y + x.z * x.z);
            u[i] = 0.5 * (v.x * v.x + v.y * v.y + v.z * v.z);
            phi[i] = -1 / std::sqrt(r[i] * r[i] + a * a);
            ubar += x.w * u[i];
            phibar += x.w * phi[i];
        }
        double varK = 0, varW = 0, r2 = 0;
        for (std::size_t i = 0; i < s.size(); ++i) {
            const double m2 = s.position[i].w * s.position[i].w;
            varK += m2 * (u[i] - ubar) * (u[i] - ubar);
            varW += m2 * (phi[i] - phibar) * (phi[i] - phibar);
            r2 += m2 * r[i] * r[i];
        }
        const double sigmaQ = Qexp * std::sqrt(varK / (d.kinetic * d.kinetic) + varW / (d.potential * d.potential));
        qInfo("N = %d (%s): Q = %.5f, expected %.5f, 4 sigma = %.4f; K = %.5f, W = %.5f, E = %.5f", bodies,
              qPrintable(spectrum), Q, Qexp, 4 * sigmaQ, d.kinetic, d.potential, d.total);
        QCOMPARE_LE(std::abs(Q - Qexp), 4 * sigmaQ);
        // The energy is Hénon's −1/4 within the same scatter (E = K + W, each within 4 σ).
        QCOMPARE_LE(std::abs(d.total - (Kc + Wc) * (1 - sumM2)), 4 * (std::sqrt(varK) + std::sqrt(varW)));

        // ---- half-mass radius ----
        // Expected: the radius holding half of the sampled mass, plummerHalfMassRadius(c).
        // Scatter: the mass inside the model's r_h is a sum of independent terms with variance
        // ¼ Σ m² (binomial), so r_h scatters by σ_r = ½ sqrt(Σ m²) / F'(r_h), with
        // F'(r) = 3 a² r² / (r² + a²)^{5/2} / c. The centre of mass, about which the radii are
        // measured, is off the model's centre by δ with E|δ|² = Σ m² r²; such a shift moves the
        // radii by −δ·r̂ (averaging out over the shell) + |δ|²/(2r)(1 − cos²), on average
        // |δ|²/(3r); we allow |δ|² up to 5 E|δ|² (χ² with 3 degrees of freedom: 99.8 %).
        std::vector<std::size_t> order(s.size());
        for (std::size_t i = 0; i < order.size(); ++i)
            order[i] = i;
        std::sort(order.begin(), order.end(), [&](std::size_t i, std::size_t j) { return r[i] < r[j]; });
        double inside = 0, rh = 0;
        for (std::size_t i : order) {
            inside += s.position[i].w;
            if (inside >= 0.5) {
                rh = r[i];
                break;
            }
        }
        const double rhExp = plummerHalfMassRadius(p.massCutoff);
        const double dF = 3 * a * a * rhExp * rhExp / std::pow(rhExp * rhExp + a * a, 2.5) / p.massCutoff;
        const double sigmaR = 0.5 * std::sqrt(sumM2) / dF;
        const double shift = 5 * r2 / (3 * rhExp);
        qInfo("half-mass radius %.4f, expected %.4f, tolerance 4 sigma %.4f + centre %.4f", rh, rhExp, 4 * sigmaR,
              shift);
        QCOMPARE_LE(std::abs(rh - rhExp), 4 * sigmaR + shift);

        if (spectrum == QLatin1String("salpeter")) {
            // Masses between m_min and 100 m_min (massRatio), dN/dm ∝ m^{-2.35}: the mean mass is
            // m_min (1.35/0.35) (1 − R^{-0.35}) / (1 − R^{-1.35}) = 3.22 m_min for R = 100, so
            // m_min = 1 / (3.22 N); the sampled mean has relative scatter (std/mean of the
            // distribution, 1.47) / sqrt(N) = 1.9 %, we allow 4 σ.
            const auto [lo, hi] = b.world.massRange();
            QVERIFY(hi / lo <= 100.0001f);
            QVERIFY(hi / lo > 20); // 6001 draws reach far into the tail (P(m > 20 m_min) = 11 %)
            const double mMin = 1.0 / (3.2198 * bodies);
            QCOMPARE_LE(std::abs(lo / mMin - 1), 4 * 0.019 + 1e-3);
        }
    }

    void plummerIsDeterministic()
    {
        PlummerParams p;
        p.bodies = 333;
        const ModelBodies a = makePlummer(p), b = makePlummer(p);
        QVERIFY(std::equal(a.exact->position.begin(), a.exact->position.end(), b.exact->position.begin(),
                           [](const Double4& x, const Double4& y) { return x.x == y.x && x.y == y.y && x.w == y.w; }));
        p.seed = 43;
        const ModelBodies c = makePlummer(p);
        QVERIFY(c.exact->position[0].x != a.exact->position[0].x);
    }

    void diskGalaxy()
    {
        // A disk galaxy in equilibrium rotates: the disk's (Star) mean azimuthal speed follows
        // the circular speed less the asymmetric drift, and the whole is near virial equilibrium.
        // Q = 2K/|W| scatters as ≈ 1.3 / sqrt(N) (as for the Plummer sphere): 4 σ = 0.095 for
        // N = 3001; the model's approximations (the disk counted as spherical in the halo's Jeans
        // equation, the epicyclic dispersions, the asymmetric drift) shift it by a few per cent.
        // We allow 0.125.
        DiskGalaxyParams p;
        p.bodies = 3001;
        const ModelBodies b = makeDiskGalaxy(p);
        const World& w = b.world;
        std::size_t nDisk = 0;
        double lz = 0, diskMass = 0, maxAbsZ = 0;
        for (std::size_t i = 0; i < w.size(); ++i) {
            if (w.groups()[i] != Group::Star)
                continue;
            ++nDisk;
            const Double4& x = b.exact->position[i];
            const Double4& v = b.exact->velocity[i];
            lz += x.w * (x.x * v.y - x.y * v.x) / std::max(std::hypot(x.x, x.y), 1e-9);
            diskMass += x.w;
            maxAbsZ = std::max(maxAbsZ, std::abs(x.z));
        }
        QCOMPARE(nDisk, std::size_t(1501)); // diskFraction 0.5 of 3001, rounded half away from 0
        QCOMPARE_LE(std::abs(diskMass - 1), 1e-12);
        const double meanVphi = lz / diskMass;
        qInfo("disk: mean v_phi = %.3f; max |z| = %.3f", meanVphi, maxAbsZ);
        // v_c at 2 Rd: disk (Freeman) 0.62 and halo sqrt(5 · 4 / 13^{3/2}) = 0.97 in quadrature:
        // 1.15; the mass-weighted mean over the disk lies between 0.5 and 1.3 of that.
        QVERIFY(meanVphi > 0.5 && meanVphi < 1.5);
        const Diagnostics d = measureDiagnostics(*b.exact, 0, 0, 1.0, 0.0);
        const double Q = 2 * d.kinetic / std::abs(d.potential);
        qInfo("disk galaxy: Q = %.4f", Q);
        QCOMPARE_LE(std::abs(Q - 1), 0.125);
    }

    void galaxyCollision()
    {
        // Two galaxies of mass 6 each on a parabola: their centres start 30 apart with relative
        // speed sqrt(2 G M / r) = sqrt(2 · 12 / 30) = 0.894 (parabolic: E = 0), and the
        // relative orbit's angular momentum gives the pericentre 6: h² = 2 G M r_p.
        GalaxyCollisionParams p;
        p.galaxy.bodies = 2001;
        const ModelBodies b = makeGalaxyCollision(p);
        QCOMPARE(b.world.size(), std::size_t(2001));
        const std::size_t n1 = 1000;
        auto centre = [&](std::size_t from, std::size_t to) {
            double m = 0;
            Double4 x{}, v{};
            for (std::size_t i = from; i < to; ++i) {
                const Double4& px = b.exact->position[i];
                const Double4& pv = b.exact->velocity[i];
                m += px.w;
                x.x += px.w * px.x; x.y += px.w * px.y; x.z += px.w * px.z;
                v.x += px.w * pv.x; v.y += px.w * pv.y; v.z += px.w * pv.z;
            }
            return std::tuple{m, Double4{x.x / m, x.y / m, x.z / m, 0}, Double4{v.x / m, v.y / m, v.z / m, 0}};
        };
        const auto [m1, x1, v1] = centre(0, n1);
        const auto [m2, x2, v2] = centre(n1, b.world.size());
        QCOMPARE_LE(std::abs(m1 - 6), 1e-12);
        QCOMPARE_LE(std::abs(m2 - 6), 1e-12);
        const double rx = x2.x - x1.x, ry = x2.y - x1.y, rz = x2.z - x1.z;
        const double ux = v2.x - v1.x, uy = v2.y - v1.y, uz = v2.z - v1.z;
        const double r = std::sqrt(rx * rx + ry * ry + rz * rz), u2 = ux * ux + uy * uy + uz * uz;
        const double h = std::abs(rx * uy - ry * ux);
        qInfo("separation %.6f, relative speed^2 %.6f (parabolic %.6f), h^2 %.6f (2 G M r_p = %.1f)", r, u2,
              2 * 12 / 30.0, h * h, 2 * 12 * 6.0);
        QCOMPARE_LE(std::abs(r - 30), 1e-9);
        QCOMPARE_LE(std::abs(u2 - 2 * 12 / 30.0), 1e-9);
        QCOMPARE_LE(std::abs(h * h - 144), 1e-9);
        QCOMPARE_LE(std::abs(rz) + std::abs(uz), 1e-9);
        QVERIFY(rx * ux + ry * uy < 0); // approaching
    }

    /// The sparse names component (the view labels named bodies): names
    /// follow their bodies through removals and new ids, and the Solar System names its bodies.
    void worldNames()
    {
        World w;
        for (int i = 0; i < 5; ++i)
            w.addBody({float(i), 0, 0, 1}, {});
        QVERIFY(!w.hasNames());
        QVERIFY(w.namedBodies().empty());
        w.setName(1, "one");
        w.setName(3, "three");
        QVERIFY(w.hasNames());
        QCOMPARE(w.name(1), std::string("one"));
        QCOMPARE(w.name(0), std::string());
        QCOMPARE(w.name(99), std::string());
        bool thrown = false;
        try {
            w.setName(5, "five");
        } catch (const std::out_of_range& e) {
            thrown = std::string(e.what()).find("index 5 of 5") != std::string::npos;
        }
        QVERIFY(thrown);
        QCOMPARE(w.removeBodies({0, 1}), std::size_t(2)); // "one" goes, "three" is body 1 now
        QCOMPARE(w.namedBodies().size(), std::size_t(1));
        QCOMPARE(w.namedBodies().front().first, BodyIndex(1));
        QCOMPARE(w.name(1), std::string("three"));
        w.setIds({70, 71, 72});
        QCOMPARE(w.name(1), std::string("three"));
        w.setName(1, "");
        QVERIFY(!w.hasNames());
        w.setName(0, "x");
        w.clear();
        QVERIFY(!w.hasNames());
        const ModelBodies solar = makeSolarSystem();
        const auto named = solar.world.namedBodies();
        QCOMPARE(named.size(), std::size_t(10));
        QCOMPARE(named.front().second, std::string("Sun"));
        QCOMPARE(named.at(3).second, std::string("Earth-Moon"));
        QCOMPARE(named.back().second, std::string("Pluto"));
        const BuiltScenario built = buildScenario(scenarioSpec("solar-system")); // through the registry
        QCOMPARE(built.bodies.world.name(5), std::string("Jupiter"));
    }

    void solarSystem()
    {
        const ModelBodies b = makeSolarSystem();
        QCOMPARE(b.world.size(), std::size_t(10));
        QCOMPARE(solarSystemNames().size(), std::size_t(10));
        QCOMPARE(solarSystemNames()[3], std::string("Earth-Moon"));
        const Fp64State& s = *b.exact;
        // Total mass: 1 + Σ 1/ratio = 1.0013 (Jupiter alone 9.5e-4).
        double M = 0;
        for (const Double4& x : s.position)
            M += x.w;
        QCOMPARE_LE(std::abs(M - 1.0013418), 1e-6);
        // The Earth–Moon barycentre at J2000 is three days before perihelion: its distance from
        // the Sun is 0.98333 AU (the Sun's geocentric distance on 2000 January 1.5, Astronomical
        // Almanac), the barycentre being within 3e-5 AU of the Earth. Standish's mean elements
        // are good to about 1e-4 relative for the inner planets (his Table 2a: tens of
        // arcseconds), so we allow 2e-4 AU. Jupiter, which we have no independent distance for,
        // must lie between its perihelion and aphelion distances a (1 ∓ e) = 4.951 … 5.455 AU.
        auto helio = [&](int i) {
            const Double4& p = s.position[std::size_t(i)];
            const Double4& sun = s.position[0];
            return std::sqrt((p.x - sun.x) * (p.x - sun.x) + (p.y - sun.y) * (p.y - sun.y) + (p.z - sun.z) * (p.z - sun.z));
        };
        qInfo("heliocentric distances: Earth-Moon %.6f AU, Jupiter %.5f AU", helio(3), helio(5));
        QCOMPARE_LE(std::abs(helio(3) - 0.98333), 2e-4);
        QVERIFY(helio(5) > 5.202887 * (1 - 0.04838624) && helio(5) < 5.202887 * (1 + 0.04838624));

        // One sidereal year with the scenario's defaults (reference fp64 kernel, Yoshida, dt = 1
        // day): the Earth–Moon barycentre returns near its heliocentric start. Perturbations by
        // the other planets displace it by ≲ 1e-4 AU in a year (Venus's pull is 3e-5 of the
        // Sun's at conjunction; Jupiter's tide 7e-6), and the integrator's error at dt = 1 day
        // (Ω dt = 0.017 rad: (Ω dt)⁴ = 9e-8 of the orbit) is far below. The year
        // (365.256363 days) is not a whole number of steps: we stop at 365 days and compare with
        // the position 0.256 days earlier on the unperturbed orbit, |v| · 0.256 d = 4.4e-3 AU,
        // within its curvature error (v² / r) · t² / 2 = 5.7e-6 AU. Total allowance 5e-4 AU.
        const BuiltScenario built = buildScenario(scenarioSpec("solar-system"));
        QCOMPARE(built.params.G, kGaussG);
        QCOMPARE(built.params.eps2, 0.f);
        QCOMPARE(built.kernel, std::string("reference"));
        QCOMPARE(built.params.integrator, std::string("yoshida4"));
        Simulation sim(built.bodies.world, built.bodies.exact, built.params, built.kernel);
        const Diagnostics e0 = sim.measure();
        // The simulation starts from the exact fp64 state, not from the fp32 world widened.
        QCOMPARE(e0.total, measureDiagnostics(s, 0, 0, kGaussG, 0).total);
        sim.step(365);
        const Fp64State now = widen(sim.world());
        const double tLeft = 365.256363 - 365.0;
        const Double4& v0 = s.velocity[3];
        const Double4& vs = s.velocity[0];
        const double ex = s.position[3].x - s.position[0].x - (v0.x - vs.x) * tLeft;
        const double ey = s.position[3].y - s.position[0].y - (v0.y - vs.y) * tLeft;
        const double gx = now.position[3].x - now.position[0].x, gy = now.position[3].y - now.position[0].y;
        const double err = std::hypot(gx - ex, gy - ey);
        const double de = relativeEnergyChange(e0, sim.measure());
        qInfo("after 365 days: Earth-Moon off its start by %.3g AU; |dE/E| = %.3g", err, std::abs(de));
        QCOMPARE_LE(err, 5e-4);
        QCOMPARE_LE(std::abs(de), 1e-9);
    }

    void everyRowBuildsAndSteps()
    {
        // Every registry row makes a valid system with parameters the simulation accepts, and a
        // few steps keep it finite. Small N (not multiples of block sizes) where N is free.
        for (const ScenarioInfo& row : scenarioRegistry()) {
            const std::optional<std::size_t> n =
                row.fixedBodies ? std::nullopt : std::optional<std::size_t>(row.id == "galaxy-collision" ? 998 : 517);
            const BuiltScenario b = buildScenario(scenarioSpec(row.id, n, 5));
            QCOMPARE(b.bodies.world.size(), n.value_or(row.defaultBodies));
            QVERIFY(findIntegrator(b.params.integrator));
            const std::string kernel = b.kernel.empty() ? "cpu" : b.kernel;
            Simulation sim(b.bodies.world, b.bodies.exact, b.params, kernel);
            sim.step(3);
            QVERIFY2(sim.checkFinite().empty(), std::string(row.id).c_str());
            QVERIFY(!b.summary.empty());
            QVERIFY(!row.units.empty() && !row.description.empty());
        }
        QVERIFY(findScenario("plummer"));
        QVERIFY(!findScenario("nope"));
        QCOMPARE(field([] { scenarioSpec("nope"); }).section(" | ", 0, 0), QStringLiteral("bodies.generator"));
    }

    /// Every writer's numbers are the shortest text that reads back to the same value
    /// (ShortestText.h): over 200 000 random fp32 and fp64 bit patterns (every exponent, both
    /// signs, subnormals) and the values users type, the text reads back bit for bit, and no
    /// text with one significant digit fewer does (checked against printf's %.*g).
    void shortestTextRoundTrip()
    {
        std::mt19937_64 rng(20261205);
        const auto check32 = [](float v) {
            const std::string t = shortestText(v);
            if (std::strtof(t.c_str(), nullptr) != v)
                return "fp32 " + t + " does not read back";
            int digits = 0;
            for (const char ch : t.substr(0, t.find_first_of("eE")))
                digits += std::isdigit(static_cast<unsigned char>(ch)) ? 1 : 0;
            char shorter[64];
            // Fewer significant digits never read back; a float's shortest text has at most 9
            // (FLT_DECIMAL_DIG), so d < 9 as well, which keeps "%.*g" within the buffer.
            for (int d = 1; d < std::min(digits - 1, FLT_DECIMAL_DIG); ++d) {
                std::snprintf(shorter, sizeof shorter, "%.*g", d, double(v));
                if (std::strtof(shorter, nullptr) == v && std::strlen(shorter) < t.size())
                    return "fp32 " + t + " is not the shortest: " + shorter;
            }
            return std::string();
        };
        const auto check64 = [](double v) {
            const std::string t = shortestText(v);
            if (std::strtod(t.c_str(), nullptr) != v)
                return "fp64 " + t + " does not read back";
            char shorter[64];
            std::snprintf(shorter, sizeof shorter, "%.15g", v); // 15 digits: when it reads back, no longer than it
            if (std::strtod(shorter, nullptr) == v && std::strlen(shorter) < t.size())
                return "fp64 " + t + " is longer than " + shorter;
            return std::string();
        };
        for (const float v : {0.01f, 0.1f, 0.002f, 0.45f, 1e-4f, 3.0034896e-6f, 1.0f / 128, 0.3f, 1e30f, 1e-38f,
                              1e-45f, -0.0f, 0.0f})
            QVERIFY2(check32(v).empty(), check32(v).c_str());
        QCOMPARE(shortestText(0.01f), std::string("0.01"));
        QCOMPARE(shortestText(0.002f), std::string("0.002"));
        QCOMPARE(shortestText(2.959122082855911e-4), std::string("0.0002959122082855911"));
        QCOMPARE(shortestAsDouble(0.01f), 0.01); // what JSON writers hold: written as 0.01
        QCOMPARE(float(shortestAsDouble(0.01f)), 0.01f);
        for (int i = 0; i < 100000; ++i) {
            const std::uint32_t bits32 = std::uint32_t(rng());
            float f;
            std::memcpy(&f, &bits32, 4);
            if (std::isfinite(f)) {
                const std::string why = check32(f);
                QVERIFY2(why.empty(), why.c_str());
            }
            const std::uint64_t bits64 = rng();
            double d;
            std::memcpy(&d, &bits64, 8);
            if (std::isfinite(d)) {
                const std::string why = check64(d);
                QVERIFY2(why.empty(), why.c_str());
            }
        }
    }

    /// A scenario file writes fp32 parameters as their shortest text: dt 0.01 as 0.01 (before:
    /// 0.009999999776482582, the fp64 widening of 0.01f), and they read back to the same fp32.
    void scenarioFileWritesShortestNumbers()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        ScenarioSpec s = scenarioSpec("plummer", 1000, 1);
        s.dt = 0.01f;
        s.eps2 = 0.0025f;
        s.G = 0.1;
        s.params = {{"openingAngle", "0.45"}};
        const std::string path = dir.filePath("s.json").toStdString();
        writeScenarioFile(path, s);
        std::ifstream in(path);
        const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        QVERIFY2(text.find("\"dt\": 0.01,") != std::string::npos || text.find("\"dt\": 0.01\n") != std::string::npos,
                 text.c_str());
        QVERIFY2(text.find("\"eps2\": 0.0025") != std::string::npos, text.c_str());
        QVERIFY2(text.find("\"openingAngle\": 0.45") != std::string::npos, text.c_str());
        QVERIFY2(text.find("99999") == std::string::npos && text.find("00001") == std::string::npos, text.c_str());
        const ScenarioSpec r = readScenarioFile(path);
        QCOMPARE(r.dt.value(), 0.01f);
        QCOMPARE(r.eps2.value(), 0.0025f);
        QCOMPARE(r.params, s.params);
    }

    void fileRoundTrip()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        ScenarioSpec s = scenarioSpec("plummer", 1001, 9);
        s.args = {{"massSpectrum", "salpeter"}, {"massRatio", 30}};
        s.dt = 0.005f;
        s.integrator = "yoshida4";
        s.kernel = "reference";
        const std::string path = dir.filePath("p.json").toStdString();
        writeScenarioFile(path, s);
        const ScenarioSpec r = readScenarioFile(path);
        QCOMPARE(r.generator, std::string("plummer"));
        QCOMPARE(r.bodies.value(), std::size_t(1001));
        QCOMPARE(r.seed, std::uint64_t(9));
        QCOMPARE(r.args, s.args);
        QCOMPARE(r.dt.value(), 0.005f);
        QCOMPARE(r.integrator.value(), std::string("yoshida4"));
        QCOMPARE(r.kernel.value(), std::string("reference"));
        QVERIFY(!r.eps2); // unset stays unset: the generator's default
        const BuiltScenario a = buildScenario(s), b = buildScenario(r);
        QCOMPARE(b.params.dt, 0.005f);
        QCOMPARE(b.params.eps2, findScenario("plummer")->eps2);
        QCOMPARE(b.params.integrator, std::string("yoshida4"));
        QCOMPARE(a.bodies.world.positions()[1000].x, b.bodies.world.positions()[1000].x); // same bodies

        // A snapshot path is resolved against the scenario file's folder.
        {
            std::ofstream(dir.filePath("snap.json").toStdString()) << js("{'bodies': {'snapshot': 'sub/g.bin'}}");
            const ScenarioSpec t = readScenarioFile(dir.filePath("snap.json").toStdString());
            QCOMPARE(QString::fromStdString(t.snapshot), QDir::cleanPath(dir.filePath("sub/g.bin")));
            // A missing snapshot is the reader's error naming the file; nothing else is touched.
            try {
                buildScenario(t);
                QFAIL("a missing snapshot was accepted");
            } catch (const FormatError& e) {
                QVERIFY2(QString::fromUtf8(e.what()).contains("g.bin"), e.what());
            }
        }
        // The real Tipsy file, when present: dt and ε² derived from its scale unless given.
        const QString galaxy = QStringLiteral(NBODY_DATA_DIR "/galaxy_20K.bin");
        if (QFile::exists(galaxy)) {
            std::ofstream(dir.filePath("g.json").toStdString())
                << js("{'dt': 0.01, 'bodies': {'snapshot': '" + galaxy + "', 'format': 'tipsy'}}");
            const BuiltScenario g = buildScenario(readScenarioFile(dir.filePath("g.json").toStdString()));
            QCOMPARE(g.bodies.world.size(), std::size_t(20000));
            QCOMPARE(g.params.dt, 0.01f);
            QCOMPARE_LE(std::abs(g.params.eps2 - 0.107f), 0.01f); // docs/units.md
        }
        // Writes are atomic and refuse what cannot be written (a directory).
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, writeScenarioFile(dir.path().toStdString(), s));
    }

    void malformed_data()
    {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("field");
        QTest::newRow("not an object") << "[1, 2]" << "";
        QTest::newRow("no bodies") << "{'G': 1}" << "bodies";
        QTest::newRow("unknown key") << "{'dtt': 0.1, 'bodies': {'generator': 'cube'}}" << "dtt";
        QTest::newRow("format") << "{'format': 'x', 'bodies': {'generator': 'cube'}}" << "format";
        QTest::newRow("version") << "{'version': 2, 'bodies': {'generator': 'cube'}}" << "version";
        QTest::newRow("G zero") << "{'G': 0, 'bodies': {'generator': 'cube'}}" << "G";
        QTest::newRow("G string") << "{'G': '1', 'bodies': {'generator': 'cube'}}" << "G";
        QTest::newRow("eps2 negative") << "{'eps2': -1, 'bodies': {'generator': 'cube'}}" << "eps2";
        QTest::newRow("dt huge for fp32") << "{'dt': 1e300, 'bodies': {'generator': 'cube'}}" << "dt";
        QTest::newRow("dt zero") << "{'dt': 0, 'bodies': {'generator': 'cube'}}" << "dt";
        QTest::newRow("kernel unknown") << "{'kernel': 'warp9', 'bodies': {'generator': 'cube'}}" << "kernel";
        QTest::newRow("integrator unknown") << "{'integrator': 'rk4', 'bodies': {'generator': 'cube'}}"
                                            << "integrator";
        QTest::newRow("bodies both") << "{'bodies': {'generator': 'cube', 'snapshot': 'x.bin'}}" << "bodies";
        QTest::newRow("bodies neither") << "{'bodies': {}}" << "bodies";
        QTest::newRow("generator unknown") << "{'bodies': {'generator': 'blob'}}" << "bodies.generator";
        QTest::newRow("N zero") << "{'bodies': {'generator': 'plummer', 'N': 0}}" << "bodies.N";
        QTest::newRow("N fraction") << "{'bodies': {'generator': 'plummer', 'N': 10.5}}" << "bodies.N";
        QTest::newRow("N huge") << "{'bodies': {'generator': 'plummer', 'N': 1000000000000}}" << "bodies.N";
        QTest::newRow("N on fixed") << "{'bodies': {'generator': 'solar-system', 'N': 12}}" << "bodies.N";
        QTest::newRow("seed negative") << "{'bodies': {'generator': 'plummer', 'seed': -1}}" << "bodies.seed";
        QTest::newRow("bodies key") << "{'bodies': {'generator': 'plummer', 'n': 5}}" << "bodies.n";
        QTest::newRow("args not object") << "{'bodies': {'generator': 'plummer', 'args': 3}}" << "bodies.args";
        QTest::newRow("snapshot format") << "{'bodies': {'snapshot': 'a.h5', 'format': 'fits'}}"
                                         << "bodies.format";
        QTest::newRow("snapshot empty") << "{'bodies': {'snapshot': ''}}" << "bodies.snapshot";
    }
    void snapshotOfAnyFormat_data()
    {
        QTest::addColumn<QString>("extension");
        QTest::newRow("hdf5") << "h5";
        QTest::newRow("csv") << "csv";
        QTest::newRow("tipsy") << "bin";
    }
    void snapshotOfAnyFormat()
    {
        // A scenario whose bodies are a snapshot reads it in whatever format it is (detected from
        // the content, as File → Open snapshot does), and saving that scenario names no format.
        QFETCH(QString, extension);
        QTemporaryDir dir;
        World w;
        for (int i = 0; i < 37; ++i)
            w.addBody({float(i), float(i % 5), float(-i), 1.f + float(i % 3)}, {0.f, 0.1f * float(i), 0.f, 0.f});
        const std::string snap = dir.filePath("s." + extension).toStdString();
        writeSnapshot(snap, w);
        const std::string json = dir.filePath("s.json").toStdString();
        std::ofstream(json) << "{\"bodies\": {\"snapshot\": \"s." << extension.toStdString() << "\"}}";
        const ScenarioSpec spec = readScenarioFile(json);
        const BuiltScenario b = buildScenario(spec);
        QCOMPARE(b.bodies.world.size(), std::size_t(37));
        QCOMPARE(b.bodies.world.positions()[36].x, 36.f);
        writeScenarioFile(dir.filePath("again.json").toStdString(), spec);
        QCOMPARE(buildScenario(readScenarioFile(dir.filePath("again.json").toStdString())).bodies.world.size(),
                 std::size_t(37));
    }
    void malformed()
    {
        QFETCH(QString, json);
        QFETCH(QString, field);
        const QString got = ::field([&] { parseScenario(nlohmann::json::parse(js(json))); });
        QVERIFY2(got.section(" | ", 0, 0) == field, qPrintable(got));
        if (!field.isEmpty())
            QVERIFY2(got.section(" | ", 1).contains("'" + field + "'"), qPrintable(got)); // the message names it
    }

    void malformedArguments_data()
    {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("field");
        QTest::newRow("plummer cutoff") << "{'massCutoff': 1.5}" << "bodies.args.massCutoff";
        QTest::newRow("plummer cutoff zero") << "{'massCutoff': 0}" << "bodies.args.massCutoff";
        QTest::newRow("plummer spectrum") << "{'massSpectrum': 'kroupa'}" << "bodies.args.massSpectrum";
        QTest::newRow("plummer ratio") << "{'massRatio': 0.5}" << "bodies.args.massRatio";
        QTest::newRow("plummer unknown") << "{'concentration': 3}" << "bodies.args.concentration";
        QTest::newRow("plummer NaN-like string") << "{'massRatio': 'nan'}" << "bodies.args.massRatio";
    }
    void malformedArguments()
    {
        QFETCH(QString, json);
        QFETCH(QString, field);
        ScenarioSpec s = scenarioSpec("plummer", 101);
        s.args = nlohmann::json::parse(js(json));
        const QString got = ::field([&] { buildScenario(s); });
        QVERIFY2(got.section(" | ", 0, 0) == field, qPrintable(got));
        // Other generators' arguments too.
        ScenarioSpec g = scenarioSpec("galaxy-collision", 100);
        g.args = {{"separation", 3}};
        QCOMPARE(::field([&] { buildScenario(g); }).section(" | ", 0, 0), QStringLiteral("bodies.args.separation"));
        ScenarioSpec d = scenarioSpec("disk-galaxy", 100);
        d.args = {{"diskFraction", 1}};
        QCOMPARE(::field([&] { buildScenario(d); }).section(" | ", 0, 0), QStringLiteral("bodies.args.diskFraction"));
    }

    void fileErrorsNameTheFile()
    {
        QTemporaryDir dir;
        const std::string bad = dir.filePath("bad.json").toStdString();
        std::ofstream(bad) << js("{'bodies': {'generator': 'plummer', 'N': -4}}");
        try {
            readScenarioFile(bad);
            QFAIL("accepted");
        } catch (const ScenarioError& e) {
            QCOMPARE(e.field(), std::string("bodies.N"));
            QCOMPARE(std::string(e.what()), bad + ": field 'bodies.N': " + e.problem()); // each part once
            QVERIFY2(QString::fromUtf8(e.what()).contains("bad.json") && QString::fromUtf8(e.what()).contains("'bodies.N'"),
                     e.what());
        }
        const std::string broken = dir.filePath("broken.json").toStdString();
        std::ofstream(broken) << "{'bodies': ";
        try {
            readScenarioFile(broken);
            QFAIL("accepted");
        } catch (const ScenarioError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains("not valid JSON"), e.what());
        }
        // A file that cannot be read is worded as a snapshot that cannot be ("snapshot 'x': no
        // such file"), not "x: cannot open the scenario file".
        const std::string missing = dir.filePath("missing.json").toStdString();
        try {
            readScenarioFile(missing);
            QFAIL("accepted");
        } catch (const ScenarioError& e) {
            QCOMPARE(std::string(e.what()), "scenario file '" + missing + "': no such file");
            QCOMPARE(e.field(), std::string());
        }
        const std::string directory = dir.filePath("adir.json").toStdString();
        QVERIFY(QDir().mkdir(QString::fromStdString(directory)));
        try {
            readScenarioFile(directory);
            QFAIL("accepted");
        } catch (const ScenarioError& e) {
            QCOMPARE(std::string(e.what()), "scenario file '" + directory + "': not a regular file (a directory)");
        }
        // Unreadable (mode 0): root reads it anyway, so the row checks only as another user.
        const std::string locked = dir.filePath("locked.json").toStdString();
        std::ofstream(locked) << js("{'bodies': {'generator': 'plummer'}}");
        std::filesystem::permissions(locked, std::filesystem::perms::none);
        if (::geteuid() != 0) {
            try {
                readScenarioFile(locked);
                QFAIL("accepted");
            } catch (const ScenarioError& e) {
                QCOMPARE(std::string(e.what()),
                         "scenario file '" + locked + "': cannot open for reading: permission denied");
            }
        } else {
            QCOMPARE(readScenarioFile(locked).generator, std::string("plummer"));
        }
    }

    /// Errors about what a command line's --scenario and --bodies set name those options
    /// (scenarioFromOption, setBodiesFromOption: nbody's and nbody-sandbox's), not the scenario
    /// field behind them; the same errors in a scenario file name the file and the field.
    void commandLineErrorsNameTheOption()
    {
        try {
            (void)scenarioFromOption("nosuch");
            QFAIL("accepted");
        } catch (const ScenarioError& e) {
            QCOMPARE(QString::fromUtf8(e.what()),
                     QString::fromStdString("--scenario: unknown scenario 'nosuch' (known: " + knownScenarioIds() +
                                            "; or a scenario file ending in .json)"));
            QCOMPARE(e.field(), std::string("bodies.generator"));
        }
        // A model's own minimum (a galaxy collision: 4) and a generator's (two clusters: 2).
        const auto message = [](const ScenarioSpec& spec) -> QString {
            try {
                (void)buildScenario(spec);
            } catch (const ScenarioError& e) {
                if (e.field() != "bodies.N")
                    return QString::fromStdString("field " + e.field() + ": " + e.what());
                return QString::fromUtf8(e.what());
            }
            return QStringLiteral("<no error>");
        };
        ScenarioSpec galaxies = scenarioFromOption("galaxy-collision");
        setBodiesFromOption(galaxies, 3);
        QCOMPARE(message(galaxies), QStringLiteral("--bodies: a galaxy collision needs at least 4 bodies (got 3)"));
        ScenarioSpec clusters = scenarioFromOption("cluster-collision");
        setBodiesFromOption(clusters, 1);
        QCOMPARE(message(clusters), QStringLiteral("--bodies: two clusters need at least 2 bodies (got 1)"));
        // Not set by an option: the field, as the library's callers (the New dialog) name it.
        QCOMPARE(message(scenarioSpec("galaxy-collision", 3)),
                 QStringLiteral("field 'bodies.N': a galaxy collision needs at least 4 bodies (got 3)"));
        // A scenario file (any case of .json): its own N names the file and the field; --bodies
        // over it names the option.
        QTemporaryDir dir;
        const std::string path = dir.filePath("few.JSON").toStdString();
        std::ofstream(path) << js("{'bodies': {'generator': 'galaxy-collision', 'N': 2}}");
        ScenarioSpec file = scenarioFromOption(path);
        QCOMPARE(message(file),
                 QString::fromStdString(path + ": field 'bodies.N': a galaxy collision needs at least 4 bodies (got 2)"));
        setBodiesFromOption(file, 3);
        QCOMPARE(message(file), QStringLiteral("--bodies: a galaxy collision needs at least 4 bodies (got 3)"));
        try {
            (void)scenarioFromOption(dir.filePath("missing.json").toStdString());
            QFAIL("accepted");
        } catch (const ScenarioError& e) {
            QCOMPARE(QString::fromUtf8(e.what()),
                     QStringLiteral("scenario file '%1': no such file").arg(dir.filePath("missing.json")));
        }
    }

    void fileErrorsNameTheField_data()
    {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("words");
        // nlohmann keeps the last of two equal keys silently; its overflow error (out_of_range.406)
        // named neither the file nor the field.
        QTest::newRow("duplicate top-level key") << "{'G': 1, 'dt': 0.1, 'G': 2, 'bodies': {'generator': 'cube'}}"
                                                 << "G" << "given twice";
        QTest::newRow("duplicate nested key") << "{'bodies': {'generator': 'plummer', 'N': 10, 'N': 20}}"
                                              << "bodies.N" << "given twice";
        QTest::newRow("duplicate argument") << "{'bodies': {'generator': 'plummer', 'args': {'massRatio': 2, "
                                               "'massRatio': 3}}}"
                                            << "bodies.args.massRatio" << "given twice";
        QTest::newRow("G beyond a double") << "{'G': 1e400, 'bodies': {'generator': 'cube'}}" << "G"
                                           << "1e400' is beyond the range of a double";
        QTest::newRow("N beyond a double") << "{'bodies': {'generator': 'plummer', 'N': -2e999}}" << "bodies.N"
                                           << "beyond the range of a double";
        QTest::newRow("overflow in an array") << "{'name': 'a', 'bodies': {'generator': 'plummer', 'args': "
                                                 "{'list': [1, 2, 3e500]}}}"
                                              << "bodies.args.list[2]" << "beyond the range";
    }
    void fileErrorsNameTheField()
    {
        QFETCH(QString, json);
        QFETCH(QString, field);
        QFETCH(QString, words);
        QTemporaryDir dir;
        const std::string path = dir.filePath("scenario.json").toStdString();
        std::ofstream(path) << js(json);
        try {
            readScenarioFile(path);
            QFAIL("accepted");
        } catch (const ScenarioError& e) {
            const QString what = QString::fromUtf8(e.what());
            QCOMPARE(QString::fromStdString(e.field()), field);
            QVERIFY2(what.startsWith(QString::fromStdString(path) + ": field '" + field + "': "), e.what());
            QVERIFY2(what.contains(words), e.what());
        } catch (const std::exception& e) {
            QFAIL(qPrintable(QStringLiteral("not a ScenarioError: ") + e.what()));
        }
    }

    void snapshotFormatContradicted()
    {
        // "format" says one thing, the file's content another: refused naming the scenario file,
        // the field and the snapshot (today's build read the file as whatever it was).
        QTemporaryDir dir;
        World w;
        for (int i = 0; i < 5; ++i)
            w.addBody({float(i), 0.f, 0.f, 1.f}, {});
        writeSnapshot(dir.filePath("s.csv").toStdString(), w);
        const std::string json = dir.filePath("s.json").toStdString();
        std::ofstream(json) << js("{'bodies': {'snapshot': 's.csv', 'format': 'tipsy'}}");
        const ScenarioSpec spec = readScenarioFile(json);
        try {
            buildScenario(spec);
            QFAIL("accepted");
        } catch (const ScenarioError& e) {
            const QString what = QString::fromUtf8(e.what());
            QCOMPARE(e.field(), std::string("bodies.format"));
            QVERIFY2(what.startsWith(QString::fromStdString(json) + ": field 'bodies.format': "), e.what());
            QVERIFY2(what.contains("s.csv") && what.contains("tipsy") && what.contains("CSV"), e.what());
        }
        // The right format, or none, reads it.
        std::ofstream(json) << js("{'bodies': {'snapshot': 's.csv', 'format': 'csv'}}");
        QCOMPARE(buildScenario(readScenarioFile(json)).bodies.world.size(), std::size_t(5));
    }
};

QTEST_APPLESS_MAIN(TestScenarios)
#include "tst_scenarios.moc"
