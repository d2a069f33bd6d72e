// The validation engine (sim/validate/Validation.h): correct kernels pass, a faulty kernel fails with the
// step-0 force error it really has, a kernel that throws is reported and the others go on,
// non-finite runs fail, cancellation stops the run, bad input is refused. CUDA rows join the
// "every available kernel passes" row on a GPU machine (label gpu).
#include "DroppedTileKernel.h"
#include "sim/base/DeviceInfo.h"
#include "sim/core/CpuKernels.h"
#include "sim/core/SampledReference.h"
#include "sim/core/Models.h"
#include "sim/core/Simulation.h"
#include "sim/validate/Validation.h"
#include "sim/validate/ValidationReport.h"

#include <QtTest>

#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

using namespace nbody;

namespace {

constexpr std::size_t kTile = 64; ///< tile width of the faulty kernel

void nanForces(const HostForceArgs& a)
{
    auto* acc = static_cast<Float4*>(a.acc);
    const RowRange rows = rowRange(a.iBegin, a.iEnd, a.n); // the contract's i-range
    for (std::size_t i = rows.begin; i < rows.end; ++i)
        acc[i] = Float4{std::numeric_limits<float>::quiet_NaN(), 0, 0, 0};
}

void throwingForces(const HostForceArgs&) { throw std::runtime_error("simulated device failure"); }

KernelInfo testRow(std::string_view id, HostForceFn fn)
{
    KernelInfo k = *findKernel("cpu");
    k.id = id;
    k.name = id;
    k.host = fn;
    return k;
}

const KernelInfo kDroppedTile = testkernels::droppedTileRow<kTile>("test-dropped-tile", "test-dropped-tile");
const KernelInfo kNan = testRow("test-nan", nanForces);
const KernelInfo kThrowing = testRow("test-throwing", throwingForces);

/// A Plummer sphere in Hénon units (crossing time 2√2 ≈ 2.8): N = 777 (no multiple of any
/// block size; 777 = 12·64 + 9, so the faulty kernel drops 9 bodies), dt = 1/128 (≈ 360 steps
/// per crossing time), ε² = 1e-4 (ε well below the interparticle distance ~ 0.1).
ModelBodies plummer(std::size_t n = 777)
{
    PlummerParams p;
    p.bodies = n;
    p.seed = 7;
    return makePlummer(p);
}

ValidationConfig config(std::vector<const KernelInfo*> kernels, std::uint64_t steps = 200, int checkpoints = 20)
{
    ValidationConfig c;
    c.kernels = std::move(kernels);
    c.steps = steps;
    c.checkpoints = checkpoints;
    c.params.dt = 1.0f / 128;
    c.params.eps2 = 1e-4f;
    c.system = "Plummer sphere";
    return c;
}

const KernelValidation& resultOf(const ValidationReport& r, std::string_view id)
{
    for (const KernelValidation& k : r.kernels)
        if (k.id == id)
            return k;
    throw std::logic_error("no result for " + std::string(id));
}

QString reasons(const KernelValidation& k)
{
    QString out;
    for (const std::string& s : k.reasons)
        out += QString::fromStdString(s) + "; ";
    return out;
}

} // namespace

class TestValidation : public QObject {
    Q_OBJECT

private slots:
    /// forceError and fieldErrors against values computed by hand.
    void errorMeasuresClosedForm()
    {
        // Reference |a| = 1, 2, 0 (the third nearly cancels): RMS = sqrt(5/3), floor = 1e-3·RMS.
        const std::vector<Double4> ref{{1, 0, 0, 0}, {0, 2, 0, 0}, {0, 0, 0, 0}};
        const std::vector<Double4> a{{1.1, 0, 0, 0}, {0, 2, 0.02, 0}, {0, 0, 1e-3, 0}};
        const ForceError f = forceError(a, ref);
        const double floor = 1e-3 * std::sqrt(5.0 / 3.0);
        QCOMPARE(f.floor, floor);
        // Errors: 0.1 / 1, 0.02 / 2 = 0.01, 1e-3 / floor = 0.7746.
        QVERIFY(std::abs(f.max - 1e-3 / floor) < 1e-12);
        QCOMPARE(f.worstBody, std::size_t(2));
        QVERIFY(std::abs(f.median - 0.1) < 1e-12);
        QVERIFY(std::abs(f.p99 - f.max) < 1e-12); // nearest rank ⌈0.99·3⌉ = 3: the max

        ValidationThresholds t;
        const FieldErrors e = fieldErrors(a, ref, t);
        QCOMPARE(e.components, std::size_t(9));
        QVERIFY(std::abs(e.absolute.max - 0.1) < 1e-12);
        QVERIFY(std::abs(e.absolute.median - 0.02) < 1e-12);
        QVERIFY(std::abs(e.absolute.rms - std::sqrt((0.01 + 4e-4 + 1e-6) / 3)) < 1e-12);
        // Predecessor's relative test |Δ| ≤ 1 % · min(|u|, |u_ref|) per component: x of body 0
        // (0.1 > 0.01), z of body 1 (0.02 > 0.01·0) and z of body 2 (1e-3 > 0) miss; the zero
        // components with Δ = 0 pass (0 ≤ 0).
        QCOMPARE(e.predecessorRelativeMisses, std::size_t(3));
        // Absolute test |Δ| ≤ 0.01: body 0 x (0.1) and body 1 z (0.02) miss.
        QCOMPARE(e.predecessorAbsoluteMisses, std::size_t(2));

        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, forceError(a, {ref[0]}));
    }

    /// The per-body rule of all-pairs rows (checkForceBodies) on constructed forces, N = 2²⁰ terms
    /// (u·√N = 2⁻¹⁴ in fp32), k = 8: a body passes on its relative error ≤ 1e-4 or on
    /// |Δa_i| ≤ 8·u·√N·S_i.
    void forceBodyRuleConstructedCases()
    {
        const std::size_t n = std::size_t(1) << 20;
        const double u = std::ldexp(1.0, -24), scale = 8 * u * 1024; // 8·u·√N = 4.88e-4
        // Bodies 0 and 1: no cancellation (S_i ≈ |a_i|), exact. Body 2 near the centre of the
        // system: its pulls cancel to |a_2| = 0.05 out of S_2 = 0.7. Its error 2.115e-5, the
        // rounding of its sum (0.5·u·√N·S_2 = 2.1e-5: the size measured at N = 2²⁰ in fp32), is
        // 4.23e-4 of |a_2|: over the relative threshold, within the bound 8·u·√N·S_2 = 3.42e-4.
        const std::vector<Double4> ref{{1, 0, 0, 0}, {0, 1, 0, 0}, {0.05, 0, 0, 0}};
        const std::vector<double> S{1.5, 1.2, 0.7};
        std::vector<Double4> a = ref;
        a[2].y = 2.115e-5;
        ValidationThresholds t;
        QCOMPARE(t.roundingK, 8.0);
        // Today's fixed rule alone (max relative error ≤ 1e-4) fails it: floor = 1e-3·RMS|a| ≈ 8e-4 < 0.05.
        const ForceError old = forceError(a, ref);
        QVERIFY(std::abs(old.max - 4.23e-4) <= 1e-12);
        QVERIFY(old.max > t.forceFp32);
        ForceBodyCheck c = checkForceBodies(a, ref, S, n, Precision::Fp32, t);
        QCOMPARE(c.failing, std::size_t(0));
        QCOMPARE(c.compared, std::size_t(3));
        QCOMPARE(c.terms, n);
        QCOMPARE(c.unitRoundoff, u);
        QCOMPARE(c.relativeLimit, 1e-4);
        QCOMPARE(c.body, std::size_t(2)); // nearest to failing: the only body with an error
        QVERIFY(std::abs(c.relative - 4.23e-4) <= 1e-12);
        QVERIFY(std::abs(c.absolute - 2.115e-5) <= 1e-18);
        QVERIFY(std::abs(c.bound - scale * 0.7) <= 1e-18);
        QCOMPARE(c.magnitudeSum, 0.7);
        // excess = min(4.23e-4 / 1e-4, 2.115e-5 / 3.418e-4) = 0.0619; kNeeded = 2.115e-5 / (u√N·0.7) = 0.495.
        QVERIFY(std::abs(c.excess - 2.115e-5 / (scale * 0.7)) <= 1e-12);
        QVERIFY(std::abs(c.kNeeded - 2.115e-5 / (u * 1024 * 0.7)) <= 1e-12);

        // A bug at the same body: a missing pull of 4e-4 (a dropped neighbour, a wrong ε²) is 8e-3
        // of |a_2| and beyond 8·u·√N·S_2 = 3.42e-4: it fails both tests, and the reason says so.
        a[2].y = 4e-4;
        c = checkForceBodies(a, ref, S, n, Precision::Fp32, t);
        QCOMPARE(c.failing, std::size_t(1));
        QCOMPARE(c.body, std::size_t(2));
        QVERIFY(c.relative > c.relativeLimit && c.absolute > c.bound);
        QVERIFY(std::abs(c.excess - 4e-4 / (scale * 0.7)) <= 1e-12); // 1.17: min(80, 1.17)
        QCOMPARE(QString::fromStdString(describeFailingBodies(c)),
                 QString("1 of 3 bodies fail both tests, most of all body 2: relative error 8.00e-03 > 1e-04 and "
                         "|\u0394a_i| 4.00e-04 > 8 u sqrt(N) S_i = 3.42e-04 (S_i 7.00e-01, N 1048576, u 5.96e-08)"));
        // A body without cancellation is not let off by the bound: |Δa_0| = 2e-4 of |a_0| = S_0/1.5
        // is within 8·u·√N·S_0 = 7.3e-4, so it passes; 1e-3 is over both.
        a[2].y = 0;
        a[0].x = 1 + 2e-4;
        QCOMPARE(checkForceBodies(a, ref, S, n, Precision::Fp32, t).failing, std::size_t(0));
        a[0].x = 1 + 1e-3;
        QCOMPARE(checkForceBodies(a, ref, S, n, Precision::Fp32, t).failing, std::size_t(1));
        // fp64 rows: the same rule with u = 2⁻⁵³ and forceFp64 = 1e-10: an error of 1e-9 of |a_2|
        // (5e-11) fails; within 8·2⁻⁵³·1024·0.7 = 6.4e-13 it passes.
        a = ref;
        a[2].x += 5e-11;
        c = checkForceBodies(a, ref, S, n, Precision::Fp64, t);
        QCOMPARE(c.failing, std::size_t(1));
        QCOMPARE(c.unitRoundoff, std::ldexp(1.0, -53));
        QVERIFY(std::abs(c.bound - 8 * std::ldexp(1.0, -53) * 1024 * 0.7) <= 1e-25);
        a[2].x = ref[2].x + 5e-13;
        QCOMPARE(checkForceBodies(a, ref, S, n, Precision::Fp64, t).failing, std::size_t(0));
        // A non-finite force fails and is the body named, whatever the others.
        a = ref;
        a[1].z = std::numeric_limits<double>::quiet_NaN();
        a[2].y = 4e-4;
        c = checkForceBodies(a, ref, S, n, Precision::Fp32, t);
        QCOMPARE(c.failing, std::size_t(2));
        QCOMPARE(c.body, std::size_t(1));
        QVERIFY(std::isnan(c.excess) && std::isnan(c.kNeeded));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, checkForceBodies(a, ref, {1.0}, n, Precision::Fp32, t));
    }

    /// The fp64 references' magnitude sums S_i = |G| Σ_j m_j |r_ij| / (|r_ij|² + ε²)^{3/2} against
    /// the closed form of three bodies (G = 2): m = 1 at the origin, m = 2 at (3, 4, 0) (|r| = 5),
    /// m = 0.5 at (0, 0, −1) (|r| = 1 from the origin, √26 from the second), with ε² = 0.25 and
    /// ε² = 0 (the self-term contributes nothing); every entry point (all N, the listed bodies, the
    /// sampled reference) and both position types. The accelerations are the same bits with or
    /// without S.
    void magnitudeSumsClosedForm()
    {
        const std::vector<Float4> pos32{{0, 0, 0, 1}, {3, 4, 0, 2}, {0, 0, -1, 0.5f}};
        const std::vector<Double4> pos64{{0, 0, 0, 1}, {3, 4, 0, 2}, {0, 0, -1, 0.5}};
        const double G = 2;
        for (const double eps2 : {0.25, 0.0}) {
            const auto t = [&](double m, double r) { return m * r / std::pow(r * r + eps2, 1.5); };
            const double r12 = std::sqrt(26.0);
            const std::vector<double> expected{G * (t(2, 5) + t(0.5, 1)), G * (t(1, 5) + t(0.5, r12)),
                                               G * (t(1, 1) + t(2, r12))};
            const auto close = [&](const std::vector<double>& got, const std::vector<std::size_t>& which) {
                if (got.size() != which.size())
                    return false;
                for (std::size_t s = 0; s < which.size(); ++s)
                    if (!(std::abs(got[s] - expected[which[s]]) <= 1e-14 * expected[which[s]]))
                        return false;
                return true;
            };
            const std::vector<std::size_t> all{0, 1, 2}, some{2, 0};
            std::vector<double> S;
            const std::vector<Double3> a32 = referenceAccelerations(pos32.data(), 3, eps2, G, &S);
            QVERIFY2(close(S, all), qPrintable(QString("eps2 %1: %2 %3 %4").arg(eps2).arg(S[0], 0, 'g', 17).arg(S[1], 0, 'g', 17).arg(S[2], 0, 'g', 17)));
            QVERIFY(std::memcmp(a32.data(), referenceAccelerations(pos32.data(), 3, eps2, G).data(), 3 * sizeof(Double3)) == 0);
            const std::vector<Double3> a64 = referenceAccelerations(pos64.data(), 3, eps2, G, &S);
            QVERIFY(close(S, all));
            QVERIFY(std::memcmp(a64.data(), referenceAccelerations(pos64.data(), 3, eps2, G).data(), 3 * sizeof(Double3)) == 0);
            const std::vector<Double3> at = referenceAccelerationsAt(pos64.data(), 3, some, eps2, G, &S);
            QVERIFY(close(S, some));
            QVERIFY(std::memcmp(at.data(), referenceAccelerationsAt(pos64.data(), 3, some, eps2, G).data(), 2 * sizeof(Double3)) == 0);
            QVERIFY(close(sampledReference(pos32.data(), 3, some, eps2, G).magnitudeSum, some));
            QVERIFY(close(sampledReference(pos64.data(), 3, some, eps2, G).magnitudeSum, some));
            // |a_i| ≤ S_i (the triangle inequality), equal only when the pulls are parallel.
            for (std::size_t i = 0; i < 3; ++i)
                QVERIFY(std::sqrt(a64[i].x * a64[i].x + a64[i].y * a64[i].y + a64[i].z * a64[i].z) <= expected[i]);
        }
    }

    void roundingBoundSeparatesRoundingFromBugs_data()
    {
        QTest::addColumn<qulonglong>("bodies");
        QTest::newRow("65537") << qulonglong(65537);
        QTest::newRow("200003") << qulonglong(200003);
    }

    /// The bound against real kernels and real bugs at N = 65 537 and 200 003 (a Plummer sphere,
    /// ε² = 1e-4; about 1000 sampled bodies, each against all N in fp64 on the exact state, as
    /// validate() samples): the `cpu` kernel (fp32, SIMD) passes with room (measured kNeeded
    /// 0.63 and 0.5, k = 8), while the same kernel with one tile of 256 source bodies dropped, or
    /// with ε² 10 % too large, fails both tests.
    void roundingBoundSeparatesRoundingFromBugs()
    {
        QFETCH(qulonglong, bodies);
        const std::size_t n = bodies;
        const ModelBodies m = plummer(n);
        const double eps2 = 1e-4, G = 1;
        std::vector<std::size_t> which;
        std::vector<std::uint32_t> rows;
        for (std::size_t i = 5; i < n; i += n / 1024) {
            which.push_back(i);
            rows.push_back(std::uint32_t(i));
        }
        std::vector<double> S;
        const std::vector<Double3> ref3 = referenceAccelerationsAt(m.exact->position.data(), n, which, eps2, G, &S);
        std::vector<Double4> ref(which.size());
        for (std::size_t s = 0; s < which.size(); ++s)
            ref[s] = Double4{ref3[s].x, ref3[s].y, ref3[s].z, 0};
        // The cpu kernel on the fp32 state, the sampled rows only.
        const auto cpu = [&](double e2) {
            std::vector<Float4> acc(n);
            HostForceArgs args;
            args.pos = m.world.positions().data();
            args.acc = acc.data();
            args.n = n;
            args.eps2 = e2;
            args.G = G;
            args.active = rows.data();
            args.activeCount = rows.size();
            cpuForcesFp32(args);
            std::vector<Double4> out(which.size());
            for (std::size_t s = 0; s < which.size(); ++s)
                out[s] = Double4{acc[which[s]].x, acc[which[s]].y, acc[which[s]].z, 0};
            return out;
        };
        const ValidationThresholds t;
        const std::vector<Double4> good = cpu(eps2);
        const ForceBodyCheck ok = checkForceBodies(good, ref, S, n, Precision::Fp32, t);
        qInfo("cpu, N = %zu: kNeeded %.3g (body %zu), max relative error %.3g", n, ok.kNeeded, which[ok.body],
              forceError(good, ref).max);
        QCOMPARE(ok.failing, std::size_t(0));
        QVERIFY2(ok.kNeeded > 0 && ok.kNeeded < 1.5, qPrintable(QString::number(ok.kNeeded)));

        // Dropped tile: the pull of bodies N/2 … N/2 + 255 missing (fp64, on the fp32 positions the kernel saw).
        std::vector<Double4> dropped = good;
        for (std::size_t s = 0; s < which.size(); ++s) {
            Double3 tile;
            for (std::size_t j = n / 2; j < n / 2 + 256; ++j)
                bodyBodyInteraction<double>(m.world.positions()[which[s]], m.world.positions()[j], tile, eps2);
            dropped[s].x -= G * tile.x, dropped[s].y -= G * tile.y, dropped[s].z -= G * tile.z;
        }
        const ForceBodyCheck d = checkForceBodies(dropped, ref, S, n, Precision::Fp32, t);
        qInfo("dropped tile: %zu of %zu bodies fail both tests, kNeeded %.3g", d.failing, d.compared, d.kNeeded);
        QVERIFY2(d.failing > 0 && d.relative > d.relativeLimit && d.absolute > d.bound,
                 qPrintable(QString::fromStdString(describeFailingBodies(d))));

        // ε² 10 % too large: every pull at r ≲ ε weakened by up to 14 %.
        const ForceBodyCheck e = checkForceBodies(cpu(1.1 * eps2), ref, S, n, Precision::Fp32, t);
        qInfo("eps2 x 1.1: %zu of %zu bodies fail both tests, kNeeded %.3g", e.failing, e.compared, e.kNeeded);
        QVERIFY2(e.failing > 0 && e.relative > e.relativeLimit && e.absolute > e.bound,
                 qPrintable(QString::fromStdString(describeFailingBodies(e))));
    }

    /// Every available kernel passes on a Plummer sphere (CPU rows here; every CUDA row on a GPU).
    void everyAvailableKernelPasses()
    {
        const ModelBodies m = plummer();
        std::vector<const KernelInfo*> kernels = availableKernelsToValidate();
        kernels.push_back(findKernel("reference")); // the reference against itself: exactly 0
        int progressCalls = 0;
        std::uint64_t lastStep = 0;
        bool monotonic = true;
        const ValidationReport r = validate(m.world, m.exact, config(kernels), [&](const ValidationProgress& p) {
            ++progressCalls;
            monotonic = monotonic && p.step >= lastStep && p.step <= p.steps;
            lastStep = p.step;
        });
        QVERIFY(progressCalls > 20);
        QVERIFY(monotonic);
        QCOMPARE(lastStep, std::uint64_t(200));
        QCOMPARE(r.bodies, std::size_t(777));
        QCOMPARE(r.steps, std::uint64_t(200));
        QCOMPARE(r.kernels.size(), kernels.size());
        QCOMPARE(r.referenceGrowth.size(), std::size_t(21)); // step 0 and 20 checkpoints
        QVERIFY(r.initialEnergy < 0);
        // Leapfrog at 360 steps per crossing time: |ΔE/E0| well below 1e-3 (measured ~1e-5).
        QVERIFY(std::abs(r.referenceEnergyChange) < 1e-3);
        for (const KernelValidation& k : r.kernels) {
            QVERIFY2(k.verdict == Verdict::Pass, qPrintable(QString::fromStdString(k.id) + ": " + reasons(k)));
            QVERIFY(k.finite);
            QCOMPARE(k.growth.size(), std::size_t(21));
            QCOMPARE(k.growth.back().step, std::uint64_t(200));
            QCOMPARE(k.growth[1].step, std::uint64_t(10));
            // Step 0: fp32 kernels start from the rounding of the exact fp64 Plummer state, half an
            // ulp per component: ≤ 2^-24·32·√3 ≈ 3.3e-6 for |x| < 32 (the sampled radii stop near 23).
            if (k.precision == Precision::Fp32)
                QVERIFY(k.growth[0].maxPositionError > 0 && k.growth[0].maxPositionError < 3.3e-6);
            else
                QCOMPARE(k.growth[0].maxPositionError, 0.0);
            // The error growth tells chaos from a bug: after 10 steps every correct kernel is
            // within 1e-4 of the system's size (1) — fp32 rounding of positions is 6e-8.
            QVERIFY2(k.growth[1].maxPositionError < 1e-4, qPrintable(QString::number(k.growth[1].maxPositionError)));
            QCOMPARE(k.position.components, std::size_t(3 * 777));
            // The per-body rule: every body of an all-pairs row passes; kNeeded (the k of
            // |Δa_i| ≤ k·u·√N·S_i this kernel needed) is its margin against roundingK = 8. Tree
            // rows are judged on the distribution only.
            if (k.method == ForceMethod::Tree) {
                QCOMPARE(k.forceBodies.compared, std::size_t(0));
            } else {
                QCOMPARE(k.forceBodies.compared, std::size_t(777));
                QCOMPARE(k.forceBodies.failing, std::size_t(0));
                qInfo("%s: step-0 kNeeded %.3g", k.id.c_str(), k.forceBodies.kNeeded);
            }
            if (k.id == "reference") {
                QCOMPARE(k.force0.max, 0.0);
                QCOMPARE(k.position.absolute.max, 0.0);
                // Same trajectory; the energies differ only by the order of the OpenMP pair sum
                // (fp64, ~1e-14 of E).
                QVERIFY(std::abs(k.energyChange - r.referenceEnergyChange) < 1e-12);
            } else if (k.method == ForceMethod::Tree) {
                // Approximate by design: judged on the distribution (ValidationThresholds::treeForce*).
                QVERIFY(k.force0.max > 0);
                QVERIFY(k.force0.p99 <= r.thresholds.treeForceP99 && k.force0.median <= r.thresholds.treeForceMedian);
                QVERIFY(k.force0.median <= k.force0.p99 && k.force0.p99 <= k.force0.max);
                QVERIFY(k.momentumError0 > 0 && k.momentumError0 < 1e-4); // measured 8e-7 at N = 65 536
            } else if (k.precision == Precision::Fp32) {
                QVERIFY(k.force0.max > 0); // fp32 rounding is there …
                QVERIFY(k.force0.max < 1e-4);
                QVERIFY(k.force0.median <= k.force0.p99 && k.force0.p99 <= k.force0.max);
            }
        }
        // The reference's energy change is that of an independent fp64 run of 200 steps
        // (deterministic forces: the same trajectory; the energy's OpenMP pair sum may add in
        // another order, ~1e-14 of E).
        Simulation ref(m.world, m.exact, config({}).params, "reference");
        const Diagnostics e0 = ref.measure();
        ref.step(200);
        QVERIFY(std::abs(r.referenceEnergyChange - relativeEnergyChange(e0, ref.measure())) < 1e-12);
        QVERIFY(r.allPass());
    }

    /// The kernel that drops the last partial tile fails with the step-0 force error it has:
    /// max_i |a_dropped,i| / max(|a_ref,i|, floor), a_dropped the force of the 9 skipped bodies.
    void droppedTileFails()
    {
        const ModelBodies m = plummer();
        const ValidationConfig c = config({findKernel("cpu"), &kDroppedTile}, 40, 4);
        const ValidationReport r = validate(m.world, m.exact, c);
        const KernelValidation& bad = resultOf(r, "test-dropped-tile");
        QVERIFY(bad.verdict == Verdict::Fail);
        QVERIFY2(bad.reasons.size() >= 1 && bad.reasons.front().rfind("step-0 force error", 0) == 0, qPrintable(reasons(bad)));

        // Expected, in fp64 on the exact initial state the engine starts from.
        const ForceError expected = testkernels::droppedTileError(m.exact->position, kTile, c.params.eps2, c.params.G);
        // The faulty kernel also rounds its result to fp32 and sees fp32 positions (rel. 6e-8 each),
        // far below the dropped-tile error (≥ 1e-3), so the engine's figures agree to 1e-4 relative.
        QVERIFY2(expected.max > 1e-2, qPrintable(QString::number(expected.max)));
        QVERIFY2(std::abs(bad.force0.max - expected.max) <= 1e-4 * expected.max,
                 qPrintable(QString("engine %1, expected %2").arg(bad.force0.max).arg(expected.max)));
        QCOMPARE(bad.force0.worstBody, expected.worstBody);
        QVERIFY(std::abs(bad.force0.median - expected.median) <= 1e-4 * expected.median);
        QVERIFY(bad.reasons.front().find("worst body " + std::to_string(expected.worstBody)) != std::string::npos);
        // The correct kernel in the same run passes.
        QVERIFY(resultOf(r, "cpu").verdict == Verdict::Pass);
        QVERIFY(!r.allPass());
    }

    /// A kernel that throws is an Error with its message; a NaN kernel is non-finite and fails;
    /// the others are unaffected.
    void errorsAndNonFinite()
    {
        const ModelBodies m = plummer(100);
        const ValidationReport r = validate(m.world, m.exact, config({&kThrowing, &kNan, findKernel("cpu")}, 20, 2));
        const KernelValidation& thrown = resultOf(r, "test-throwing");
        QVERIFY(thrown.verdict == Verdict::Error);
        QVERIFY2(thrown.reasons.size() == 1 && thrown.reasons[0].find("simulated device failure") != std::string::npos,
                 qPrintable(reasons(thrown)));
        const KernelValidation& nan = resultOf(r, "test-nan");
        QVERIFY(nan.verdict == Verdict::Fail);
        QVERIFY(!nan.finite);
        QVERIFY(std::isnan(nan.force0.max));
        QVERIFY2(reasons(nan).contains("non-finite"), qPrintable(reasons(nan)));
        QVERIFY(resultOf(r, "cpu").verdict == Verdict::Pass);
    }

    /// Cancelling from the progress callback ends the run with ValidationCancelled within a step
    /// on the CPU (runs on the CPU poll the stop token after every step).
    void cancellation()
    {
        const ModelBodies m = plummer(200);
        std::stop_source source;
        std::uint64_t requestedAt = 0, last = 0;
        QVERIFY_THROWS_EXCEPTION(ValidationCancelled,
                                 validate(m.world, m.exact, config({findKernel("cpu")}, 1000, 1),
                                          [&](const ValidationProgress& p) {
                                              last = p.step;
                                              if (p.step >= 20 && !source.stop_requested()) {
                                                  requestedAt = p.step;
                                                  source.request_stop();
                                              }
                                          },
                                          source.get_token()));
        // One checkpoint (a single chunk of 1000 steps), yet it stopped right after the request.
        QCOMPARE(requestedAt, std::uint64_t(20));
        QCOMPARE(last, requestedAt);
    }

    /// The estimate scales as N²·K and counts the CPU runs (the reference plus CPU kernels).
    void estimateScales()
    {
        const std::vector<const KernelInfo*> cpu{findKernel("cpu")};
        const double small = estimateValidationSeconds(1000, 100, 10, cpu);
        QVERIFY(small > 0 && std::isfinite(small));
        // 1e8 bodies for 1000 steps: 1e16·1001 interactions — beyond any CPU (> a year at 1e11/s).
        QVERIFY(estimateValidationSeconds(100000000, 1000, 50, cpu) > 3.0e7);
        // Ratio of two estimates: N²·K gives 400 (N·K would give 20). Each is timed anew on a
        // machine that may be busy, so allow a factor 10 either way.
        const double big = estimateValidationSeconds(20000, 100, 10, cpu);
        QVERIFY2(big / small > 40 && big / small < 4000, qPrintable(QString::number(big / small)));
    }

    void refusesBadInput()
    {
        const ModelBodies m = plummer(50);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, validate(m.world, m.exact, config({})));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, validate(m.world, m.exact, config({findKernel("cpu")}, 0)));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, validate(m.world, m.exact, config({findKernel("cpu")}, 10, 0)));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, validate(World{}, std::nullopt, config({findKernel("cpu")})));
        ValidationConfig c = config({findKernel("cpu")});
        c.params.dt = std::numeric_limits<float>::quiet_NaN();
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, validate(m.world, m.exact, c));
        if (!builtWithCuda() || !availability(*findKernel("tiled")).available)
            QVERIFY_THROWS_EXCEPTION(std::invalid_argument, validate(m.world, m.exact, config({findKernel("tiled")})));
    }

    /// One body at rest: E0 = 0, so relative energy changes are undefined; the report says so.
    void zeroInitialEnergyIsWarned()
    {
        World one;
        one.addBody({0.5f, 0, 0, 1}, {});
        const ValidationReport r = validate(one, std::nullopt, config({findKernel("cpu")}, 5, 5));
        QCOMPARE(r.initialEnergy, 0.0);
        QCOMPARE(r.warnings.size(), std::size_t(1));
        QVERIFY(r.warnings[0].find("E0 is 0") != std::string::npos);
        QVERIFY(r.kernels[0].verdict == Verdict::Pass); // no force on a lone body: error 0
        QCOMPARE(r.kernels[0].force0.max, 0.0);
    }

    /// `all` is every available row but the reference, in registry order.
    /// Above forceSampleAbove the step-0 force errors come from a sample (each body against all N
    /// in fp64): the sampled figures of `cpu` equal the full comparison's on those bodies, the
    /// report says so, and a tree row states its momentum error.
    void largeNIsSampled()
    {
        const ModelBodies m = plummer();
        ValidationConfig c = config({findKernel("cpu"), findKernel("tree-cpu")}, 2, 1);
        c.forceSampleAbove = 500; // N = 777
        c.forceSample = 300;
        const ValidationReport r = validate(m.world, m.exact, c);
        const KernelValidation& cpu = resultOf(r, "cpu");
        const KernelValidation& tree = resultOf(r, "tree-cpu");
        QCOMPARE(cpu.force0.sampled, std::size_t(300));
        QCOMPARE(tree.force0.sampled, std::size_t(300));
        // The same bodies of the full comparison: the sample's max is at most the full max, and
        // fp32 all-pairs stays within its bound (1e-4) on them.
        const ValidationReport full = validate(m.world, m.exact, config({findKernel("cpu")}, 2, 1));
        QVERIFY(cpu.force0.max > 0 && cpu.force0.max <= resultOf(full, "cpu").force0.max * (1 + 1e-9));
        QVERIFY(tree.verdict == Verdict::Pass);
        // Momentum: all pairs cancel to fp32 rounding (~1e-7 of Σ m|a|), the tree does not exactly.
        QVERIFY2(cpu.momentumError0 < 1e-5, qPrintable(QString::number(cpu.momentumError0)));
        QVERIFY(tree.momentumError0 > 0 && tree.momentumError0 < 1e-4);
        const QString text = QString::fromStdString(validationSummaryText(r));
        QVERIFY2(text.contains("random sample of 300 of the 777 bodies"), qPrintable(text));
        QVERIFY2(text.contains("Tree tree-cpu:") && text.contains("momentum error"), qPrintable(text));
    }

    /// The sampled check (no reference run): the step-0 force errors of the whole sample equal
    /// the full comparison's when the sample is all N (the same fp64 sums, whichever device made
    /// them: the GPU's sum differs from the host's in the order of additions only, ~1e-15
    /// relative, far below fp32's errors of ~1e-6); each kernel's energy change is its own run's,
    /// held to thresholds.energy; the report says what was left out.
    void sampledCheckWithoutReferenceRun()
    {
        const ModelBodies m = plummer();
        ValidationConfig c = config({findKernel("cpu"), &kNan}, 20, 5);
        c.referenceRun = false;
        c.forceSample = 100000; // more than N: every body
        const ValidationReport r = validate(m.world, m.exact, c);
        QVERIFY(!r.referenceRun);
        QVERIFY(!r.sampleReference.empty());
        const KernelValidation& cpu = resultOf(r, "cpu");
        QCOMPARE(cpu.force0.sampled, std::size_t(777));
        const ValidationReport full = validate(m.world, m.exact, config({findKernel("cpu")}, 20, 5));
        const KernelValidation& fullCpu = resultOf(full, "cpu");
        QVERIFY2(std::abs(cpu.force0.max - fullCpu.force0.max) <= 1e-9 * fullCpu.force0.max,
                 qPrintable(QString("%1 vs %2").arg(cpu.force0.max).arg(fullCpu.force0.max)));
        QCOMPARE(cpu.force0.worstBody, fullCpu.force0.worstBody);
        // Its own run of 20 steps: the same as the full run's energy change (the same kernel and
        // steps, measured at the end), and within 1e-4 (leapfrog at dt = 1/128 on this sphere).
        QVERIFY2(std::abs(cpu.energyChange - fullCpu.energyChange) <= 1e-12,
                 qPrintable(QString("%1 vs %2").arg(cpu.energyChange).arg(fullCpu.energyChange)));
        QVERIFY(std::abs(cpu.energyChange) <= 1e-4 && cpu.energyChange != 0);
        QVERIFY2(cpu.verdict == Verdict::Pass, qPrintable(reasons(cpu)));
        QCOMPARE(cpu.position.absolute.max, 0.0); // no trajectory compared
        QVERIFY(cpu.growth.size() == 2);           // step 0 and the end only
        // E₀ of the first run (the fp32 rounding of the exact state): the reference's to ~1e-7.
        QVERIFY2(std::abs(r.initialEnergy - full.initialEnergy) <= 1e-6 * std::abs(full.initialEnergy),
                 qPrintable(QString("%1 vs %2").arg(r.initialEnergy).arg(full.initialEnergy)));
        // A kernel whose forces are NaN fails (non-finite), as in the full check.
        QVERIFY(resultOf(r, "test-nan").verdict == Verdict::Fail);
        const QString text = QString::fromStdString(validationSummaryText(r));
        QVERIFY2(text.contains("Sampled check") && text.contains("trajectories are not compared") &&
                     text.contains("no run of its own"),
                 qPrintable(text));
        const QString js = QString::fromStdString(validationJson(r));
        QVERIFY2(js.contains("\"referenceRun\": false"), qPrintable(js.left(400)));
    }

    /// The sampled fp64 reference on the GPU against the host's loop: the same sums in another
    /// order, so equal to a few units of fp64 rounding (N = 5003 terms of magnitude up to |a|:
    /// ~N·1.1e-16 relative in the worst order; 1e-12 is held), with ε² > 0 and ε² = 0 (the
    /// self-term skipped), and bit-reproducible on a rerun. Without a usable GPU the host loop
    /// is used and says so.
    void sampledReferenceOnTheGpuMatchesTheHost()
    {
        const ModelBodies m = plummer(5003);
        std::vector<std::size_t> which;
        for (std::size_t i = 3; i < 5003; i += 19)
            which.push_back(i);
        which.push_back(5002);
        const std::vector<Float4>& pos = m.world.positions();
        for (const double eps2 : {1e-4, 0.0}) {
            std::vector<double> hostS;
            const std::vector<Double3> host = referenceAccelerationsAt(pos.data(), pos.size(), which, eps2, 1.0, &hostS);
            const SampledReference r = sampledReference(pos.data(), pos.size(), which, eps2, 1.0);
            QCOMPARE(r.acceleration.size(), which.size());
            QCOMPARE(r.magnitudeSum.size(), which.size());
            if (!sampledReferenceOnGpu()) {
                QVERIFY2(r.where.find("CPU") != std::string::npos, r.where.c_str());
                QSKIP(qPrintable("no GPU for the sampled reference here: " + QString::fromStdString(cudaKernelsUnavailable())));
            }
            QVERIFY2(r.where == "the GPU (fp64)", r.where.c_str());
            double worst = 0;
            for (std::size_t s = 0; s < which.size(); ++s) {
                const Double3 a = r.acceleration[s], b = host[s];
                const double d = std::sqrt((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y) + (a.z - b.z) * (a.z - b.z));
                const double mag = std::sqrt(b.x * b.x + b.y * b.y + b.z * b.z);
                worst = std::max(worst, d / mag);
            }
            // S_i: a sum of positive terms, so no cancellation: ≤ N·1.1e-16 = 5.6e-13 relative in
            // the worst order; 1e-12 held.
            double worstS = 0;
            for (std::size_t s = 0; s < which.size(); ++s) {
                QVERIFY(hostS[s] > 0);
                worstS = std::max(worstS, std::abs(r.magnitudeSum[s] - hostS[s]) / hostS[s]);
            }
            qInfo("eps2 %g: GPU against host, max relative difference %.3g (a), %.3g (S) over %zu bodies", eps2, worst,
                  worstS, which.size());
            QVERIFY2(worst <= 1e-12, qPrintable(QString::number(worst)));
            QVERIFY2(worstS <= 1e-12, qPrintable(QString::number(worstS)));
            const SampledReference again = sampledReference(pos.data(), pos.size(), which, eps2, 1.0);
            QVERIFY(std::memcmp(again.acceleration.data(), r.acceleration.data(), which.size() * sizeof(Double3)) == 0);
            QVERIFY(std::memcmp(again.magnitudeSum.data(), r.magnitudeSum.data(), which.size() * sizeof(double)) == 0);
        }
    }

    /// A sample smaller than N in the sampled check: the bodies of that sample, reproducibly.
    void sampledCheckSampleIsReproducible()
    {
        const ModelBodies m = plummer();
        ValidationConfig c = config({findKernel("cpu")}, 2, 1);
        c.referenceRun = false;
        c.forceSample = 301;
        const ValidationReport a = validate(m.world, m.exact, c);
        const ValidationReport b = validate(m.world, m.exact, c);
        QCOMPARE(resultOf(a, "cpu").force0.sampled, std::size_t(301));
        QCOMPARE(resultOf(a, "cpu").force0.max, resultOf(b, "cpu").force0.max);
        QCOMPARE(resultOf(a, "cpu").force0.worstBody, resultOf(b, "cpu").force0.worstBody);
    }

    void allMeansAvailableButReference()
    {
        const auto all = availableKernelsToValidate();
        QVERIFY(!all.empty());
        QCOMPARE(std::string(all.front()->id), std::string("cpu"));
        for (const KernelInfo* k : all) {
            QVERIFY(k->id != "reference");
            QVERIFY(availability(*k).available);
        }
    }
};

QTEST_GUILESS_MAIN(TestValidation)
#include "tst_validation.moc"
