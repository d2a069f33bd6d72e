// The benchmark's pure parts, no GPU needed: the budget prediction of `nbody bench` (fed with
// model timings of a latency-bound GPU and of a CPU) and the issue-slot ceiling (sim/core/Ceiling.h)
// with the H200's numbers.
#include "sim/perf/Benchmark.h"
#include "sim/perf/StepPrediction.h"
#include "sim/core/Ceiling.h"
#include "sim/core/KernelRegistry.h"

#include "TestDevices.h"

#include <QtTest>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

using namespace nbody;

namespace {

using nbody_test::h200;

/// A GPU evaluation: a launch latency, then N² at the peak rate once the device is full.
double gpuMs(std::size_t n)
{
    const double nn = double(n) * double(n);
    return 0.04 + nn / 1.5e12 * 1e3;
}

} // namespace

class TestBenchmark : public QObject {
    Q_OBJECT
private slots:
    /// The start system's N: the largest multiple of 512 whose predicted step
    /// fits 1 / rate, from one timed evaluation scaled as N².
    void bodiesForStepRateScalesAsNSquared()
    {
        // A 2-core CPU: 1024 bodies in 2 ms. 25 steps/s with one evaluation a step: 40 ms, so
        // N = 1024 sqrt(40 / 2) = 4579, rounded down to 4096 (32 ms); 4608 would take 40.5 ms.
        int probes = 0;
        const StepRateSize cpu = bodiesForStepRate(25, 1, 1024, 65536, 1024, [&](std::size_t n) {
            ++probes;
            return n == 1024 ? 2.0 : -1.0;
        });
        QCOMPARE(probes, 5); // the median of five
        QCOMPARE(cpu.bodies, std::size_t(4096));
        QCOMPARE(cpu.from.bodies, std::size_t(1024));
        QVERIFY(std::abs(cpu.secondsPerStep - 0.032) < 1e-12);
        QVERIFY(predictedStepSeconds(cpu.from, 4608, 1) > 1.0 / 25);
        // Three evaluations a step (Yoshida's 4th order) need sqrt(3) fewer bodies: 2643 → 2560.
        QCOMPARE(bodiesForStepRate(25, 3, 1024, 65536, 1024, [](std::size_t) { return 2.0; }).bodies,
                 std::size_t(2560));
        // A GPU probed at 65 536 bodies in 5 ms: 200 steps/s there, so the maximum.
        const StepRateSize gpu = bodiesForStepRate(25, 1, 1024, 65536, 65536, [](std::size_t) { return 5.0; });
        QCOMPARE(gpu.bodies, std::size_t(65536));
        QVERIFY(std::abs(gpu.secondsPerStep - 0.005) < 1e-12);
        // A very slow machine still gets the minimum; a zero timing the maximum.
        QCOMPARE(bodiesForStepRate(25, 1, 1024, 65536, 1024, [](std::size_t) { return 500.0; }).bodies,
                 std::size_t(1024));
        QCOMPARE(bodiesForStepRate(25, 1, 1024, 65536, 1024, [](std::size_t) { return 0.0; }).bodies,
                 std::size_t(65536));
        // A busy machine (the 1366 × 768 trial on two shared cores): one probe of 1024 bodies
        // came out at 0.2 ms where the run then took 30 ms a step, and the app started with
        // 13 824 bodies at about 7 s a step. One fast outlier among five timings: the median
        // (30 ms) gives the minimum N, as the run's speed asks; the outlier alone would give
        // 1024 sqrt(40 / 0.2) = 14 481 → 14 336.
        std::vector<double> busy = {0.2, 30.0, 31.0, 29.0, 30.5};
        std::size_t call = 0;
        const StepRateSize noisy = bodiesForStepRate(25, 1, 1024, 65536, 1024, [&](std::size_t) { return busy[call++]; });
        QCOMPARE(call, busy.size());
        QCOMPARE(noisy.from.ms, 30.0);
        QCOMPARE(noisy.bodies, std::size_t(1024));
        call = 0;
        QCOMPARE(bodiesForStepRate(25, 1, 1024, 65536, 1024, [&](std::size_t) { return busy[call++]; }, 1).bodies,
                 std::size_t(14336)); // what a single probe chose
        // Bad arguments are refused, naming the problem.
        for (double rate : {0.0, -1.0, std::nan("")}) {
            bool thrown = false;
            try {
                bodiesForStepRate(rate, 1, 1024, 65536, 1024, [](std::size_t) { return 1.0; });
            } catch (const std::invalid_argument& e) {
                thrown = QString::fromUtf8(e.what()).contains(QStringLiteral("step rate"));
            }
            QVERIFY(thrown);
        }
    }

    /// The sustained probe: with minSeconds the evaluations repeat for at least that long and
    /// the mean is returned (a single one measured the idle machine on a busy one); without, one.
    void sustainedProbe()
    {
        const KernelInfo* k = findKernel("cpu");
        QVERIFY(k);
        QElapsedTimer t;
        t.start();
        const double sustained = timeForceEvaluation(*k, 1001, SimParams{}, 42, {}, nullptr, 0.05);
        const double wallMs = double(t.nsecsElapsed()) * 1e-6;
        qInfo("cpu, 1001 bodies: %.3g ms an evaluation over %.3g ms", sustained, wallMs);
        QVERIFY2(wallMs >= 50, qPrintable(QString::number(wallMs)));
        QVERIFY(sustained > 0 && sustained < wallMs);
        t.restart();
        const double one = timeForceEvaluation(*k, 1001, SimParams{});
        QVERIFY(one > 0 && one <= double(t.nsecsElapsed()) * 1e-6);
    }

    /// The real probe on the CPU kernel: the chosen N's predicted step fits the rate.
    void bodiesForStepRateOnTheCpu()
    {
        const KernelInfo* k = findKernel("cpu");
        QVERIFY(k);
        const StepRateSize s = bodiesForStepRate(*k, SimParams{}, 25);
        qInfo("cpu: %zu bodies, %.3g ms per step predicted (1024 bodies: %.3g ms)", s.bodies, 1e3 * s.secondsPerStep,
              s.from.ms);
        QCOMPARE(s.from.bodies, std::size_t(1024));
        QVERIFY(s.bodies >= 1024 && s.bodies <= 65536 && s.bodies % 512 == 0);
        QVERIFY(s.bodies == 1024 || s.secondsPerStep <= 1.0 / 25 + 1e-12);
    }

    /// The measured case: `tiled` at N = 1 048 576 (about 0.7 s an evaluation) must not be
    /// skipped by a 60 s budget because N = 1024 is latency-bound.
    void gpuPredictionFillsTheDevice()
    {
        std::vector<std::size_t> probed;
        const auto probe = [&](std::size_t n) {
            probed.push_back(n);
            return gpuMs(n);
        };
        const std::size_t n = 1 << 20;
        const int evaluations = 5; // 2 warm-up + 1 step + 1 sample, as bench counts
        const CasePrediction p = predictCase(n, evaluations, 60, probeLimit(Backend::Cuda, 132), std::nullopt, probe);
        const double truth = gpuMs(n) * 1e-3 * evaluations;
        // The N = 1024 probe alone would predict about 220 s: skipped.
        QVERIFY(gpuMs(1024) * 1e-3 * 1024.0 * 1024.0 * evaluations > 60);
        QVERIFY2(p.seconds <= 60, qPrintable(QString::number(p.seconds)));
        QVERIFY(p.seconds >= truth * 0.999); // N² scaling stays an upper bound
        QVERIFY(p.probes >= 2 && p.probes == int(probed.size()));
        QCOMPARE(probed.front(), kFirstProbeBodies);
        for (std::size_t i = 1; i < probed.size(); ++i)
            QCOMPARE(probed[i], std::min<std::size_t>(probed[i - 1] * 4, probeLimit(Backend::Cuda, 132)));
        QCOMPARE(p.from.bodies, probed.back());
    }

    /// A case that really is over the budget is still skipped, after probes that each stay
    /// within a tenth of the budget; the probe never goes past the limit.
    void gpuOverBudgetStillSkips()
    {
        std::vector<std::size_t> probed;
        const auto probe = [&](std::size_t n) {
            probed.push_back(n);
            return gpuMs(n) * 100; // a slow kernel: 100× the model
        };
        const std::size_t limit = probeLimit(Backend::Cuda, 132);
        QCOMPARE(limit, std::size_t(67584)); // 512 per SM
        const CasePrediction p = predictCase(1 << 20, 5, 60, limit, std::nullopt, probe);
        QVERIFY(p.seconds > 60);
        double spent = 0;
        for (std::size_t n : probed) {
            QVERIFY(n <= limit);
            spent += 2 * gpuMs(n) * 100 * 1e-3;
        }
        QVERIFY2(spent < 60, qPrintable(QString::number(spent)));
    }

    /// A CPU whose evaluation at small N is dominated by a fixed cost (the OpenMP team's start,
    /// on a busy machine the threads' waits for a core: 8 ms here) and that then runs at
    /// 1.32e9 interactions/s (`cpu` at N = 65 536: 3.25 s an evaluation). Scaled as N² from
    /// N = 1024 alone (probeLimit's one probe) the case predicts about 180 s and was skipped by a
    /// 60 s budget; probing on up to the real N (budgetProbeLimit) predicts it within the budget,
    /// still an upper bound of the truth (16.3 s).
    void cpuPredictionProbesPastTheStart()
    {
        const auto cpuMs = [](std::size_t n) { return 8.0 + double(n) * double(n) / 1.32e9 * 1e3; };
        std::vector<std::size_t> probed;
        const auto probe = [&](std::size_t n) {
            probed.push_back(n);
            return cpuMs(n);
        };
        const std::size_t n = 65536;
        const int evaluations = 5;
        const double truth = cpuMs(n) * 1e-3 * evaluations;
        QVERIFY(qAbs(cpuMs(n) - 3261.6) < 1); // the measured 3.25 s, and 8 ms more
        const CasePrediction once = predictCase(n, evaluations, 60, probeLimit(Backend::Cpu, 0), std::nullopt, cpuMs);
        QVERIFY2(once.seconds > 170, qPrintable(QString::number(once.seconds))); // what skipped it
        QCOMPARE(budgetProbeLimit(Backend::Cpu, 0), std::numeric_limits<std::size_t>::max());
        const CasePrediction p = predictCase(n, evaluations, 60, budgetProbeLimit(Backend::Cpu, 0), std::nullopt, probe);
        QVERIFY2(p.seconds <= 60, qPrintable(QString::number(p.seconds)));
        QVERIFY(p.seconds >= truth * 0.999);
        QCOMPARE(probed, (std::vector<std::size_t>{1024, 4096}));
        QCOMPARE(p.from.bodies, std::size_t(4096));
        QCOMPARE(budgetSkipNote(p, 60), std::string());
        QVERIFY2(predictionBasis(p) == "about " + QString::number(p.seconds, 'g', 3).toStdString() +
                                           " s predicted from an evaluation of 20.7 ms measured at N=4096",
                 predictionBasis(p).c_str());
    }

    /// A CPU case that really is over the budget (pure N² at 2e9 interactions/s: 171 s) is still
    /// skipped, after probes that each stay within a tenth of the budget, and its note names the
    /// measured basis.
    void cpuOverBudgetStillSkips()
    {
        std::vector<std::size_t> probed;
        const auto cpuMs = [&](std::size_t n) {
            probed.push_back(n);
            return double(n) * double(n) / 2e9 * 1e3;
        };
        const CasePrediction p = predictCase(262144, 5, 60, budgetProbeLimit(Backend::Cpu, 0), std::nullopt, cpuMs);
        QVERIFY(qAbs(p.seconds - 262144.0 * 262144.0 / 2e9 * 5) < 1e-6 * p.seconds);
        // 1024, 4096, 16384, 65536 (2 × 2.1 s ≤ 6 s); one at 262144 would take 2 × 34 s.
        QCOMPARE(probed, (std::vector<std::size_t>{1024, 4096, 16384, 65536}));
        double spent = 0;
        for (std::size_t n : probed)
            spent += 2 * double(n) * double(n) / 2e9;
        QVERIFY2(spent < 6 * 4.0 / 3, qPrintable(QString::number(spent)));
        QCOMPARE(budgetSkipNote(p, 60),
                 std::string("skipped: about 172 s predicted from an evaluation of 2.15 s measured at N=65536, over the "
                             "60 s budget (--budget)"));
    }

    /// Tree rows scale as N log₂ N, not N²: from 1024 to 4096 bodies ×(4096·12)/(1024·10) = 4.8
    /// (all pairs ×16), and `tree` timed at 1 048 576 bodies in 5 ms predicts 16 777 216 bodies at
    /// 5 ms × 16 × 24/20 = 96 ms per evaluation (as N² it would be 1.28 s: 256×).
    void treeScalesAsNLogN()
    {
        QCOMPARE(evaluationScale(1024, 4096, ForceMethod::AllPairs), 16.0);
        QVERIFY(qAbs(evaluationScale(1024, 4096, ForceMethod::Tree) - 4.8) < 1e-12);
        QCOMPARE(evaluationScale(1, 1, ForceMethod::Tree), 1.0); // log₂ taken as at least 1
        int calls = 0;
        const auto probe = [&](std::size_t) {
            ++calls;
            return 5.0;
        };
        const std::size_t m = std::size_t(1) << 20;
        const CasePrediction p = predictCase(16 * m, 5, 60, probeLimit(Backend::Cuda, 132), EvaluationTiming{m, 5.0},
                                             probe, ForceMethod::Tree);
        QCOMPARE(calls, 0);
        QVERIFY(qAbs(p.seconds - 5e-3 * 16 * 24.0 / 20.0 * 5) < 1e-12);
        const CasePrediction allPairs = predictCase(16 * m, 5, 60, probeLimit(Backend::Cuda, 132),
                                                    EvaluationTiming{m, 5.0}, probe);
        QVERIFY(qAbs(allPairs.seconds - 5e-3 * 256 * 5) < 1e-9);
    }

    /// A timing of the previous N is used without probing; a small first N predicts nothing.
    void knownTimingAndSmallN()
    {
        int calls = 0;
        const auto probe = [&](std::size_t) {
            ++calls;
            return 1.0;
        };
        const CasePrediction p = predictCase(20000, 5, 60, probeLimit(Backend::Cpu, 0), EvaluationTiming{10000, 100}, probe);
        QCOMPARE(calls, 0);
        QVERIFY(qAbs(p.seconds - 0.1 * 4 * 5) < 1e-12);
        const CasePrediction small = predictCase(1000, 5, 60, 65536, std::nullopt, probe);
        QCOMPARE(calls, 0);
        QCOMPARE(small.seconds, 0.0);
        // Below the limit, the last probe is at the real N (a latency-bound model whose N²
        // prediction from N = 1024 exceeds the budget).
        const CasePrediction real = predictCase(3000, 5, 2.6e-5, 65536, std::nullopt, [](std::size_t n) {
            return double(n) * 1e-6;
        });
        QVERIFY(real.seconds <= 2.6e-5);
        QCOMPARE(real.from.bodies, std::size_t(3000));
    }

    /// The ceiling's numbers for the H200 (docs/performance.md, "The ceiling").
    void ceilingH200()
    {
        const CudaDeviceInfo d = h200();
        QVERIFY(qAbs(issueSlotsPerSecond(d, Precision::Fp32) - 132.0 * 128 * 1.98e9) < 1);
        QVERIFY(qAbs(issueSlotsPerSecond(d, Precision::Fp32) - 3.345e13) < 0.001e13);
        QVERIFY(qAbs(issueSlotsPerSecond(d, Precision::Fp64) - 132.0 * 64 * 1.98e9) < 1);
        const KernelInfo* tiled = findKernel("tiled");
        QVERIFY(tiled);
        QCOMPARE(tiled->slotsPerInteraction, 16);
        QVERIFY(qAbs(interactionCeiling(*tiled, d) - 3.345e13 / 16) < 1e9);
        QVERIFY(qAbs(shareOfCeiling(1.55e12, interactionCeiling(*tiled, d)) - 0.741) < 0.001);
        const KernelInfo* fp64 = findKernel("tiled-fp64");
        QVERIFY(fp64);
        QCOMPARE(fp64->slotsPerInteraction, 17);
        QVERIFY(qAbs(interactionCeiling(*fp64, d) - 132.0 * 64 * 1.98e9 / 17) < 1e9);
        const KernelInfo* blocked = findKernel("blocked");
        QVERIFY(blocked);
        QVERIFY(qAbs(interactionCeiling(*blocked, d) - 3.345e13 / 13) < 1e9);
        // The minimum of docs/performance.md: 13 slots → 2.58e12.
        QVERIFY(qAbs(issueSlotsPerSecond(d, Precision::Fp32) / 13 - 2.573e12) < 0.001e12);
    }

    /// Every all-pairs CUDA row states its slots; CPU rows, tree rows (no N² interaction count to
    /// hold against a ceiling) and unknown devices have no ceiling.
    void ceilingRows()
    {
        const CudaDeviceInfo d = h200();
        for (const KernelInfo& k : kernelRegistry()) {
            if (k.backend == Backend::Cuda && k.method == ForceMethod::AllPairs) {
                QVERIFY2(k.slotsPerInteraction > 0, k.id.data());
                QVERIFY(interactionCeiling(k, d) > 0);
            } else {
                QCOMPARE(interactionCeiling(k, d), 0.0);
            }
        }
        CudaDeviceInfo unknown = d;
        unknown.major = 3; // not in the table
        QCOMPARE(interactionCeiling(*findKernel("tiled"), unknown), 0.0);
        CudaDeviceInfo noClock = d;
        noClock.clockKHz = 0;
        QCOMPARE(interactionCeiling(*findKernel("tiled"), noClock), 0.0);
        QCOMPARE(shareOfCeiling(1e12, 0), 0.0);
        QCOMPARE(pipeLanes(8, 0).fp32, 64);
        QCOMPARE(pipeLanes(8, 0).fp64, 32);
        QCOMPARE(pipeLanes(8, 9).fp32, 128);
        QCOMPARE(pipeLanes(8, 9).fp64, 2);
        QCOMPARE(pipeLanes(12, 0).fp32, 128);
    }

    /// The app's start system (StepPredictor::sizeStartSystem), from model timings of a GPU-like
    /// machine given to the predictor (the CPU rows stand in: all pairs `cpu`, the tree
    /// `tree-cpu`, one backend). 25 steps/s is 40 ms a step.
    void startSystemTakesTheTreeWhereItStepsMore()
    {
        const KernelInfo* allPairs = findKernel("cpu");
        const KernelInfo* tree = findKernel("tree-cpu");
        QVERIFY(allPairs && tree);
        // All pairs: 2e-9 ms N^2 (65 536 bodies in 8.6 ms: within 40 ms, so it is sized at the
        // cap of 65 536). A quick tree: 1e-6 ms N log2 N, 21 ms at 1 048 576 (the tree cap),
        // where all pairs would take 2.2 s: the tree at a million.
        double treeCost = 1e-6;
        const auto probe = [&](const KernelInfo& k, std::size_t n) {
            const double nn = double(n);
            return k.method == ForceMethod::Tree ? treeCost * nn * std::log2(nn) : 2e-9 * nn * nn;
        };
        {
            StepPredictor predictor(probe);
            const StepPrediction p = predictor.sizeStartSystem(*allPairs, 1, 25.0);
            QCOMPARE(p.kernel, std::string("tree-cpu"));
            QCOMPARE(p.bodies, kTreeStartBodies);
            QVERIFY(std::abs(p.secondsPerStep - 1e-9 * 1048576.0 * 20.0) < 1e-9); // 21.0 ms
            // Two evaluations a step (Yoshida 3, leapfrog 1): 42 ms at a million is over 40 ms;
            // 40 ms / 2 e-6 ms / log2 N: the largest multiple of 512 is 1 000 448 (20.0 ms an
            // evaluation), still far above all pairs' 65 536.
            const StepPrediction two = predictor.sizeStartSystem(*allPairs, 2, 25.0);
            QCOMPARE(two.kernel, std::string("tree-cpu"));
            QVERIFY(two.bodies < kTreeStartBodies && two.bodies > 900000);
            QVERIFY(two.secondsPerStep <= 0.040);
            QVERIFY(1e-9 * 2 * double(two.bodies + 512) * std::log2(double(two.bodies + 512)) > 0.040);
        }
        {
            // A slow tree: 1e-4 ms N log2 N is 105 ms at 65 536, so the tree reaches only about
            // 25 000 bodies at 25 steps/s, fewer than all pairs: all pairs at 65 536.
            treeCost = 1e-4;
            StepPredictor predictor(probe);
            const StepPrediction p = predictor.sizeStartSystem(*allPairs, 1, 25.0);
            QCOMPARE(p.kernel, std::string("cpu"));
            QCOMPARE(p.bodies, std::size_t(65536));
        }
        {
            // A tree row asked for is sized like any row, within the all-pairs cap.
            treeCost = 1e-6;
            StepPredictor predictor(probe);
            const StepPrediction p = predictor.sizeStartSystem(*tree, 1, 25.0);
            QCOMPARE(p.kernel, std::string("tree-cpu"));
            QCOMPARE(p.bodies, std::size_t(65536));
        }
        {
            StepPredictor predictor(probe);
            QVERIFY_THROWS_EXCEPTION(std::invalid_argument, predictor.sizeStartSystem(*allPairs, 1, 0.0));
        }
    }
};

QTEST_GUILESS_MAIN(TestBenchmark)
#include "tst_benchmark.moc"
