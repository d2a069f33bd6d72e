// The GPU diagnostics (kernels/DiagnosticsKernels.cu through DeviceState::measure and
// Simulation::measure) against the host fp64 evaluation, for the three state layouts, N that is
// no multiple of any block size, and several block sizes. Qt Core only; every row skips without
// a CUDA device (it runs on the GPU machine through scripts/gpu-check.sh).
//
// Tolerances (u32 = 2^-24 ≈ 6.0e-8, u64 = 2^-53 ≈ 1.1e-16):
//  - Pair sum W, fp32 layouts. Each pair term −m_j / sqrt(|r_ij|² + ε²) is evaluated in fp32 from
//    the same fp32 inputs the host widens: r = x_j − x_i is one rounding (u32 relative); r² + ε²
//    is three products and three additions of non-negative terms (≤ 6 u32); rsqrtf is accurate
//    to 2 ulp (≤ 4 u32) and halves the error of its argument (3 u32); the product with m_j adds
//    1 u32: at most 8 u32 = 4.8e-7 relative per term. All terms have the same sign, so the sum
//    keeps that relative bound; the fp64 accumulation on both sides adds ≤ (2N + 48) u64.
//  - Pair sum W, fp64 layout: the same chain in fp64 (device rsqrt ≤ 1 ulp): ≤ (2N + 56) u64.
//  - Per-body sums: fp64 products of the same inputs (a few u64 each); the device adds with a
//    tree, the host sequentially per thread, each ≤ N u64 times the sum of |terms|: we allow
//    (2N + 48) u64 · Σ|terms|, where Σ|terms| is computed below for each quantity (for sums of
//    positive terms, M and K, that is the value itself).
#include "DiagnosticsTestData.h"
#include "sim/core/Diagnostics.h"
#include "sim/core/KernelRegistry.h"
#include "sim/core/Simulation.h"

#if NBODY_HAVE_CUDA
#include "kernels/DeviceState.h"
#endif

#include <QtTest>

#include <QElapsedTimer>

#include <cmath>
#include <cstring>
#include <random>

using namespace nbody;

namespace {

constexpr double kU32 = 0x1p-24;
constexpr double kU64 = 0x1p-53;

QString whyNoDevice()
{
    const Availability a = availability(*findKernel("tiled"));
    return a.available ? QString() : QString::fromStdString(a.reason);
}

/// N bodies with positions in ±1e3 around (5e3, −2e3, 1e3) (an off-centre system, so the
/// centre of mass and L are far from 0), velocities in ±10, masses in [0.5, 2]. fp64: values
/// that fp32 cannot represent (the double4 layout keeps them).
Fp64State randomState(int n, bool fp32Values, std::uint64_t seed = 5)
{
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> pos(-1e3, 1e3), vel(-10, 10), mass(0.5, 2);
    auto r = [&](std::uniform_real_distribution<double>& d) {
        const double v = d(rng);
        return fp32Values ? double(float(v)) : v;
    };
    Fp64State s;
    for (int i = 0; i < n; ++i) {
        const double x = 5e3 + r(pos), y = -2e3 + r(pos), z = 1e3 + r(pos), m = r(mass);
        s.position.push_back({x, y, z, m});
        s.velocity.push_back({r(vel), r(vel), r(vel), 0});
        s.acceleration.push_back({});
    }
    return s;
}

/// Σ|terms| of each per-body sum, the scale of its rounding error.
struct Scales {
    double mr = 0, p = 0, l = 0;
};
Scales scalesOf(const Fp64State& s)
{
    Scales c;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const Double4 &x = s.position[i], &v = s.velocity[i];
        const double m = x.w;
        c.mr += m * (std::abs(x.x) + std::abs(x.y) + std::abs(x.z));
        c.p += m * (std::abs(v.x) + std::abs(v.y) + std::abs(v.z));
        c.l += m * (std::abs(x.y * v.z) + std::abs(x.z * v.y) + std::abs(x.z * v.x) + std::abs(x.x * v.z) +
                    std::abs(x.x * v.y) + std::abs(x.y * v.x));
    }
    return c;
}

double maxDiff(const Double3& a, const Double3& b)
{
    return std::max({std::abs(a.x - b.x), std::abs(a.y - b.y), std::abs(a.z - b.z)});
}

/// Compares device and host sums with the tolerances derived at the top of this file.
[[maybe_unused]] void compareSums(const DiagnosticSums& dev, const DiagnosticSums& host, const Scales& sc, std::size_t n,
                 bool fp32Pairs)
{
    const double acc = (2.0 * double(n) + 48) * kU64;
    const double tolW = (fp32Pairs ? 8 * kU32 : 8 * kU64) + acc;
    qInfo("N=%zu: |dW|/|W| = %.3g (bound %.3g), |dK|/K = %.3g, |dL|/sum|L terms| = %.3g", n,
          host.pairSum != 0 ? std::abs(dev.pairSum - host.pairSum) / std::abs(host.pairSum) : 0.0, tolW,
          host.kinetic != 0 ? std::abs(dev.kinetic - host.kinetic) / host.kinetic : 0.0,
          sc.l != 0 ? maxDiff(dev.angularMomentum, host.angularMomentum) / sc.l : 0.0);
    QCOMPARE_LE(std::abs(dev.pairSum - host.pairSum), tolW * std::abs(host.pairSum));
    QCOMPARE_LE(std::abs(dev.mass - host.mass), acc * host.mass);
    QCOMPARE_LE(std::abs(dev.kinetic - host.kinetic), acc * host.kinetic);
    QCOMPARE_LE(maxDiff(dev.massMoment, host.massMoment), acc * sc.mr);
    QCOMPARE_LE(maxDiff(dev.momentum, host.momentum), acc * sc.p);
    QCOMPARE_LE(maxDiff(dev.angularMomentum, host.angularMomentum), acc * sc.l);
    if (n == 1)
        QCOMPARE(dev.pairSum, 0.0); // no pairs: the self-term is skipped, not softened
}

} // namespace

#define SKIP_WITHOUT_DEVICE()                                                                      \
    do {                                                                                           \
        if (const QString why = whyNoDevice(); !why.isEmpty())                                     \
            QSKIP(qPrintable(why));                                                                \
    } while (0)

class TestGpuDiagnostics : public QObject {
    Q_OBJECT
private slots:
    void againstHost_data()
    {
        QTest::addColumn<int>("layout");
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("block");
        for (Layout l : {Layout::Float4, Layout::Float3, Layout::Double4})
            for (int n : {1, 2, 31, 1000, 4097})
                for (int block : {0, 96, 1024}) // 0: the occupancy calculator's choice; 96: no power of two
                    QTest::addRow("%s N=%d block=%d", toString(l).data(), n, block) << int(l) << n << block;
    }
    void againstHost()
    {
        QFETCH(int, layout);
        QFETCH(int, n);
        QFETCH(int, block);
        SKIP_WITHOUT_DEVICE();
#if NBODY_HAVE_CUDA
        const Layout l = Layout(layout);
        const bool fp64 = l == Layout::Double4;
        const double eps2 = double(0.5f); // fp32 kernels round ε²: choose one fp32 holds exactly
        const Fp64State s = randomState(n, !fp64);
        DeviceState ds(std::size_t(n), l, PositionStorage::Owned);
        DiagnosticSums host;
        if (fp64) {
            ds.upload(s, 0);
            host = measureSums(s.position, s.velocity, eps2);
        } else {
            const World w = toWorld(s); // exact: the values are fp32 already
            ds.upload(w, 0);
            host = measureSums(w.positions(), w.velocities(), eps2);
        }
        compareSums(ds.measure(0, eps2, block), host, scalesOf(s), std::size_t(n), !fp64);
#else
        Q_UNUSED(layout) Q_UNUSED(n) Q_UNUSED(block)
#endif
    }
    void deterministic()
    {
        SKIP_WITHOUT_DEVICE();
#if NBODY_HAVE_CUDA
        // Fixed order of every addition: two evaluations give the same bits.
        for (Layout l : {Layout::Float4, Layout::Float3, Layout::Double4}) {
            const Fp64State s = randomState(4097, l != Layout::Double4);
            DeviceState ds(s.size(), l, PositionStorage::Owned);
            if (l == Layout::Double4)
                ds.upload(s, 0);
            else
                ds.upload(toWorld(s), 0);
            const DiagnosticSums a = ds.measure(0, 0.5), b = ds.measure(0, 0.5);
            QVERIFY(std::memcmp(&a, &b, sizeof a) == 0);
        }
#endif
    }
    void refusesBlockSizesTheDeviceCannotRun()
    {
        SKIP_WITHOUT_DEVICE();
#if NBODY_HAVE_CUDA
        DeviceState ds(10, Layout::Float4, PositionStorage::Owned);
        ds.upload(toWorld(randomState(10, true)), 0);
        try {
            ds.measure(0, 0.5, 4096);
            QFAIL("a block of 4096 threads was accepted");
        } catch (const std::invalid_argument& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains("maximum threads per block"), e.what());
        }
#endif
    }
    void simulationMeasuresOnDevice_data()
    {
        QTest::addColumn<QString>("kernel");
        QTest::newRow("tiled (float4)") << "tiled";
        QTest::newRow("reduction2d-float3 (float3)") << "reduction2d-float3";
        QTest::newRow("tiled-fp64 (double4)") << "tiled-fp64";
    }
    void simulationMeasuresOnDevice()
    {
        QFETCH(QString, kernel);
        SKIP_WITHOUT_DEVICE();
        // The Simulation's evaluations with a CUDA kernel (on the device) against the host's of
        // the same state: at the start (the state is the World, widened exactly for fp64), then
        // for fp32 kernels after steps (world() downloads the very state the device measured).
        const int n = 1000;
        const World w = toWorld(randomState(n, true));
        SimParams p;
        p.eps2 = 0.5f;
        p.dt = 1e-3f;
        p.diagnosticsInterval = 2;
        Simulation sim(w, p, kernel.toStdString());
        QVERIFY(sim.deviceResident());
        const bool fp32 = sim.kernel().precision == Precision::Fp32;
        const Fp64State s0 = widen(w);
        const DiagnosticSums host0 = measureSums(s0.position, s0.velocity, p.eps2);
        const Diagnostics d0 = sim.measure();
        const Diagnostics h0 = finishDiagnostics(host0, p.G);
        const double tolW = (fp32 ? 8 * kU32 : 8 * kU64) + (2.0 * n + 48) * kU64;
        QCOMPARE_LE(std::abs(d0.potential - h0.potential), tolW * std::abs(h0.potential));
        QCOMPARE_LE(std::abs(d0.kinetic - h0.kinetic), (2.0 * n + 48) * kU64 * h0.kinetic);
        QList<Diagnostics> seen;
        sim.setDiagnosticsObserver([&](const Diagnostics& d) { seen << d; });
        sim.step(5); // evaluations at steps 0, 2, 4
        QCOMPARE(seen.size(), 3);
        QCOMPARE(seen.last().step, std::uint64_t(4));
        const Diagnostics now = sim.measure();
        QCOMPARE(now.step, std::uint64_t(5));
        QCOMPARE(now.energyChange, relativeEnergyChange(seen.front(), now));
        QCOMPARE_LE(std::abs(now.energyChange), 1e-4); // 5 small steps of a softened system
        if (fp32) {
            const Diagnostics h = measureDiagnostics(sim.world(), p.G, p.eps2);
            QCOMPARE_LE(std::abs(now.potential - h.potential), tolW * std::abs(h.potential));
            QCOMPARE_LE(std::abs(now.kinetic - h.kinetic), (2.0 * n + 48) * kU64 * h.kinetic);
            QCOMPARE_LE(maxDiff(now.angularMomentum, h.angularMomentum),
                        (2.0 * n + 48) * kU64 * scalesOf(widen(sim.world())).l);
        }
    }
    void timing()
    {
        SKIP_WITHOUT_DEVICE();
#if NBODY_HAVE_CUDA
        // Informational (no threshold): one evaluation of N = 262144 bodies per layout.
        const int n = 262144;
        for (Layout l : {Layout::Float4, Layout::Float3, Layout::Double4}) {
            const Fp64State s = randomState(n, l != Layout::Double4);
            DeviceState ds(s.size(), l, PositionStorage::Owned);
            if (l == Layout::Double4)
                ds.upload(s, 0);
            else
                ds.upload(toWorld(s), 0);
            ds.measure(0, 0.5); // warm-up (module load, workspace)
            QElapsedTimer t;
            t.start();
            const DiagnosticSums d = ds.measure(0, 0.5);
            qInfo("diagnostics of N = %d, layout %s: %.2f ms (W = %.6g)", n, toString(l).data(),
                  double(t.nsecsElapsed()) * 1e-6, d.pairSum);
            QVERIFY(std::isfinite(d.pairSum) && d.pairSum < 0);
        }
#endif
    }
};

QTEST_GUILESS_MAIN(TestGpuDiagnostics)
#include "tst_gpu_diagnostics.moc"
