// Hierarchical block time steps (sim/core/BlockSteps.h, docs/timesteps.md): the criterion and the
// level rules; the active-row contract of every host kernel (the rows of a list are bit for bit
// the rows of a full evaluation); one level is the fixed step bit for bit; a Kepler orbit with
// e = 0.9 over 10 periods — block steps beat fixed steps tenfold in energy at the same number of
// body-force evaluations and return to pericentre; determinism; a restart at a synchronisation
// point bit for bit (the CLI, through a snapshot); the merging cluster collision; the refusals.
#include "KeplerOrbit.h"
#include "CliRunner.h"

#include "sim/core/BlockSteps.h"
#include "sim/core/CpuKernels.h"
#include "sim/core/KernelRegistry.h"
#include "sim/core/Launch.h"
#include "sim/core/Models.h"
#include "sim/core/ParamTable.h"
#include "sim/core/Simulation.h"
#include "sim/core/TreeCpu.h"
#include "sim/io/Scenarios.h"

#if NBODY_HAVE_CUDA
#include "kernels/DeviceState.h"
#endif

#include <QTemporaryDir>
#include <QtTest>

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numbers>
#include <random>

using namespace nbody;

namespace {

constexpr double kPi = std::numbers::pi;

using test::kKeplerMass;
using test::kepler;
using test::keplerPericentreSpeed;

SimParams keplerParams(double dt, bool block, double eta = 0.1, int levels = 12)
{
    SimParams p;
    p.G = 1;
    p.eps2 = 0;
    p.dt = float(dt);
    p.timestep = block ? "block" : "fixed";
    p.eta = eta;
    p.maxLevels = levels;
    return p;
}

struct KeplerRun {
    double maxEnergyError = 0; ///< max |E − E0| / |E0| at the sample times
    std::uint64_t bodyForces = 0;
    Double4 x2;                ///< body 2's position at the end (fp64)
    double time = 0;
};

/// `samples` samples of `stepsPerSample` steps each; the energy measured (fp64) after each.
KeplerRun runKepler(const SimParams& p, int samples, int stepsPerSample, const char* kernel = "reference")
{
    const ModelBodies b = kepler(0.9);
    Simulation sim(b.world, b.exact, p, kernel);
    const Diagnostics e0 = sim.measure();
    const std::uint64_t forces0 = sim.bodyForceEvaluations();
    KeplerRun r;
    for (int s = 0; s < samples; ++s) {
        sim.step(stepsPerSample);
        r.maxEnergyError = std::max(r.maxEnergyError, std::abs(relativeEnergyChange(e0, sim.measure())));
    }
    r.bodyForces = sim.bodyForceEvaluations() - forces0;
    r.x2 = sim.state64().position[1];
    r.time = sim.time();
    return r;
}

/// A Plummer sphere with a close binary at its centre (the benchmark's second system): N bodies,
/// the last two a circular binary of separation `sep`, ε² given. N = 333 is no multiple of a block.
World plummerWithBinary(std::size_t n, double sep, std::uint64_t seed)
{
    ScenarioSpec spec = scenarioSpec("plummer", n - 2, seed);
    World w = buildScenario(spec).bodies.world;
    const float m = 0.05f; // each binary member: 0.05 of the cluster's mass 1
    const double v = std::sqrt(2 * m / sep) / 2; // circular, G = 1, relative speed sqrt(G·2m/sep)
    w.addBody(Float4{float(sep / 2), 0, 0, m}, Float4{0, float(v), 0, 0});
    w.addBody(Float4{float(-sep / 2), 0, 0, m}, Float4{0, float(-v), 0, 0});
    return w;
}

bool sameBits(const World& a, const World& b)
{
    return a.size() == b.size() &&
           std::memcmp(a.positions().data(), b.positions().data(), a.size() * sizeof(Float4)) == 0 &&
           std::memcmp(a.velocities().data(), b.velocities().data(), a.size() * sizeof(Float4)) == 0;
}

double norm3(const Double4& a)
{
    return std::sqrt(a.x * a.x + a.y * a.y + a.z * a.z);
}

} // namespace

class TestBlockSteps : public QObject {
    Q_OBJECT

private slots:
    // ---- the criterion and the rules ----
    void criterion()
    {
        // ε² > 0: η sqrt(ε / |a|); a body with 4x the acceleration takes half the step.
        QCOMPARE(criterionStep(0.1, 0.04, 2.0, 123.0), 0.1 * std::sqrt(0.2 / 2.0));
        QCOMPARE(criterionStep(0.1, 0.04, 8.0, 123.0), 0.5 * criterionStep(0.1, 0.04, 2.0, 123.0));
        // ε² = 0: η sqrt(r_min / |a|): for a point mass M at r, η sqrt(r³ / GM), finite.
        const double r = 0.1, GM = 4.0;
        QCOMPARE(criterionStep(0.1, 0.0, GM / (r * r), r), 0.1 * std::sqrt(r * r * r / GM));
        QVERIFY(criterionStep(0.1, 0.0, GM / (r * r), r) > 0);
        // No force: the largest step; two bodies at one point without softening: the smallest.
        QCOMPARE(criterionStep(0.1, 0.0, 0.0, 1.0), std::numeric_limits<double>::infinity());
        QCOMPARE(criterionStep(0.1, 0.0, 5.0, 0.0), 0.0);
    }

    void levels()
    {
        // The shallowest k with dtMax / 2^k <= dt, clamped to [0, L].
        QCOMPARE(levelForStep(1.0, 2.0, 10), 0);
        QCOMPARE(levelForStep(1.0, 1.0, 10), 0);
        QCOMPARE(levelForStep(1.0, 0.99, 10), 1);
        QCOMPARE(levelForStep(1.0, 0.25, 10), 2);
        QCOMPARE(levelForStep(1.0, 0.2, 10), 3);
        QCOMPARE(levelForStep(1.0, 1e-9, 10), 10);
        QCOMPARE(levelForStep(1.0, 0.0, 4), 4);
        QCOMPARE(levelForStep(1.0, std::nan(""), 4), 4);
        // A larger |a| never gives a shallower level.
        int previous = 0;
        for (double a = 1e-3; a < 1e6; a *= 1.7) {
            const int k = levelForStep(0.5, criterionStep(0.05, 0.01, a, 0), 20);
            QVERIFY(k >= previous);
            previous = k;
        }
        QVERIFY(previous > 5);
        // GADGET-2's rule at tick t of 2^L: deeper always; shallower only where t is a multiple.
        QCOMPARE(allowedLevel(2, 5, 3, 6), 5);
        QCOMPARE(allowedLevel(5, 2, 16, 6), 2);  // 16 is a multiple of 2^(6−2)
        QCOMPARE(allowedLevel(5, 2, 8, 6), 5);   // 8 is not: keep the level
        QCOMPARE(allowedLevel(5, 3, 8, 6), 3);   // a multiple of 2^(6−3)
        // Active at tick t: every level ≥ L − ctz(t); the last tick makes every body active.
        QCOMPARE(firstActiveLevel(1, 6), 6);
        QCOMPARE(firstActiveLevel(8, 6), 3);
        QCOMPARE(firstActiveLevel(64, 6), 0);
    }

    void deeperLevelForLargerAcceleration_data()
    {
        QTest::addColumn<float>("eps2");
        QTest::newRow("eps2 > 0") << 1e-6f;
        QTest::newRow("eps2 = 0") << 0.0f;
    }
    void deeperLevelForLargerAcceleration()
    {
        // A close binary in a Plummer sphere: its members have the largest |a| and get the deepest
        // level; the levels are finite and the state too, with ε² = 0 as well.
        QFETCH(float, eps2);
        World w = plummerWithBinary(333, 1e-3, 7);
        SimParams p;
        p.eps2 = eps2;
        p.dt = 1.0f / 64;
        p.timestep = "block";
        p.maxLevels = 16;
        Simulation sim(w, p, "cpu");
        sim.step(1);
        const BlockLevels& b = sim.blockLevels();
        QCOMPARE(b.level.size(), std::size_t(333));
        // The binary's members (separation 1e-3 = ε or unsoftened) are on the deepest level, and
        // deeper than the bulk of the cluster (its median level).
        const int binary = std::min(b.level[331], b.level[332]);
        std::vector<std::uint8_t> others(b.level.begin(), b.level.begin() + 331);
        for (std::size_t i = 0; i < 331; ++i)
            QVERIFY2(others[i] <= binary, qPrintable(QStringLiteral("body %1 level %2, binary %3").arg(i).arg(others[i]).arg(binary)));
        std::nth_element(others.begin(), others.begin() + 165, others.end());
        QVERIFY2(others[165] < binary, qPrintable(QStringLiteral("median %1, binary %2").arg(others[165]).arg(binary)));
        QVERIFY(binary > 3);
        std::uint64_t counted = 0;
        for (std::uint64_t c : b.histogram)
            counted += c;
        QCOMPARE(counted, std::uint64_t(333));
        QVERIFY(sim.world().validate().empty());
        // Fewer body-force evaluations than the fixed step at the deepest level would take.
        QVERIFY(sim.bodyForceEvaluations() < 333ull * (1ull << binary));
    }

    // ---- the active-row contract of the host kernels ----
    void activeRowsAreFullRows_data()
    {
        QTest::addColumn<QString>("kernel");
        QTest::addColumn<int>("n");
        for (const char* k : {"cpu", "tree-cpu", "reference"})
            for (int n : {1, 2, 31, 33, 1000, 4097})
                QTest::newRow(qPrintable(QStringLiteral("%1 N=%2").arg(k).arg(n))) << QString(k) << n;
    }
    void activeRowsAreFullRows()
    {
        // Every third body (and the last) as an active list: those rows are bit for bit the rows of
        // a full evaluation, the others are left as they were.
        QFETCH(QString, kernel);
        QFETCH(int, n);
        const KernelInfo* k = findKernel(kernel.toStdString());
        QVERIFY(k && k->host);
        std::mt19937_64 rng(11);
        std::uniform_real_distribution<double> u(-1, 1);
        const bool fp64 = k->layout == Layout::Double4;
        std::vector<Float4> p32(static_cast<std::size_t>(n));
        std::vector<Double4> p64(static_cast<std::size_t>(n));
        for (int i = 0; i < n; ++i) {
            p32[i] = Float4{float(u(rng)), float(u(rng)), float(u(rng)), float(0.5 + 0.5 * u(rng))};
            p64[i] = Double4{p32[i].x, p32[i].y, p32[i].z, p32[i].w};
        }
        std::vector<std::uint32_t> active;
        for (int i = 0; i < n; ++i)
            if (i % 3 == 0 || i == n - 1)
                active.push_back(std::uint32_t(i));
        const std::size_t bytes = fp64 ? sizeof(Double4) : sizeof(Float4);
        std::vector<unsigned char> full(std::size_t(n) * bytes), part(std::size_t(n) * bytes, 0x5a);
        HostForceArgs a;
        a.pos = fp64 ? static_cast<const void*>(p64.data()) : static_cast<const void*>(p32.data());
        a.n = std::size_t(n);
        a.eps2 = 1e-3;
        a.acc = full.data();
        k->host(a);
        a.acc = part.data();
        a.active = active.data();
        a.activeCount = active.size();
        k->host(a);
        std::size_t next = 0;
        for (int i = 0; i < n; ++i) {
            const bool listed = next < active.size() && active[next] == std::uint32_t(i);
            if (listed)
                ++next;
            const unsigned char* got = part.data() + std::size_t(i) * bytes;
            if (listed)
                QVERIFY2(std::memcmp(got, full.data() + std::size_t(i) * bytes, bytes) == 0,
                         qPrintable(QStringLiteral("row %1 differs").arg(i)));
            else
                for (std::size_t c = 0; c < bytes; ++c)
                    QCOMPARE(int(got[c]), 0x5a);
        }
        // A list that is not ascending is refused, naming the entry.
        if (active.size() >= 2) {
            std::swap(active[0], active[1]);
            QVERIFY_THROWS_EXCEPTION(std::invalid_argument, k->host(a));
        }
    }

    // The CUDA rows that honour an active list (KernelInfo::activeRows) through the device state
    // (DeviceState::setActiveRows, computeActiveForces): the listed rows are bit for bit those of a full pass, the
    // others keep what the state held. N = 4097 and 33 (no block multiple), one body; lists of
    // every third body and the last, of one body, and empty; the tree also with the relative
    // criterion (both passes from its geometric pre-pass). The device criterion's steps
    // (DeviceState::criterionSteps) are the host's bits (criterionStep) for the same rows.
    void deviceActiveRowsAreFullRows_data()
    {
        QTest::addColumn<QString>("kernel");
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("every"); // every k-th body and the last; 0: none
        QTest::addColumn<double>("alpha");
        for (const KernelInfo& k : kernelRegistry()) {
            if (k.backend != Backend::Cuda || !k.activeRows)
                continue;
            const QString id = QString::fromUtf8(k.id.data(), qsizetype(k.id.size()));
            for (const auto& [n, every] : {std::pair{4097, 3}, {4097, 4097}, {4097, 0}, {33, 3}, {1, 1}})
                QTest::addRow("%s N=%d every=%d", qPrintable(id), n, every) << id << n << every << 0.0;
            if (k.method == ForceMethod::Tree)
                QTest::addRow("%s N=4097 every=3 alpha=0.005", qPrintable(id)) << id << 4097 << 3 << 0.005;
        }
    }
    void deviceActiveRowsAreFullRows()
    {
        QFETCH(QString, kernel);
        QFETCH(int, n);
        QFETCH(int, every);
        QFETCH(double, alpha);
        const KernelInfo* k = findKernel(kernel.toStdString());
        QVERIFY(k);
        if (const Availability a = availability(*k); !a.available)
            QSKIP(qPrintable(kernel + ": " + QString::fromStdString(a.reason)));
#if NBODY_HAVE_CUDA
        std::mt19937_64 rng(23);
        std::uniform_real_distribution<double> u(-1, 1);
        World w;
        for (int i = 0; i < n; ++i)
            w.addBody(Float4{float(u(rng)), float(u(rng)), float(u(rng)), float(0.5 + 0.5 * u(rng))}, Float4{});
        const Float4 sentinel{7.f, -7.f, 7.f, 0.f};
        std::vector<std::uint32_t> rows;
        for (int i = 0; every > 0 && i < n; ++i)
            if (i % every == 0 || i == n - 1)
                rows.push_back(std::uint32_t(i));
        SimParams p;
        p.eps2 = 1e-3;
        p.openingAlpha = alpha;
        if (alpha > 0)
            p.openingAngle = 1.0f;
        ForceLaunch f = forceLaunch(*k, p, w.size(), RowRange{0, w.size()});
        f.args.accelerationsValid = false; // the relative criterion: the pre-pass in both
        const bool fp64 = k->layout == Layout::Double4;
        std::size_t evaluated = 0; // the rows computeActiveForces reports
        const auto run = [&](bool listed) {
            World x = w;
            x.accelerations().assign(x.size(), sentinel);
            DeviceState ds(x.size(), k->layout, PositionStorage::Owned);
            if (fp64)
                ds.upload(widen(x), 0);
            else
                ds.upload(x, 0);
            if (listed) {
                ds.setActiveRows(rows.data(), rows.size());
                evaluated = ds.computeActiveForces(f, 0);
            } else
                ds.computeForces(f, 0);
            Fp64State out = widen(x);
            if (fp64)
                ds.download(out, 0);
            else {
                ds.download(x, 0);
                out = widen(x);
            }
            return out.acceleration;
        };
        const std::vector<Double4> full = run(false), part = run(true);
        QCOMPARE(evaluated, rows.size()); // a list of every body is a full pass: N rows either way
        std::size_t next = 0;
        for (int i = 0; i < n; ++i) {
            const bool listed = next < rows.size() && rows[next] == std::uint32_t(i);
            next += listed;
            const Double4 want = listed ? full[std::size_t(i)] : Double4{7, -7, 7, 0};
            QVERIFY2(std::memcmp(&part[std::size_t(i)], &want, sizeof want) == 0,
                     qPrintable(QStringLiteral("row %1 (%2): %3 %4 %5, expected %6 %7 %8")
                                    .arg(i)
                                    .arg(listed ? "listed" : "not listed")
                                    .arg(part[std::size_t(i)].x)
                                    .arg(part[std::size_t(i)].y)
                                    .arg(part[std::size_t(i)].z)
                                    .arg(want.x)
                                    .arg(want.y)
                                    .arg(want.z)));
        }
        // A list that is not ascending is refused before anything runs, naming the entry, as the
        // host rows refuse it (checkActiveList).
        if (rows.size() >= 2) {
            std::vector<std::uint32_t> swapped = rows;
            std::swap(swapped[0], swapped[1]);
            DeviceState ds(w.size(), k->layout, PositionStorage::Owned);
            try {
                ds.setActiveRows(swapped.data(), swapped.size());
                QFAIL("a list that is not ascending was accepted");
            } catch (const std::invalid_argument& e) {
                QVERIFY2(QString(e.what()).contains("active row entry 1"), e.what());
            }
        }
        // The criterion's steps on the device are the host's bits.
        if (!rows.empty()) {
            World x = w;
            x.accelerations().clear();
            for (std::size_t i = 0; i < x.size(); ++i)
                x.accelerations().push_back(Float4{float(full[i].x), float(full[i].y), float(full[i].z), 0.f});
            if (n > 1)
                x.accelerations()[0] = Float4{}; // |a| = 0: +inf
            DeviceState ds(x.size(), k->layout, PositionStorage::Owned);
            if (fp64)
                ds.upload(widen(x), 0);
            else
                ds.upload(x, 0);
            const double eta = 0.1;
            std::vector<double> steps(rows.size());
            ds.setActiveRows(rows.data(), rows.size());
            ds.criterionSteps(eta, std::sqrt(double(p.eps2)), steps.data());
            for (std::size_t s = 0; s < rows.size(); ++s) {
                const Float4 a = x.accelerations()[rows[s]];
                const double ax = a.x, ay = a.y, az = a.z;
                const double want = criterionStep(eta, p.eps2, std::sqrt(ax * ax + ay * ay + az * az), 0);
                QVERIFY2(std::memcmp(&steps[s], &want, sizeof want) == 0,
                         qPrintable(QStringLiteral("row %1: step %2, host %3").arg(rows[s]).arg(steps[s], 0, 'g', 17)
                                        .arg(want, 0, 'g', 17)));
            }
        }
#else
        Q_UNUSED(n) Q_UNUSED(every) Q_UNUSED(alpha)
#endif
    }

    // ---- one level is the fixed step ----
    void oneLevelIsTheFixedStep_data()
    {
        QTest::addColumn<QString>("kernel");
        for (const char* k : {"cpu", "tree-cpu", "reference"})
            QTest::newRow(k) << QString(k);
    }
    void oneLevelIsTheFixedStep()
    {
        // --timestep block --max-levels 0 takes exactly the fixed steps (the same operations).
        QFETCH(QString, kernel);
        World w = plummerWithBinary(333, 1e-2, 3);
        SimParams p;
        p.dt = 1.0f / 128;
        Simulation fixed(w, p, kernel.toStdString());
        p.timestep = "block";
        p.maxLevels = 0;
        Simulation block(w, p, kernel.toStdString());
        fixed.step(20);
        block.step(20);
        QVERIFY(sameBits(fixed.world(), block.world()));
        QCOMPARE(block.bodyForceEvaluations(), fixed.bodyForceEvaluations());
    }

    // ---- Kepler, e = 0.9, 10 periods ----
    void keplerBeatsFixedStepsAtEqualCost()
    {
        // Block steps with dt_max = 1/16 period; energy sampled every 1/16 period (both runs). The
        // fixed run takes at least as many body-force evaluations (2 per step); its energy error
        // must be at least 10x the block run's.
        const int samples = 160; // 10 periods of 16 samples
        const KeplerRun block = runKepler(keplerParams(1.0 / 16, true, 0.01, 12), samples, 1);
        const int fixedPerSample = int((block.bodyForces + 2 * samples - 1) / (2 * samples)); // round up
        const KeplerRun fixed = runKepler(keplerParams(1.0 / (16.0 * fixedPerSample), false), samples, fixedPerSample);
        qInfo("Kepler e = 0.9, 10 periods: block %llu body-force evaluations, max |dE/E| = %.3g; fixed (dt = T/%d) "
              "%llu evaluations, max |dE/E| = %.3g; ratio %.1f",
              static_cast<unsigned long long>(block.bodyForces), block.maxEnergyError, 16 * fixedPerSample,
              static_cast<unsigned long long>(fixed.bodyForces), fixed.maxEnergyError,
              fixed.maxEnergyError / block.maxEnergyError);
        QVERIFY(fixed.bodyForces >= block.bodyForces);
        QVERIFY2(block.maxEnergyError * 10 <= fixed.maxEnergyError,
                 qPrintable(QStringLiteral("block %1, fixed %2").arg(block.maxEnergyError).arg(fixed.maxEnergyError)));
    }

    void keplerReturnsToPericentre()
    {
        // After 10 periods (t = 10 exactly: 160 steps of 1/16) body 2 is back at its pericentre
        // (x = 0.6 r_p, 0, 0), the closed form. Tolerance from the energy error: a relative energy
        // error δ changes the semi-major axis by δ·a and the period by (3/2)·δ·T, so after 10
        // periods the body is off by at most v_2 · 10 · (3/2) · δ · T along its orbit at
        // pericentre (v_2 = 0.6 v_p, T = 1), δ the run's largest energy error (itself bounded
        // here: < 1e-3).
        const double e = 0.9;
        const KeplerRun r = runKepler(keplerParams(1.0 / 16, true, 0.01, 12), 160, 1);
        QCOMPARE(r.time, 10.0);
        QVERIFY2(r.maxEnergyError < 1e-3, qPrintable(QString::number(r.maxEnergyError)));
        const Double4 target{0.6 * (1 - e), 0, 0, 0};
        const double err = norm3(Double4{r.x2.x - target.x, r.x2.y - target.y, r.x2.z - target.z, 0});
        const double tol = 0.6 * keplerPericentreSpeed(e) * 10 * 1.5 * r.maxEnergyError;
        qInfo("return to pericentre: |x - x_p| = %.3g, tolerance %.3g (max |dE/E| %.3g)", err, tol, r.maxEnergyError);
        QVERIFY2(err <= tol, qPrintable(QStringLiteral("%1 > %2").arg(err).arg(tol)));
    }

    // ---- determinism and restarts ----
    void deterministic_data()
    {
        QTest::addColumn<QString>("kernel");
        for (const char* k : {"cpu", "tree-cpu", "reference"})
            QTest::newRow(k) << QString(k);
    }
    void deterministic()
    {
        // The same bits on a rerun and on 1 and 2 threads, the same levels.
        QFETCH(QString, kernel);
        const World w = plummerWithBinary(333, 1e-3, 5);
        SimParams p;
        p.dt = 1.0f / 64;
        p.timestep = "block";
        p.maxLevels = 12;
        auto run = [&](int threads) {
            const int was = omp_get_max_threads();
            omp_set_num_threads(threads);
            Simulation sim(w, p, kernel.toStdString());
            sim.step(8);
            omp_set_num_threads(was);
            return std::make_pair(sim.world(), sim.blockLevels().level);
        };
        const auto [w1, l1] = run(2);
        const auto [w2, l2] = run(2);
        const auto [w3, l3] = run(1);
        QVERIFY(sameBits(w1, w2));
        QVERIFY(sameBits(w1, w3));
        QCOMPARE(l1, l2);
        QCOMPARE(l1, l3);
    }

    void restartAtSynchronisationPointViaSimulation()
    {
        // The levels come from the state at a synchronisation point alone: a new Simulation from
        // the state after 6 steps continues bit for bit.
        const World w = plummerWithBinary(333, 1e-3, 9);
        SimParams p;
        p.dt = 1.0f / 64;
        p.timestep = "block";
        p.maxLevels = 12;
        Simulation straight(w, p, "cpu");
        straight.step(12);
        Simulation first(w, p, "cpu");
        first.step(6);
        Simulation second(first.world(), p, "cpu");
        second.step(6);
        QVERIFY(sameBits(straight.world(), second.world()));
        QCOMPARE(straight.blockLevels().level, second.blockLevels().level);
    }

    void restartFromSnapshotViaCli_data()
    {
        QTest::addColumn<QString>("kernel");
        QTest::newRow("cpu") << "cpu";
        QTest::newRow("tree-cpu") << "tree-cpu";
    }
    void restartFromSnapshotViaCli()
    {
        // `nbody run` 20 steps straight, against 10 steps, a snapshot, and 10 more from it: the
        // snapshots are the same bytes; the restart takes the block steps from the snapshot.
        QFETCH(QString, kernel);
        QTemporaryDir dir;
        const QStringList common{"run",        "--kernel", kernel, "--scenario",   "plummer", "--bodies", "301",
                                 "--no-energy", "--timestep", "block", "--max-levels", "8",   "--eta",    "0.05"};
        const auto a = nbody_test::runCli(common + QStringList{"--steps", "20", "--output", dir.filePath("straight.csv")});
        QVERIFY2(a.code == 0, qPrintable(a.err));
        const auto b = nbody_test::runCli(common + QStringList{"--steps", "10", "--output", dir.filePath("half.csv")});
        QVERIFY2(b.code == 0, qPrintable(b.err));
        const auto c = nbody_test::runCli({"run", "--input", dir.filePath("half.csv"), "--steps", "10", "--no-energy",
                                           "--output", dir.filePath("restarted.csv")});
        QVERIFY2(c.code == 0, qPrintable(c.err));
        QVERIFY2(c.out.contains("timestep block, eta 0.05, maxLevels 8"), qPrintable(c.out));
        QFile x(dir.filePath("straight.csv")), y(dir.filePath("restarted.csv"));
        QVERIFY(x.open(QIODevice::ReadOnly) && y.open(QIODevice::ReadOnly));
        const QByteArray straight = x.readAll(), restarted = y.readAll();
        QVERIFY(straight.contains("# timestep = block\n"));
        QVERIFY2(straight == restarted, "the restarted run differs from the straight one");
    }

    // ---- collisions ----
    void mergingClusterCollision()
    {
        // The merging cluster collision with block steps: merges happen, bodies are accounted for,
        // mass is conserved to the rounding of the merges (each merge rounds one fp32 sum: N0 · 2^-24
        // of M), and the momentum, zero at the start (centre of mass at rest), stays within
        // 1e-4 of Σ m|v| (the kicks of different levels do not cancel pairwise between
        // synchronisation points as the fixed step's do; measured 2.8e-5 here, the fixed step's
        // rounding alone is ~1e-9).
        ScenarioSpec spec = scenarioSpec("cluster-collision", 255, 4);
        spec.args = {{"separation", 3.0}, {"density", 30.0}};
        const BuiltScenario sc = buildScenario(spec);
        SimParams p = sc.params;
        p.timestep = "block";
        p.maxLevels = 6;
        p.dt = 0.04f;
        Simulation sim(sc.bodies.world, p, "cpu");
        auto momentum = [](const World& w, double& scale) {
            double px = 0, py = 0, pz = 0;
            scale = 0;
            for (std::size_t i = 0; i < w.size(); ++i) {
                const Float4& x = w.positions()[i];
                const Float4& v = w.velocities()[i];
                px += double(x.w) * v.x;
                py += double(x.w) * v.y;
                pz += double(x.w) * v.z;
                scale += double(x.w) * std::sqrt(double(v.x) * v.x + double(v.y) * v.y + double(v.z) * v.z);
            }
            return std::sqrt(px * px + py * py + pz * pz);
        };
        double m0 = 0, scale0 = 0;
        for (const Float4& x : sc.bodies.world.positions())
            m0 += x.w;
        const double p0 = momentum(sc.bodies.world, scale0);
        sim.step(40);
        const World& w = sim.world();
        QVERIFY(w.validate().empty());
        QVERIFY(!sim.mergeLog().empty());
        QCOMPARE(w.size() + sim.mergeLog().size(), std::size_t(255));
        double m = 0;
        for (const Float4& x : w.positions())
            m += x.w;
        QVERIFY2(std::abs(m - m0) <= 255 * std::ldexp(1.0, -24) * m0, qPrintable(QString::number(m - m0)));
        double scale = 0;
        const double p1 = momentum(w, scale);
        qInfo("cluster collision, block steps: %zu merges, |P| %.3g -> %.3g (sum m|v| %.3g), mass change %.3g",
              sim.mergeLog().size(), p0, p1, scale, m - m0);
        QVERIFY2(std::abs(p1 - p0) <= 1e-4 * scale, qPrintable(QString::number(p1)));
    }

    // ---- the device state (CUDA rows; skipped without a device) ----
    void deviceMatchesHost_data()
    {
        QTest::addColumn<QString>("kernel");
        QTest::addColumn<QString>("host");
        QTest::newRow("tiled-fp64 / reference") << "tiled-fp64" << "reference";
    }
    void deviceMatchesHost()
    {
        // The Kepler orbit (e = 0.9, two bodies: every force sum is one term) with block steps on
        // the fp64 CUDA row and on the fp64 host row: the same levels — the same active sets —
        // after every step, and positions within 1e-9 of the orbit's size after 2 periods (the
        // device's reciprocal square root differs from the host's by about an ulp).
        QFETCH(QString, kernel);
        QFETCH(QString, host);
        const KernelInfo* k = findKernel(kernel.toStdString());
        QVERIFY(k);
        if (const Availability a = availability(*k); !a.available)
            QSKIP(qPrintable(kernel + ": " + QString::fromStdString(a.reason)));
        const ModelBodies b = kepler(0.9);
        const SimParams p = keplerParams(1.0 / 16, true, 0.02, 12);
        Simulation onDevice(b.world, b.exact, p, kernel.toStdString());
        Simulation onHost(b.world, b.exact, p, host.toStdString());
        for (int s = 0; s < 32; ++s) {
            onDevice.step(1);
            onHost.step(1);
            QCOMPARE(onDevice.blockLevels().level, onHost.blockLevels().level);
            QCOMPARE(onDevice.blockLevels().histogram, onHost.blockLevels().histogram);
        }
        const double tol = 1e-9;
        const Fp64State d = onDevice.state64(), h = onHost.state64();
        for (std::size_t i = 0; i < 2; ++i)
            QVERIFY2(norm3(Double4{d.position[i].x - h.position[i].x, d.position[i].y - h.position[i].y,
                                   d.position[i].z - h.position[i].z, 0}) <= tol,
                     qPrintable(QStringLiteral("body %1").arg(i)));
    }

    // The levels and the active set on the device (DeviceState::selectActive, assignLevels) are
    // the host's: N = 4099 bodies whose accelerations span six decades (levels 0 … 12 of
    // dt_max 1/16 with η 0.05, ε² 1e-4), some |a| = 0 (+∞: level 0); at t = 0, then at a tick
    // inside the step after the accelerations changed (GADGET-2's rule), then with steps given
    // by the host (the ε² = 0 criterion's path) including 0, +∞ and NaN. Levels, active rows
    // and histograms are compared exactly.
    void deviceLevelsAreHostLevels()
    {
        const KernelInfo* k = findKernel("blocked");
        QVERIFY(k);
        if (const Availability a = availability(*k); !a.available)
            QSKIP(qPrintable("blocked: " + QString::fromStdString(a.reason)));
#if NBODY_HAVE_CUDA
        const std::size_t n = 4099;
        const int L = 12;
        const double dtMax = 1.0 / 16, eta = 0.05;
        const float eps2 = 1e-4f;
        const double length = std::sqrt(double(eps2));
        std::mt19937_64 rng(29);
        std::uniform_real_distribution<double> u(-1, 1);
        World w;
        for (std::size_t i = 0; i < n; ++i)
            w.addBody(Float4{float(u(rng)), float(u(rng)), float(u(rng)), 1.f}, Float4{});
        const auto randomAccelerations = [&] {
            w.accelerations().clear();
            for (std::size_t i = 0; i < n; ++i) {
                const double mag = i % 97 == 0 ? 0.0 : std::pow(10.0, 3 * u(rng) + 1); // 0.01 … 1e4
                w.accelerations().push_back(Float4{float(mag * u(rng)), float(mag * u(rng)), float(mag), 0.f});
            }
        };
        const auto hostSteps = [&](const std::vector<std::uint32_t>& rows) {
            std::vector<double> steps;
            for (const std::uint32_t i : rows) {
                const Float4 a = w.accelerations()[i];
                const double ax = a.x, ay = a.y, az = a.z;
                steps.push_back(criterionStep(eta, eps2, std::sqrt(ax * ax + ay * ay + az * az), 0));
            }
            return steps;
        };
        BlockLevels host;
        host.maxLevels = L;
        host.level.assign(n, 0);
        const auto hostAssign = [&](const std::vector<double>& steps, std::uint64_t tick) {
            for (std::size_t s = 0; s < host.active.size(); ++s) {
                std::uint8_t& level = host.level[host.active[s]];
                level = std::uint8_t(nextLevel(level, dtMax, steps[s], tick, L));
            }
            host.countLevels();
        };
        std::array<std::uint64_t, kMaxBlockLevels + 1> histogram{};
        std::vector<std::uint8_t> deviceLevel(n);
        randomAccelerations();
        DeviceState ds(n, Layout::Float4, PositionStorage::Owned);
        ds.upload(w, 0);

        // t = 0: every body active, every level allowed.
        QCOMPARE(ds.selectActive(0), n);
        host.selectActive(0);
        ds.assignLevels(0, dtMax, L, eta, length, nullptr, histogram.data());
        hostAssign(hostSteps(host.active), 0);
        ds.downloadLevels(deviceLevel.data());
        QCOMPARE(deviceLevel, host.level);
        QCOMPARE(histogram, host.histogram);
        int used = 0;
        for (const std::uint64_t c : host.histogram)
            used += c > 0;
        QVERIFY2(used >= 8, qPrintable(QStringLiteral("%1 levels used").arg(used))); // the test spans levels

        // A tick inside the step: the active set, then GADGET-2's rule with new accelerations.
        const std::uint64_t tick = std::uint64_t(3) << (L - 4); // 3/16 of the step: levels ≥ 4 active
        const int minLevel = firstActiveLevel(tick, L);
        QCOMPARE(minLevel, 4);
        host.selectActive(minLevel);
        QCOMPARE(ds.selectActive(minLevel), host.active.size());
        QVERIFY(!host.active.empty() && host.active.size() < n);
        std::vector<std::uint32_t> deviceRows(ds.activeCount());
        ds.downloadActiveRows(deviceRows.data());
        QCOMPARE(deviceRows, host.active);
        randomAccelerations();
        ds.upload(w, 0);
        ds.assignLevels(tick, dtMax, L, eta, length, nullptr, histogram.data());
        hostAssign(hostSteps(host.active), tick);
        ds.downloadLevels(deviceLevel.data());
        QCOMPARE(deviceLevel, host.level);
        QCOMPARE(histogram, host.histogram);

        // Steps from the host (the criterion without softening), with the edge values.
        std::vector<double> given = hostSteps(host.active);
        given[0] = 0.0;
        given[1 % given.size()] = std::numeric_limits<double>::infinity();
        given[2 % given.size()] = std::numeric_limits<double>::quiet_NaN();
        const std::uint64_t tock = std::uint64_t(1) << (L - 1); // half the step: levels ≥ 1
        host.selectActive(firstActiveLevel(tock, L));
        QCOMPARE(ds.selectActive(firstActiveLevel(tock, L)), host.active.size());
        given.resize(host.active.size(), 1e-3);
        ds.assignLevels(tock, dtMax, L, eta, 0.0, given.data(), histogram.data());
        hostAssign(given, tock);
        ds.downloadLevels(deviceLevel.data());
        QCOMPARE(deviceLevel, host.level);
        QCOMPARE(histogram, host.histogram);

        // Refusals: a level beyond 30, no length without steps.
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, ds.assignLevels(0, dtMax, 31, eta, length, nullptr, histogram.data()));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, ds.assignLevels(0, dtMax, L, eta, 0.0, nullptr, histogram.data()));
#endif
    }

    // ---- refusals ----
    void refusals()
    {
        const ModelBodies b = kepler(0.5);
        SimParams p = keplerParams(0.01, true);
        p.reverse = true;
        try {
            Simulation sim(b.world, p, "cpu");
            QFAIL("reverse with block steps was accepted");
        } catch (const std::invalid_argument& e) {
            QVERIFY2(QString(e.what()).contains("time cannot run backwards with block time steps"), e.what());
        }
        p.reverse = false;
        p.integrator = "yoshida4";
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, Simulation(b.world, p, "cpu"));
        p.integrator = "leapfrog";
        p.timestep = "adaptive";
        try {
            Simulation sim(b.world, p, "cpu");
            QFAIL("an unknown time-step mode was accepted");
        } catch (const std::invalid_argument& e) {
            QVERIFY2(QString(e.what()).contains("known: fixed, block"), e.what());
        }
    }

    void cliRefusesReverse()
    {
        const auto r = nbody_test::runCli({"run", "--kernel", "cpu", "--bodies", "31", "--steps", "1", "--timestep",
                                           "block", "--reverse", "--no-energy"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("time cannot run backwards with block time steps"), qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TestBlockSteps)
#include "tst_block_steps.moc"
