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
            const std::vector<Double3> host = referenceAccelerationsAt(pos.data(), pos.size(), which, eps2, 1.0);
            const SampledReference r = sampledReference(pos.data(), pos.size(), which, eps2, 1.0);
            QCOMPARE(r.acceleration.size(), which.size());
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
            qInfo("eps2 %g: GPU against host, max relative difference %.3g over %zu bodies", eps2, worst, which.size());
            QVERIFY2(worst <= 1e-12, qPrintable(QString::number(worst)));
            const SampledReference again = sampledReference(pos.data(), pos.size(), which, eps2, 1.0);
            QVERIFY(std::memcmp(again.acceleration.data(), r.acceleration.data(), which.size() * sizeof(Double3)) == 0);
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
