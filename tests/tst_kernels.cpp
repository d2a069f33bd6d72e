// Every kernel of the registry (CPU and CUDA, every layout and precision) against the fp64
// reference; the GPU pipeline against the CPU pipeline; determinism; state carried across
// kernel and layout switches; refusal of parameters the device cannot launch. CUDA rows skip
// without a device (and in a CPU-only build); they run on the GPU machine (scripts/gpu-check.sh).
#include "ErrorStats.h"
#include "sim/core/CpuKernels.h"
#include "sim/core/Scenario.h"
#include "sim/core/Simulation.h"

#include <QtTest>

#include <omp.h>

#include <cmath>
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

/// Launch parameter variants of a row: (label, blockSize, blockRows, tileWidthFactor, bodies per
/// thread, j-split, unroll); 0 = auto (the row's default or the tuned value).
struct Variant {
    const char* label;
    int block, rows, factor;
    int bodiesPerThread = 0, jSplit = 0, unroll = 0;
};

std::vector<Variant> variantsOf(const KernelInfo& k)
{
    // "default": every launch parameter 0 (auto), resolved from the tuning cache or the row's defaults.
    std::vector<Variant> v{{"default", 0, 0, 0}};
    if (k.params.bodiesPerThread) {
        // Every compiled bodies-per-thread and unroll value, splits that leave a short last
        // chunk (N = 4097 over 3 or 7 rows), one row, and more rows than tiles (clamped).
        v.push_back({"b32 r1 s1 u1", 32, 1, 1, 1, 1, 1});
        v.push_back({"b64 r2 s3 u2", 64, 1, 1, 2, 3, 2});
        v.push_back({"b128 r4 s7 u4", 128, 1, 1, 4, 7, 4});
        v.push_back({"b96 r8 s2 u8", 96, 1, 1, 8, 2, 8});
        v.push_back({"b256 r4 s1000 u8", 256, 1, 1, 4, 1000, 8});
        return v;
    }
    if (k.params.blockSize) {
        v.push_back({"b256", 256, 1, 1}); // the fixed default of the older rows, set explicitly
        v.push_back({"b96", 96, 1, 1});   // not a power of two: the generic reduction tree
    }
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
        QTest::addColumn<int>("bodiesPerThread");
        QTest::addColumn<int>("jSplit");
        QTest::addColumn<int>("unroll");
        QTest::addColumn<float>("eps2");
        const float eps2 = SimParams{}.eps2;
        for (const KernelInfo& k : kernelRegistry()) {
            if (k.method == ForceMethod::Tree)
                continue; // approximate by design: tst_tree holds them to the tree's accuracy goal
            const QString id = qid(k.id);
            for (int n : {1, 2, 31, 33, 1000, 4097, 8192}) {
                for (const Variant& v : variantsOf(k))
                    QTest::addRow("%s N=%d %s", qPrintable(id), n, v.label)
                        << id << n << v.block << v.rows << v.factor << v.bodiesPerThread << v.jSplit << v.unroll
                        << eps2;
                // ε² = 0: the zero-distance guard path (self-terms must not give NaN).
                QTest::addRow("%s N=%d eps2=0", qPrintable(id), n) << id << n << 0 << 0 << 0 << 0 << 0 << 0 << 0.f;
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
        QFETCH(int, bodiesPerThread);
        QFETCH(int, jSplit);
        QFETCH(int, unroll);
        QFETCH(float, eps2);
        const KernelInfo* k = findKernel(kernel.toStdString());
        QVERIFY(k);
        SKIP_UNLESS_AVAILABLE(*k);
        const World w = cube(n);
        SimParams p;
        p.blockSize = block;
        p.blockRows = rows;
        p.tileWidthFactor = factor;
        p.bodiesPerThread = bodiesPerThread;
        p.jSplit = jSplit;
        p.unroll = unroll;
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
    // The force contract's i-range (HostForceArgs/DeviceForceArgs::iBegin, iEnd): every row of
    // the registry computes the bodies of a sub-range, each over all N, bit for bit equal to the
    // same rows of the full result with a deterministic kernel (the distributed backend relies on
    // it), and within the reference bound otherwise. Ranges that start inside a SIMD group or a
    // thread block, one body, the first and last rows, and the uneven shares of 3 processes.
    void rowRangeMatchesFullRows_data()
    {
        QTest::addColumn<QString>("kernel");
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("begin");
        QTest::addColumn<int>("end");
        for (const KernelInfo& k : kernelRegistry()) {
            const QString id = qid(k.id);
            for (int n : {1, 2, 31, 33, 1000, 4097}) {
                std::vector<std::pair<int, int>> ranges{{0, n}, {n - 1, n}, {0, (n + 1) / 2}, {n / 2, n}};
                if (n > 40)
                    ranges.insert(ranges.end(), {{5, n - 7}, {17, 18}, {33, 33 + 64}});
                for (int r = 0; r < 3 && n >= 3; ++r) // the shares of 3 processes (Distributed.h)
                    ranges.emplace_back(r * (n / 3) + std::min(r, n % 3), (r + 1) * (n / 3) + std::min(r + 1, n % 3));
                for (const auto& [b, e] : ranges)
                    QTest::addRow("%s N=%d [%d,%d)", qPrintable(id), n, b, e) << id << n << b << e;
            }
        }
    }
    void rowRangeMatchesFullRows()
    {
        QFETCH(QString, kernel);
        QFETCH(int, n);
        QFETCH(int, begin);
        QFETCH(int, end);
        const KernelInfo* k = findKernel(kernel.toStdString());
        QVERIFY(k);
        SKIP_UNLESS_AVAILABLE(*k);
        const World w = cube(n);
        const SimParams p;
        const auto full = evaluateAccelerations(k->id, w, p);
        const auto all = evaluateAccelerationRows(k->id, w, p, std::size_t(begin), std::size_t(end));
        QCOMPARE(all.size(), w.size());
        // Outside the range the kernel writes nothing: the rows keep a new system's zeros.
        for (int i = 0; i < n; ++i)
            if (i < begin || i >= end)
                QVERIFY2(all[std::size_t(i)].x == 0 && all[std::size_t(i)].y == 0 && all[std::size_t(i)].z == 0,
                         qPrintable(QStringLiteral("row %1 outside [%2, %3) was written").arg(i).arg(begin).arg(end)));
        const std::vector<Double4> rows(all.begin() + begin, all.begin() + end);
        const std::vector<Double4> same(full.begin() + begin, full.begin() + end);
        if (k->deterministic) {
            QVERIFY2(sameBits(rows, same), "the rows of a sub-range differ from those of the full evaluation");
        } else {
            const auto ref = referenceAccelerations(w.positions().data(), w.size(), p.eps2, p.G);
            std::vector<Double3> refRows(ref.begin() + begin, ref.begin() + end);
            if (!rows.empty())
                QCOMPARE_LE(relativeErrors(rows, refRows).max, 1e-4);
        }
    }
    void rowRangeRefused()
    {
        const World w = cube(10);
        for (const auto& [b, e] : {std::pair<std::size_t, std::size_t>{3, 2}, {0, 11}, {11, kAllRows}}) {
            try {
                (void)evaluateAccelerationRows("cpu", w, SimParams{}, b, e);
                QFAIL("a range outside the bodies was accepted");
            } catch (const std::invalid_argument& x) {
                QVERIFY2(QString(x.what()).contains("are not a range of the 10 bodies"), x.what());
            }
        }
        // The SIMD kernel directly: acc rows outside the range are left as they were.
        std::vector<Float4> acc(w.size(), Float4{7.f, 7.f, 7.f, 7.f});
        HostForceArgs a{w.positions().data(), acc.data(), w.size(), 0.002, 1.0};
        a.iBegin = 4;
        a.iEnd = 6;
        cpuForcesFp32(a);
        for (std::size_t i = 0; i < w.size(); ++i) {
            const bool inside = i >= 4 && i < 6;
            QCOMPARE(acc[i].w, inside ? 0.f : 7.f);
            QCOMPARE(acc[i].x == 7.f, !inside);
        }
    }
    // The `cpu` kernel on every Highway target compiled in that this CPU runs (EMU128, SSSE3,
    // SSE4, AVX2, AVX3 on x86-64), not only the one the dispatch picks: against the fp64
    // reference with the againstReference bound (1e-4; each term is within ~1e-6 of m/r³ after
    // the Newton step, the fp32 sum of N terms adds ≲ √N·6e-8), with ε² = 0, with coincident
    // bodies (pairs at zero distance: the guard with ε² = 0, (ε²)^{-3/2} finite otherwise), and
    // bit-identical for 1 thread and all threads (each i sums j in order in its own lane).
    void everySimdTarget_data()
    {
        QTest::addColumn<qlonglong>("target");
        QTest::addColumn<int>("n");
        QTest::addColumn<float>("eps2");
        QTest::addColumn<bool>("coincident");
        const float eps2 = SimParams{}.eps2;
        const auto targets = cpuSimdTargets();
        QVERIFY(!targets.empty());
        for (std::int64_t t : targets) {
            const std::string name = cpuSimdTargetName(t);
            for (int n : {1, 2, 31, 33, 1000, 4097}) {
                QTest::addRow("%s N=%d default", name.c_str(), n) << qlonglong(t) << n << eps2 << false;
                QTest::addRow("%s N=%d eps2=0", name.c_str(), n) << qlonglong(t) << n << 0.f << false;
                QTest::addRow("%s N=%d eps2=0 coincident", name.c_str(), n) << qlonglong(t) << n << 0.f << true;
                QTest::addRow("%s N=%d coincident", name.c_str(), n) << qlonglong(t) << n << eps2 << true;
            }
        }
    }
    void everySimdTarget()
    {
        QFETCH(qlonglong, target);
        QFETCH(int, n);
        QFETCH(float, eps2);
        QFETCH(bool, coincident);
        std::vector<Float4> pos = cube(n).positions();
        if (coincident) // bodies 2k and 2k+1 at the same place (different masses)
            for (std::size_t i = 1; i < pos.size(); i += 2)
                pos[i] = Float4{pos[i - 1].x, pos[i - 1].y, pos[i - 1].z, pos[i].w};
        const double G = SimParams{}.G;
        std::vector<Float4> acc(pos.size(), Float4{-1.f, -1.f, -1.f, -1.f});
        HostForceArgs args{pos.data(), acc.data(), pos.size(), double(eps2), G};
        QCOMPARE(cpuForcesFp32OnTarget(args, target), std::int64_t(target));
        std::vector<Double4> a(pos.size());
        for (std::size_t i = 0; i < pos.size(); ++i) {
            QVERIFY2(std::isfinite(acc[i].x) && std::isfinite(acc[i].y) && std::isfinite(acc[i].z),
                     qPrintable(QString("body %1 is not finite").arg(i)));
            QCOMPARE(acc[i].w, 0.f);
            a[i] = Double4{acc[i].x, acc[i].y, acc[i].z, 0.0};
        }
        const auto ref = referenceAccelerations(pos.data(), pos.size(), double(eps2), G);
        const nbody::ForceError e = relativeErrors(a, ref);
        qInfo("%s N=%d eps2 %g%s: max rel. error %.3g (body %zu), median %.3g", cpuSimdTargetName(target).c_str(), n,
              double(eps2), coincident ? " coincident" : "", e.max, e.worstBody, e.median);
        QCOMPARE_LE(e.max, 1e-4);
        // The same bits on one thread as on all of them.
        std::vector<Float4> one(pos.size());
        HostForceArgs oneArgs = args;
        oneArgs.acc = one.data();
        const int threads = omp_get_max_threads();
        omp_set_num_threads(1);
        cpuForcesFp32OnTarget(oneArgs, target);
        omp_set_num_threads(threads);
        QVERIFY2(sameBits(acc, one), "1 thread and all threads gave different bits");
    }
    // The reciprocal square root of the `cpu` kernel (hardware estimate + one Newton step;
    // EMU128: bit-trick estimate + two) over every float in [1, 4): the estimates depend on the
    // mantissa and the exponent's parity only, so this covers all normal inputs. Derived bound:
    // 1.5·e² with e ≤ 1.5·2^-12 (rsqrtps) is 2.0e-7, plus the rounding of the 4 fp32 operations
    // of the step (≲ 2·2^-24 relative after the final multiply dominates): 3e-7.
    void rsqrtRefinement_data()
    {
        QTest::addColumn<qlonglong>("target");
        for (std::int64_t t : cpuSimdTargets())
            QTest::newRow(cpuSimdTargetName(t).c_str()) << qlonglong(t);
    }
    void rsqrtRefinement()
    {
        QFETCH(qlonglong, target);
        std::vector<float> x;
        x.reserve(std::size_t(1) << 24);
        for (float v = 1.f; v < 4.f; v = std::nextafter(v, 5.f))
            x.push_back(v);
        std::vector<float> y(x.size());
        QCOMPARE(cpuRsqrtOnTarget(x.data(), y.data(), x.size(), target), std::int64_t(target));
        double worst = 0;
        float at = 0;
        for (std::size_t k = 0; k < x.size(); ++k) {
            const double err = std::abs(double(y[k]) * std::sqrt(double(x[k])) - 1.0);
            if (err > worst) {
                worst = err;
                at = x[k];
            }
        }
        qInfo("%s: max |u·sqrt(x) - 1| = %.3g (%.2f·2^-23) at x = %.9g over %zu floats in [1, 4)",
              cpuSimdTargetName(target).c_str(), worst, worst / std::ldexp(1.0, -23), double(at), x.size());
        QCOMPARE_LE(worst, 3e-7);
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
    void refusesBlockedParameters_data()
    {
        QTest::addColumn<QString>("kernel");
        QTest::addColumn<int>("block");
        QTest::addColumn<int>("bodiesPerThread");
        QTest::addColumn<int>("unroll");
        QTest::addColumn<QString>("limit");
        for (const char* id : {"blocked", "blocked-fp64"}) {
            QTest::addRow("%s block 48", id) << id << 48 << 4 << 4 << "warp size";
            QTest::addRow("%s block 2048", id) << id << 2048 << 1 << 1 << "threads per block";
            QTest::addRow("%s 3 per thread", id) << id << 128 << 3 << 4 << "bodies per thread 3";
            QTest::addRow("%s unroll 16", id) << id << 128 << 4 << 16 << "unroll 16";
        }
        // 8 fp64 bodies per thread do not fit 1024 threads' registers: the compiled kernel says so.
        QTest::newRow("blocked-fp64 1024 x 8") << "blocked-fp64" << 1024 << 8 << 8 << "registers";
    }
    void refusesBlockedParameters()
    {
        QFETCH(QString, kernel);
        QFETCH(int, block);
        QFETCH(int, bodiesPerThread);
        QFETCH(int, unroll);
        QFETCH(QString, limit);
        const KernelInfo* k = findKernel(kernel.toStdString());
        QVERIFY(k);
        SKIP_UNLESS_AVAILABLE(*k);
        SimParams p;
        p.blockSize = block;
        p.bodiesPerThread = bodiesPerThread;
        p.unroll = unroll;
        try {
            Simulation sim(cube(100), p, k->id);
            QFAIL("unlaunchable parameters were accepted");
        } catch (const std::invalid_argument& e) {
            qInfo("%s", e.what());
            QVERIFY2(QString(e.what()).contains(limit), e.what());
        }
    }
    void largeNSampled_data()
    {
        QTest::addColumn<QString>("kernel");
        for (const KernelInfo& k : kernelRegistry())
            if (k.backend == Backend::Cuda && k.params.bodiesPerThread)
                QTest::newRow(k.id.data()) << qid(k.id);
    }
    void largeNSampled()
    {
        // N = 1 048 583 (prime, above 1e6, no multiple of any block size) with the auto launch:
        // the accelerations of 1500 bodies drawn with a fixed seed against the fp64 sum over all
        // N. Bound: an fp32 running sum of ~1e6 terms rounds like a random walk, √N · 6e-8 ≈ 6e-5
        // of |a| for a typical body; a body whose pull nearly cancels is measured against the
        // floor of 1e-3 · RMS|a| (ErrorStats.h), which scales its absolute error up by as much as
        // ten: 1e-3. Measured on the H200 with one grid row (the longest sums): max 8.6e-4,
        // median 7.0e-5. fp64: 1e-10 as in againstReference (measured 8.6e-16).
        QFETCH(QString, kernel);
        const KernelInfo* k = findKernel(kernel.toStdString());
        SKIP_UNLESS_AVAILABLE(*k);
        const int n = 1048583;
        const World w = cube(n, 5);
        const SimParams p;
        const auto a = evaluateAccelerations(k->id, w, p);
        QCOMPARE(a.size(), w.size());
        std::vector<std::size_t> sample;
        std::uint64_t state = 12345;
        for (int s = 0; s < 1500; ++s) {
            state = state * 6364136223846793005ULL + 1442695040888963407ULL;
            sample.push_back(std::size_t((state >> 33) % std::uint64_t(n)));
        }
        const auto ref = referenceAccelerationsAt(w.positions().data(), w.size(), sample, p.eps2, p.G);
        std::vector<Double4> got(sample.size());
        for (std::size_t s = 0; s < sample.size(); ++s)
            got[s] = a[sample[s]];
        const nbody::ForceError e = relativeErrors(got, ref);
        qInfo("%s N=%d, %zu sampled bodies: max rel. error %.3g, median %.3g", qPrintable(kernel), n, sample.size(),
              e.max, e.median);
        QCOMPARE_LE(e.max, k->precision == Precision::Fp32 ? 1e-3 : 1e-10);
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
