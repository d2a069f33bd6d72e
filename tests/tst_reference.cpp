// The fp64 reference and the CPU kernel; the default system; the Simulation's error handling.
#include "ErrorStats.h"
#include "sim/perf/Benchmark.h"
#include "sim/core/CpuKernels.h"
#include "sim/core/Scenario.h"
#include "sim/core/Simulation.h"

#include <QtTest>

#include <cmath>
#include <cstring>

using namespace nbody;

class TestReference : public QObject {
    Q_OBJECT
private slots:
    void momentumConservedByReference_data()
    {
        QTest::addColumn<int>("n");
        for (int n : {2, 31, 1000, 4097})
            QTest::newRow(qPrintable(QString::number(n))) << n;
    }
    void momentumConservedByReference()
    {
        // Newton's third law: Σ m_i a_i = 0. In fp64 each pair's two terms differ by rounding only
        // (a few ulp, 2.2e-16 each), so |Σ m_i a_i| ≤ N · 1e-15 · Σ m_i |a_i| — we assert N · 1e-15.
        QFETCH(int, n);
        CubeParams c;
        c.bodies = std::size_t(n);
        const World w = makeUniformCube(c);
        const auto a = referenceAccelerations(w.positions().data(), w.size(), 0.002, 1.0);
        double sx = 0, sy = 0, sz = 0, scale = 0;
        for (std::size_t i = 0; i < w.size(); ++i) {
            const double m = w.positions()[i].w;
            sx += m * a[i].x; sy += m * a[i].y; sz += m * a[i].z;
            scale += m * std::sqrt(a[i].x * a[i].x + a[i].y * a[i].y + a[i].z * a[i].z);
        }
        const double rel = std::sqrt(sx * sx + sy * sy + sz * sz) / scale;
        qInfo("N=%d |sum m a| / sum m|a| = %.3g", n, rel);
        QCOMPARE_LE(rel, n * 1e-15);
    }
    void cpuKernelMatchesReference_data()
    {
        QTest::addColumn<int>("n");
        for (int n : {1, 2, 31, 33, 1000, 4097})
            QTest::newRow(qPrintable(QString::number(n))) << n;
    }
    void cpuKernelMatchesReference()
    {
        // fp32 accumulation of N terms: relative error ≲ √N · 6e-8 (random rounding) ≈ 4e-6 at
        // N = 4097; the floor is stated in ErrorStats.h. Bound: 1e-4, as for every fp32 kernel.
        QFETCH(int, n);
        CubeParams c;
        c.bodies = std::size_t(n);
        c.seed = 7;
        const World w = makeUniformCube(c);
        SimParams p;
        const auto ref = referenceAccelerations(w.positions().data(), w.size(), p.eps2, p.G);
        for (const char* id : {"cpu", "reference"}) {
            const auto a = evaluateAccelerations(id, w, p);
            const nbody::ForceError e = relativeErrors(a, ref);
            qInfo("%s N=%d max %.3g median %.3g", id, n, e.max, e.median);
            QCOMPARE_LE(e.max, 1e-4);
        }
    }
    void fp64StateIsKept()
    {
        // cpu → reference widens the fp32 state exactly; 10 fp64 steps then differ from 10 fp32
        // steps (the fp64 state is really advanced in double); reference → cpu rounds it.
        CubeParams c;
        c.bodies = 257;
        const World w = makeUniformCube(c);
        Simulation s64(w, SimParams{}, "cpu");
        s64.setKernel("reference");
        QVERIFY(std::memcmp(s64.world().positions().data(), w.positions().data(), 257 * sizeof(Float4)) == 0);
        Simulation s32(w, SimParams{}, "cpu");
        s64.step(10);
        s32.step(10);
        double maxDiff = 0;
        for (std::size_t i = 0; i < w.size(); ++i)
            maxDiff = std::max(maxDiff, double(std::abs(s64.world().positions()[i].x - s32.world().positions()[i].x)));
        qInfo("fp64 vs fp32 state after 10 steps: max |dx| %.3g", maxDiff);
        QVERIFY(maxDiff > 0);       // not the fp32 computation
        QVERIFY(maxDiff < 1e-2 * 1e5); // but the same physics
        // The fp64 energy is measured on the fp64 state: dE/E of 10 KDK steps is small.
        const Diagnostics d = s64.measure();
        QVERIFY(std::isfinite(d.total) && d.total != 0);
        const World rounded = s64.world();
        s64.setKernel("cpu");
        QVERIFY(std::memcmp(s64.world().positions().data(), rounded.positions().data(), 257 * sizeof(Float4)) == 0);
        QCOMPARE(s64.stepCount(), std::uint64_t(10));
        s64.step(1);
        QCOMPARE(s64.stepCount(), std::uint64_t(11));
    }
    void benchmarkMedian()
    {
        QCOMPARE(median({}), 0.0);
        QCOMPARE(median({3, 1, 2}), 2.0);
        QCOMPARE(median({4, 1, 3, 2}), 2.5);
        QCOMPARE(median({7, 7}), 7.0);
    }
    void cubeIsTheDefaultSystem()
    {
        const World w = makeUniformCube(CubeParams{});
        QCOMPARE(w.size(), std::size_t(8192));
        const auto [lo, hi] = w.massRange();
        QVERIFY(lo >= 1e5f && hi <= 1e9f);
        QVERIFY(hi - lo > 0.99e9f); // 8192 uniform draws span nearly the whole range
        for (const Float4& p : w.positions())
            QVERIFY(std::abs(p.x) <= 1e5f && std::abs(p.y) <= 1e5f && std::abs(p.z) <= 1e5f);
        // Reproducible: the same seed gives bit-identical bodies, another seed others.
        const World again = makeUniformCube(CubeParams{});
        QVERIFY(std::equal(w.positions().begin(), w.positions().end(), again.positions().begin(),
                           [](const Float4& a, const Float4& b) { return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w; }));
        CubeParams other;
        other.seed = 43;
        QVERIFY(makeUniformCube(other).positions()[0].x != w.positions()[0].x);
        // Uniform: the mean of x is 0 within 4σ, σ = 1e5/√3/√N.
        double mean = 0;
        for (const Float4& p : w.positions())
            mean += p.x;
        mean /= double(w.size());
        QCOMPARE_LE(std::abs(mean), 4 * 1e5 / std::sqrt(3.0) / std::sqrt(8192.0));
    }
    void runsAreReproducible()
    {
        CubeParams c;
        c.bodies = 333;
        Simulation a(makeUniformCube(c), SimParams{}, "cpu");
        Simulation b(makeUniformCube(c), SimParams{}, "cpu");
        a.step(5);
        b.step(5);
        QCOMPARE(std::memcmp(a.world().positions().data(), b.world().positions().data(), 333 * sizeof(Float4)), 0);
        QCOMPARE(a.stepCount(), std::uint64_t(5));
        QVERIFY(std::abs(a.time() - 0.5) < 1e-6);
    }
    void badInputIsRefused()
    {
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, makeUniformCube(CubeParams{0}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, Simulation(World{}, SimParams{}, "cpu"));
        CubeParams c;
        c.bodies = 10;
        const World w = makeUniformCube(c);
        try {
            Simulation s(w, SimParams{}, "nosuch");
            QFAIL("an unknown kernel was accepted");
        } catch (const std::invalid_argument& e) {
            QVERIFY(QString(e.what()).contains("nosuch"));
            QVERIFY(QString(e.what()).contains("cpu"));
        }
        Simulation s(w, SimParams{}, "cpu");
        SimParams bad;
        bad.dt = std::nanf("");
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, s.setParams(bad));
        bad = SimParams{};
        bad.blockRows = -1; // 0 is auto (the tuned or default value); negative values are refused
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, s.setParams(bad));
        bad = SimParams{};
        bad.blockRows = 0;
        bad.tileWidthFactor = 0;
        s.setParams(bad);
        bad = SimParams{};
        bad.eps2 = -1;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, s.setParams(bad));
        QCOMPARE(s.params().eps2, SimParams{}.eps2); // the old parameters are kept
        World nan = w;
        nan.positions()[3].y = std::nanf("");
        try {
            s.setWorld(nan);
            QFAIL("a NaN position was accepted");
        } catch (const std::invalid_argument& e) {
            QVERIFY(QString(e.what()).contains("body 3"));
        }
        QCOMPARE(s.size(), std::size_t(10)); // the running system is kept
        World negative;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, negative.addBody({0, 0, 0, -1}, {}));
    }
    void scaleDefaults()
    {
        // Two unit masses at ±1 on x: M = 2, R_rms = 1, t_dyn = sqrt(1/(G·2)), ε = 1·2^(−1/3)/4.
        World w;
        w.addBody({1, 0, 0, 1}, {});
        w.addBody({-1, 0, 0, 1}, {});
        const ScaleDefaults d = deriveScaleDefaults(w, 1.0);
        QCOMPARE_LE(std::abs(d.rmsRadius - 1.0), 1e-12);
        QCOMPARE_LE(std::abs(d.dynamicalTime - std::sqrt(0.5)), 1e-12);
        QCOMPARE_LE(std::abs(d.dt - std::sqrt(0.5) / 1000), 1e-9);
        const double eps = std::pow(2.0, -1.0 / 3.0) / 4;
        QCOMPARE_LE(std::abs(d.eps2 - eps * eps), 1e-8);
    }
    void framing()
    {
        World w;
        for (int i = 0; i < 100; ++i)
            w.addBody({float(i % 2 ? 10 : -10), 0, 0, 1}, {});
        w.addBody({1e6f, 0, 0, 0}, {}); // a massless escaper: ignored by the 98 % radius
        const FramingSphere f = framingSphere(w);
        QCOMPARE_LE(std::abs(f.x), 1e-9);
        QCOMPARE_LE(std::abs(f.radius - 10.0), 1e-9);
        // A compact system is framed whole: the outermost body (12) is within 1.5 × 10.
        World compact;
        for (int i = 0; i < 100; ++i)
            compact.addBody({float(i % 2 ? 10 : -10), 0, 0, 1}, {});
        compact.addBody({12, 0, 0, 0}, {});
        QCOMPARE_LE(std::abs(framingSphere(compact).radius - 12.0), 1e-6);
    }
};

QTEST_APPLESS_MAIN(TestReference)
#include "tst_reference.moc"
