// Every kernel of the registry (CPU and CUDA, every layout and precision) against the fp64
// reference; the GPU pipeline against the CPU pipeline; determinism; state carried across
// kernel and layout switches; refusal of parameters the device cannot launch. CUDA rows skip
// without a device (and in a CPU-only build); they run on the GPU machine (scripts/gpu-check.sh).
#include "ErrorStats.h"
#include "sim/CpuKernels.h"
#include "sim/Scenario.h"
#include "sim/Simulation.h"

#include <QtTest>

#include <cstring>
#include <memory>

using namespace nbody;

namespace {

QString qid(std::string_view id)
{
    return QString::fromUtf8(id.data(), int(id.size()));
}

QString whyUnavailable(const KernelInfo& k)
{
    const Availability a = availability(k);
    return a.available ? QString() : qid(k.id) + ": " + QString::fromStdString(a.reason);
}

World cube(int n, std::uint64_t seed = 11)
{
    CubeParams c;
    c.bodies = std::size_t(n);
    c.seed = seed;
    return makeUniformCube(c);
}

/// Bitwise equality of two columns.
template <class V>
bool sameBits(const std::vector<V>& a, const std::vector<V>& b)
{
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(V)) == 0;
}

/// Launch parameter variants of a row: (label, blockSize, blockRows, tileWidthFactor).
struct Variant {
    const char* label;
    int block, rows, factor;
};

std::vector<Variant> variantsOf(const KernelInfo& k)
{
    std::vector<Variant> v{{"default", 256, 1, 1}};
    if (k.params.blockSize)
        v.push_back({"b96", 96, 1, 1}); // not a power of two: the generic reduction tree
    if (k.params.tileWidthFactor) {
        v.push_back({"b128x2", 128, 1, 2});
        v.push_back({"b64x4", 64, 1, 4});
    }
    if (k.params.blockRows)
        v.push_back({"b64r4", 64, 4, 1}); // four rows per block, and the grid-stride over rows
    return v;
}

} // namespace

// QSKIP returns from the calling test function, so this is a macro.
#define SKIP_UNLESS_AVAILABLE(k)                                                                   \
    do {                                                                                           \
        if (const QString why = whyUnavailable(k); !why.isEmpty())                                 \
            QSKIP(qPrintable(why));                                                                \
    } while (0)

class TestKernels : public QObject {
    Q_OBJECT
private slots:
    void againstReference_data()
    {
        QTest::addColumn<QString>("kernel");
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("block");
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("factor");
        QTest::addColumn<float>("eps2");
        const float eps2 = SimParams{}.eps2;
        for (const KernelInfo& k : kernelRegistry()) {
            const QString id = qid(k.id);
            for (int n : {1, 2, 31, 33, 1000, 4097, 8192}) {
                for (const Variant& v : variantsOf(k))
                    QTest::addRow("%s N=%d %s", qPrintable(id), n, v.label)
                        << id << n << v.block << v.rows << v.factor << eps2;
                // ε² = 0: the zero-distance guard path (self-terms must not give NaN).
                QTest::addRow("%s N=%d eps2=0", qPrintable(id), n) << id << n << 256 << 1 << 1 << 0.f;
            }
        }
    }
    void againstReference()
    {
        QFETCH(QString, kernel);
        QFETCH(int, n);
        QFETCH(int, block);
        QFETCH(int, rows);
        QFETCH(int, factor);
        QFETCH(float, eps2);
        const KernelInfo* k = findKernel(kernel.toStdString());
        QVERIFY(k);
        SKIP_UNLESS_AVAILABLE(*k);
        const World w = cube(n);
        SimParams p;
        p.blockSize = block;
        p.blockRows = rows;
        p.tileWidthFactor = factor;
        p.eps2 = eps2;
        const auto ref = referenceAccelerations(w.positions().data(), w.size(), p.eps2, p.G);
        const auto a = evaluateAccelerations(k->id, w, p);
        QCOMPARE(a.size(), w.size());
        const nbody::ForceError e = relativeErrors(a, ref);
        qInfo("%s N=%d block %dx%d tile x%d eps2 %g: max rel. error %.3g (body %zu), median %.3g", qPrintable(kernel), n,
              block, rows, factor, double(eps2), e.max, e.worstBody, e.median);
        // Bounds (floor 1e-3 · RMS|a_ref|, ErrorStats.h). fp32: the accumulation of N terms
        // rounds to ≲ √N · 6e-8 ≈ 5e-6 at N = 8192 plus ≤ 2 ulp of the hardware rsqrt per term;
        // 1e-4 leaves a factor 20. fp64: the same with 1.1e-16 per operation, ≲ 1e-13, and the
        // floor can amplify a cancelling body's absolute error by at most 1e3: 1e-10.
        QCOMPARE_LE(e.max, k->precision == Precision::Fp32 ? 1e-4 : 1e-10);
        if (k->deterministic) {
            const auto again = evaluateAccelerations(k->id, w, p);
            QVERIFY2(sameBits(a, again), "a deterministic kernel gave different bits on a second run");
        }
    }
    void pipelineMatchesCpu_data()
    {
        QTest::addColumn<QString>("kernel");
        for (const KernelInfo& k : kernelRegistry())
            if (k.backend == Backend::Cuda)
                QTest::newRow(k.id.data()) << qid(k.id);
    }
    void pipelineMatchesCpu()
    {
        // 20 KDK steps of 1000 bodies on the GPU and on the CPU in the same precision (fp32 kernels
        // against `cpu`, fp64 ones against `reference`): the trajectories agree to the kernels'
        // force error amplified by 20 steps of chaotic motion — 1e-3 of the system's extent for
        // fp32 is far above that and far below any integrator bug (a missing half kick moves
        // bodies by ~50 % of their displacement). fp64 kernels agree to the fp32 rounding of the
        // compared positions (6e-8 · 1e5 per coordinate): fp64 round-off, amplified ~1e6 by the
        // encounters, stays below 1e-5. (fp32 against fp64 states differ by ~3e3 here: the
        // cube's close encounters amplify fp32 rounding, which is why the precisions are kept
        // apart.)
        QFETCH(QString, kernel);
        const KernelInfo* k = findKernel(kernel.toStdString());
        SKIP_UNLESS_AVAILABLE(*k);
        const World w = cube(1000, 3);
        const SimParams p; // dt = 0.1: bodies move ~1e2 in 20 steps
        Simulation gpu(w, p, k->id);
        Simulation cpu(w, p, k->precision == Precision::Fp32 ? "cpu" : "reference");
        gpu.step(20);
        cpu.step(20);
        QCOMPARE(gpu.stepCount(), std::uint64_t(20));
        const auto& xg = gpu.world().positions();
        const auto& xc = cpu.world().positions();
        double maxDiff = 0, maxMove = 0;
        for (std::size_t i = 0; i < w.size(); ++i) {
            maxDiff = std::max({maxDiff, double(std::abs(xg[i].x - xc[i].x)), double(std::abs(xg[i].y - xc[i].y)),
                                double(std::abs(xg[i].z - xc[i].z))});
            maxMove = std::max(maxMove, double(std::abs(xc[i].x - w.positions()[i].x)));
            QCOMPARE(xg[i].w, xc[i].w); // masses travel with the positions through both buffers
        }
        qInfo("%s: max position difference %.3g (bodies moved up to %.3g)", qPrintable(kernel), maxDiff, maxMove);
        QVERIFY(maxMove > 1.0); // the system did move
        QCOMPARE_LE(maxDiff, k->precision == Precision::Fp32 ? 1e-3 * 1e5 : 2 * 6e-8 * 1e5);
        // Switching kernels keeps the state: GPU → CPU → GPU continues from the same point.
        gpu.setKernel("cpu");
        QCOMPARE(gpu.stepCount(), std::uint64_t(20));
        gpu.setKernel(k->id);
        gpu.step(1);
        QCOMPARE(gpu.stepCount(), std::uint64_t(21));
    }
    void switchingKeepsState()
    {
        // Through every available kernel in turn (every layout and precision, host and device):
        // each switch carries the state exactly — float4 ↔ float3 copies x, y, z; fp32 → fp64
        // widens exactly and fp64 → fp32 rounds a widened value back to itself.
        Simulation sim(cube(517), SimParams{}, "cpu");
        sim.step(3);
        const World before = sim.world();
        for (const KernelInfo& k : kernelRegistry()) {
            if (!availability(k).available)
                continue;
            sim.setKernel(k.id);
            const World& now = sim.world();
            QVERIFY2(sameBits(now.positions(), before.positions()), k.id.data());
            QVERIFY2(sameBits(now.velocities(), before.velocities()), k.id.data());
            QCOMPARE(sim.stepCount(), std::uint64_t(3));
        }
        sim.step(2);
        QCOMPARE(sim.stepCount(), std::uint64_t(5));
        QCOMPARE(QString::fromStdString(sim.checkFinite()), QString());
    }
    void detectsNonFiniteState_data()
    {
        QTest::addColumn<QString>("kernel");
        for (const KernelInfo& k : kernelRegistry())
            QTest::newRow(k.id.data()) << qid(k.id);
    }
    void detectsNonFiniteState()
    {
        // checkFinite() ("" for a sane state) and a message naming a body after G = 1e308 and
        // dt = 1e29 sent everything to infinity (in fp64 too: a ~ 1e308 · Σ m/r², v = a dt
        // overflows); on the device it is a flag kernel reading 4 bytes back.
        QFETCH(QString, kernel);
        const KernelInfo* k = findKernel(kernel.toStdString());
        SKIP_UNLESS_AVAILABLE(*k);
        SimParams p;
        Simulation ok(cube(300), p, k->id);
        ok.step(2);
        QCOMPARE(QString::fromStdString(ok.checkFinite()), QString());
        p.dt = 1e29f;
        p.G = 1e308;
        Simulation bad(cube(300), p, k->id);
        bad.step(2);
        const QString why = QString::fromStdString(bad.checkFinite());
        qInfo("%s", qPrintable(why));
        QVERIFY(why.contains("not finite"));
    }
    void refusesUnlaunchableParameters_data()
    {
        QTest::addColumn<QString>("kernel");
        QTest::addColumn<int>("block");
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("factor");
        QTest::addColumn<QString>("limit");
        QTest::newRow("tiled block 4096") << "tiled" << 4096 << 1 << 1 << "threads per block";
        QTest::newRow("tiled 1 MiB tile") << "tiled" << 1024 << 1 << 64 << "shared memory";
        QTest::newRow("tiled-fp64 512 KiB tile") << "tiled-fp64" << 1024 << 1 << 16 << "shared memory";
        QTest::newRow("reduction2d 64x32") << "reduction2d" << 64 << 32 << 1 << "threads per block";
        QTest::newRow("reduction2d-fadl4-float3 2048") << "reduction2d-fadl4-float3" << 2048 << 1 << 1
                                                       << "threads per block";
        QTest::newRow("warp-shuffle block 48") << "warp-shuffle" << 48 << 1 << 1 << "warp size";
    }
    void refusesUnlaunchableParameters()
    {
        QFETCH(QString, kernel);
        QFETCH(int, block);
        QFETCH(int, rows);
        QFETCH(int, factor);
        QFETCH(QString, limit);
        const KernelInfo* k = findKernel(kernel.toStdString());
        QVERIFY(k);
        SKIP_UNLESS_AVAILABLE(*k);
        Simulation sim(cube(100), SimParams{}, k->id);
        SimParams p;
        p.blockSize = block;
        p.blockRows = rows;
        p.tileWidthFactor = factor;
        try {
            sim.setParams(p);
            QFAIL("unlaunchable parameters were accepted");
        } catch (const std::invalid_argument& e) {
            qInfo("%s", e.what());
            QVERIFY2(QString(e.what()).contains(limit), e.what());
        }
        QCOMPARE(sim.params().blockSize, SimParams{}.blockSize); // the old parameters are kept
        sim.step(2);                                              // and still run
        QCOMPARE(sim.stepCount(), std::uint64_t(2));
        // Selecting the kernel with such parameters is refused the same way.
        Simulation other(cube(100), p, "cpu");
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, other.setKernel(k->id));
        QCOMPARE(qid(other.kernel().id), QString("cpu"));
    }
    void timedForceEvaluation_data() { detectsNonFiniteState_data(); }
    void timedForceEvaluation()
    {
        // The benchmark's clock: positive milliseconds, and the accelerations it leaves are the
        // kernel's (same bits as computeAccelerations for a deterministic kernel).
        QFETCH(QString, kernel);
        const KernelInfo* k = findKernel(kernel.toStdString());
        SKIP_UNLESS_AVAILABLE(*k);
        Simulation sim(cube(1000), SimParams{}, k->id);
        const double ms = sim.timedForceEvaluation();
        QVERIFY(ms > 0 && std::isfinite(ms));
        if (k->deterministic)
            QVERIFY(sameBits(sim.accelerations64(), evaluateAccelerations(k->id, cube(1000), SimParams{})));
    }
    void graphsMatchPlainLaunches_data()
    {
        QTest::addColumn<QString>("kernel");
        QTest::addColumn<int>("n");
        QTest::addColumn<QString>("integrator");
        for (const KernelInfo& k : kernelRegistry())
            if (k.backend == Backend::Cuda && k.deterministic)
                for (const int n : {1000, 4097})
                    for (const char* integrator : {"leapfrog", "yoshida4"})
                        QTest::addRow("%s N=%d %s", k.id.data(), n, integrator) << qid(k.id) << n << QString(integrator);
    }
    void graphsMatchPlainLaunches()
    {
        // 50 steps replayed from CUDA graphs against 50 steps of plain launches: the same bits
        // (positions, velocities and accelerations in the kernel's precision), and the diagnostics
        // every 10 steps at the same steps with the same values. The steps come in calls of
        // 1, 7 and 12 (so graphs are replayed across calls), dt changes after step 30 (the graphs
        // must be captured again) and leapfrog's one substep swaps the buffers every step (a
        // graph per start buffer), Yoshida's three do too. A deterministic kernel only: atomics
        // may add in another order on every run, graph or not.
        QFETCH(QString, kernel);
        QFETCH(int, n);
        QFETCH(QString, integrator);
        const KernelInfo* k = findKernel(kernel.toStdString());
        SKIP_UNLESS_AVAILABLE(*k);
        const World w = cube(n, 5);
        SimParams p;
        p.integrator = integrator.toStdString();
        p.diagnosticsInterval = 10;
        struct Run {
            std::unique_ptr<Simulation> sim;
            std::vector<Diagnostics> diagnostics;
        };
        auto run = [&](bool graphs) {
            SimParams q = p;
            q.cudaGraphs = graphs;
            Run r{std::make_unique<Simulation>(w, q, k->id), {}};
            r.sim->setDiagnosticsObserver([&r](const Diagnostics& d) { r.diagnostics.push_back(d); });
            for (const int count : {1, 1, 1, 7, 12, 8}) // to step 30
                r.sim->step(count);
            q.dt *= 0.5f;
            r.sim->setParams(q);
            for (const int count : {12, 8}) // to step 50
                r.sim->step(count);
            return r;
        };
        const Run plain = run(false);
        const Run graphs = run(true);
        const GraphStats gs = graphs.sim->graphStats();
        const GraphStats ps = plain.sim->graphStats();
        qInfo("graphs: %llu captured, %llu steps replayed, %llu plain%s", (unsigned long long)gs.captures,
              (unsigned long long)gs.replays, (unsigned long long)gs.plainSteps,
              gs.failure.empty() ? "" : (", capture failed: " + gs.failure).c_str());
        QVERIFY2(gs.failure.empty(), gs.failure.c_str());
        QCOMPARE(ps.replays, std::uint64_t(0));
        QCOMPARE(ps.plainSteps, std::uint64_t(50));
        // A warm-up step and a capture per configuration (two start buffers: every row here swaps
        // them, one or three substeps); 48 of the 50 steps replayed.
        QCOMPARE(gs.captures, std::uint64_t(4));
        QCOMPARE(gs.plainSteps, std::uint64_t(2));
        QCOMPARE(gs.replays, std::uint64_t(48));

        QCOMPARE(graphs.sim->stepCount(), std::uint64_t(50));
        QCOMPARE(graphs.sim->currentBuffer(), plain.sim->currentBuffer());
        const Fp64State a = graphs.sim->state64();
        const Fp64State b = plain.sim->state64();
        QVERIFY2(sameBits(a.position, b.position), "positions differ between graph replays and plain launches");
        QVERIFY2(sameBits(a.velocity, b.velocity), "velocities differ");
        QVERIFY2(sameBits(a.acceleration, b.acceleration), "accelerations differ");
        QCOMPARE(graphs.diagnostics.size(), std::size_t(6)); // E0, then steps 10, 20, …, 50
        QCOMPARE(plain.diagnostics.size(), graphs.diagnostics.size());
        for (std::size_t i = 0; i < plain.diagnostics.size(); ++i) {
            const Diagnostics& d = graphs.diagnostics[i];
            const Diagnostics& e = plain.diagnostics[i];
            QCOMPARE(d.step, std::uint64_t(10 * i));
            QCOMPARE(d.step, e.step);
            QVERIFY2(std::memcmp(&d.kinetic, &e.kinetic, sizeof d.kinetic) == 0 &&
                         std::memcmp(&d.potential, &e.potential, sizeof d.potential) == 0,
                     qPrintable(QStringLiteral("diagnostics at step %1 differ").arg(d.step)));
        }
        QCOMPARE(QString::fromStdString(graphs.sim->checkFinite()), QString());
    }
    void cpuOnlyBuildSaysWhy()
    {
        if (builtWithCuda())
            QSKIP("built with CUDA");
        for (const KernelInfo& k : kernelRegistry()) {
            if (k.backend != Backend::Cuda)
                continue;
            const Availability a = availability(k);
            QVERIFY(!a.available);
            QVERIFY(QString::fromStdString(a.reason).contains("without CUDA"));
        }
    }
};

QTEST_APPLESS_MAIN(TestKernels)
#include "tst_kernels.moc"
