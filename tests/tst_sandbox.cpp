/// The sandbox's core: time reversal (SimParams::reverse) retraces the trajectory to
/// rounding, the launch predictor (sim/perf/LaunchPredictor.h) against a real run of the body with the
/// others held fixed and against a circular Kepler orbit, and picking / inspecting a body
/// (sim/core/Selection.h).

#include "sim/core/KernelRegistry.h"
#include "sim/perf/LaunchPredictor.h"
#include "sim/core/Models.h"
#include "sim/core/Selection.h"
#include "sim/core/Simulation.h"

#include <QtTest>

#include <omp.h>

#include <cmath>
#include <limits>
#include <numbers>

using namespace nbody;

namespace {

constexpr double kPi = std::numbers::pi;
constexpr double kEps64 = std::numeric_limits<double>::epsilon(); // 2.2e-16: ulp(1); rounding ≤ ½ ulp
constexpr double kEps32 = std::numeric_limits<float>::epsilon();  // 1.2e-7

#define SKIP_UNAVAILABLE(kernelId)                                                                       \
    do {                                                                                                 \
        const KernelInfo* k_ = findKernel(kernelId);                                                     \
        QVERIFY(k_);                                                                                     \
        if (const Availability a_ = availability(*k_); !a_.available)                                    \
            QSKIP(qPrintable(QStringLiteral("%1: %2").arg(QString::fromUtf8(kernelId), QString::fromStdString(a_.reason)))); \
    } while (0)

/// max over bodies of |x − x'| and |v − v'| (both in Hénon units here, where |x| and |v| are O(1)).
double maxDifference(const Fp64State& a, const Fp64State& b)
{
    double worst = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const Double4 dx{a.position[i].x - b.position[i].x, a.position[i].y - b.position[i].y,
                         a.position[i].z - b.position[i].z, 0};
        const Double4 dv{a.velocity[i].x - b.velocity[i].x, a.velocity[i].y - b.velocity[i].y,
                         a.velocity[i].z - b.velocity[i].z, 0};
        worst = std::max({worst, std::abs(dx.x), std::abs(dx.y), std::abs(dx.z), std::abs(dv.x), std::abs(dv.y),
                          std::abs(dv.z)});
    }
    return worst;
}

double maxMagnitude(const Fp64State& s)
{
    double m = 0;
    for (std::size_t i = 0; i < s.size(); ++i)
        m = std::max({m, std::abs(s.position[i].x), std::abs(s.position[i].y), std::abs(s.position[i].z),
                      std::abs(s.velocity[i].x), std::abs(s.velocity[i].y), std::abs(s.velocity[i].z)});
    return m;
}

/// The system of the reversal tests: a Plummer sphere of 61 bodies (no multiple of a block
/// size) in Hénon units, softened with ε = 0.1, dt = 1/256: 1000 steps are 3.9 time units, 1.4
/// crossing times (t_cr = 2√2).
constexpr std::size_t kReverseBodies = 61;
constexpr int kReverseSteps = 1000;
SimParams reverseParams(const char* integrator)
{
    SimParams p;
    p.G = 1;
    p.eps2 = 0.01f;
    p.dt = 1.0f / 256;
    p.integrator = integrator;
    return p;
}
ModelBodies reverseSystem()
{
    PlummerParams pp;
    pp.bodies = kReverseBodies;
    pp.seed = 16;
    return makePlummer(pp);
}

double maxAcceleration(const std::vector<Double4>& a)
{
    double m = 0;
    for (const Double4& v : a)
        m = std::max(m, std::sqrt(v.x * v.x + v.y * v.y + v.z * v.z));
    return m;
}

/// Moves every body by a different offset of size ≤ 1e-9 (a translation of all bodies alike would
/// be a symmetry of the system and never grow).
void nudge(Fp64State& s)
{
    for (std::size_t i = 0; i < s.size(); ++i) {
        const double k = double(i);
        s.position[i].x += 1e-9 * std::sin(1.3 * k + 0.2);
        s.position[i].y += 1e-9 * std::cos(2.1 * k);
        s.position[i].z += 1e-9 * std::sin(0.7 * k + 1.0);
    }
}

} // namespace

class TestSandbox : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        omp_set_num_threads(1); // 61 bodies: OpenMP would only add fork/join overhead
    }

    // ---- time reversal ----------------------------------------------------------------------

    void reverseRetraces_data()
    {
        QTest::addColumn<QString>("kernel");
        QTest::addColumn<QString>("integrator");
        QTest::newRow("reference leapfrog") << "reference" << "leapfrog";
        QTest::newRow("reference yoshida4") << "reference" << "yoshida4";
        QTest::newRow("tiled-fp64 leapfrog (GPU)") << "tiled-fp64" << "leapfrog";
        QTest::newRow("tiled-fp64 yoshida4 (GPU)") << "tiled-fp64" << "yoshida4";
    }
    /// 1000 steps forward, 1000 back: the start again, within the bound of rounding.
    ///
    /// KDK leapfrog is time-symmetric: a step of −dt from the state after a step of dt undoes it
    /// exactly in exact arithmetic (the closing kick ½ a(x₁) dt is undone by the opening kick of
    /// −dt, which uses the same a(x₁); the drift back lands on x₀ and a(x₀) undoes the first
    /// kick), and so is Yoshida's symmetric composition. What is left is rounding. Per substep
    /// the drift rounds x once (≤ ε/2 · S, S = max(|x|, |v|) over the run), the two kicks round
    /// v once each (≤ 2 · ε/2 · S), and the force sum over N sources is off by at most N
    /// roundings relative to |a|, which the kicks turn into ≤ N · ε/2 · a_max · dt in v: in all
    /// ≤ ε/2 · (3 S + N a_max dt) per substep. A rounding made at time t is carried to the end of the round
    /// trip by the linearised flow, which amplifies it by at most A = max_t |δ(t)| / |δ(0)|: the
    /// growth of a perturbation over the run (the backward flow of a symplectic map has the same
    /// Lyapunov exponents as the forward one). A is measured here on the same system from a
    /// perturbation of 1e-9 (far above rounding, far below the nonlinear scale), so the bound
    ///
    ///     |Δ| ≤ A · 2 · steps · substeps · ε/2 · (3 S + N a_max dt)
    ///
    /// holds for this system and fails for any error that is not rounding (a wrong sign in one
    /// kick or drift leaves O(dt) = 4e-3; leapfrog's truncation error O(dt²) = 1.5e-5).
    void reverseRetraces()
    {
        QFETCH(QString, kernel);
        QFETCH(QString, integrator);
        SKIP_UNAVAILABLE(kernel.toUtf8().constData());
        const ModelBodies b = reverseSystem();
        const SimParams p = reverseParams(integrator.toUtf8().constData());
        Simulation sim(b.world, b.exact, p, kernel.toStdString());
        const Fp64State start = sim.state64();

        // A: the growth of a perturbation of ≤ 1e-9 of every body's position (nudge), sampled
        // every 50 steps over the forward run (the reference kernel: the same flow).
        Fp64State bumped = start;
        nudge(bumped);
        Simulation a(b.world, bumped, p, "reference");
        Simulation c(b.world, start, p, "reference");
        double growth = 1;
        for (int s = 0; s < kReverseSteps; s += 50) {
            a.step(50);
            c.step(50);
            growth = std::max(growth, maxDifference(a.state64(), c.state64()) / 1e-9);
        }

        const double a0 = maxAcceleration(evaluateAccelerations("reference", b.world, p));
        sim.step(kReverseSteps);
        const double moved = maxDifference(sim.state64(), start);
        const double scale = std::max(maxMagnitude(start), maxMagnitude(sim.state64()));
        const double amax = std::max(a0, maxAcceleration(sim.accelerations64()));
        const double tForward = sim.time();
        SimParams back = p;
        back.reverse = true;
        sim.setParams(back);
        sim.step(kReverseSteps);
        QCOMPARE(sim.stepCount(), std::uint64_t(2 * kReverseSteps));
        // The time runs back by the same fp64 additions of dt: to 0 within rounding of the sums.
        QCOMPARE_LE(std::abs(sim.time()), 2.0 * kReverseSteps * kEps64 * tForward);
        QVERIFY(tForward > 3.9);

        const double error = maxDifference(sim.state64(), start);
        const double substeps = integrator == QLatin1String("yoshida4") ? 3 : 1;
        const double perSubstep = 0.5 * kEps64 * (3.0 * scale + double(kReverseBodies) * amax * double(p.dt));
        const double bound = growth * 2.0 * kReverseSteps * substeps * perSubstep;
        qInfo("%s %s: forward-back error %.3g; bound %.3g (growth A = %.3g, S = %.3g, a_max = %.3g)",
              qPrintable(kernel), qPrintable(integrator), error, bound, growth, scale, amax);
        QCOMPARE_LE(error, bound);
        QVERIFY(bound < 1e-8); // the bound is about rounding, not about a reversal that half works
        // And the forward run did move the system: the return is not trivial.
        QVERIFY(moved > 0.01);
    }

    /// The fp32 `cpu` kernel: rounding of ε₃₂ = 1.2e-7 per operation, and its approximate
    /// reciprocal square root (SimdRsqrt, relative ~1e-7 after refinement, counted as roundings
    /// of the force sum): the same bound with ε₃₂ instead of ε₆₄. It is weak (a few 1e-2 here)
    /// but still below what a failed reversal leaves, and the error must also be a hundredth
    /// of how far the forward run moved the system (O(1)).
    void reverseRetracesFp32()
    {
        const ModelBodies b = reverseSystem();
        const SimParams p = reverseParams("leapfrog");
        Simulation sim(b.world, p, "cpu");
        const Fp64State start = widen(sim.world());
        Simulation a(b.world, p, "reference");
        Fp64State bumped = widen(b.world);
        nudge(bumped);
        Simulation a2(b.world, bumped, p, "reference");
        double growth = 1;
        for (int s = 0; s < kReverseSteps; s += 50) {
            a.step(50);
            a2.step(50);
            growth = std::max(growth, maxDifference(a.state64(), a2.state64()) / 1e-9);
        }
        const double a0 = maxAcceleration(evaluateAccelerations("reference", b.world, p));
        sim.step(kReverseSteps);
        const double moved = maxDifference(widen(sim.world()), start);
        const double scale = std::max(maxMagnitude(start), maxMagnitude(widen(sim.world())));
        const double amax = std::max(a0, maxAcceleration(sim.accelerations64()));
        SimParams back = p;
        back.reverse = true;
        sim.setParams(back);
        sim.step(kReverseSteps);
        const double error = maxDifference(widen(sim.world()), start);
        const double bound = growth * 2.0 * kReverseSteps * 0.5 * kEps32 *
                             (3.0 * scale + double(kReverseBodies) * amax * double(p.dt));
        qInfo("cpu (fp32): forward-back error %.3g; bound %.3g; moved %.3g", error, bound, moved);
        QCOMPARE_LE(error, bound);
        QVERIFY(moved > 100 * error);
    }

    void reverseRefusedWithCollisions()
    {
        const ModelBodies b = reverseSystem();
        SimParams p = reverseParams("leapfrog");
        p.collisions = true;
        Simulation sim(b.world, p, "cpu");
        SimParams back = p;
        back.reverse = true;
        try {
            sim.setParams(back);
            QFAIL("reverse with collisions was accepted");
        } catch (const std::invalid_argument& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(QLatin1String("collision")), e.what());
        }
        QVERIFY(!sim.params().reverse);
        QVERIFY(!reverseProblem(back).empty());
        p.collisions = false;
        p.reverse = true;
        QVERIFY(reverseProblem(p).empty());
        QVERIFY(describe(p).find("reverse") != std::string::npos);
        QCOMPARE(signedTimeStep(p), -double(p.dt));
    }

    // ---- launch prediction ------------------------------------------------------------------

    /// The predicted path against a real run of the same body with the others held fixed: the
    /// new body stepped by KDK leapfrog with the accelerations of the Simulation's own fp64
    /// `reference` kernel (evaluateAccelerationRows: its row only, all others at their frozen
    /// positions). Both are fp64 KDK with the same dt; they differ only in the order of the force
    /// sums, relative N·ε/2 = 7e-15 of |a| per step, which the orbit carries to the end amplified
    /// by its own divergence A (measured as in reverseRetraces, from a 1e-9 nudge of the start):
    /// |Δx| ≤ A · steps · N ε/2 · |a|max dt² · steps — with the numbers here < 1e-8; we allow that
    /// bound computed from the measured A.
    ///
    /// The reversed row: Simulation → Reverse time on (SimParams::reverse), so the run steps with
    /// signedTimeStep(p) = −dt; the prediction is asked with that signed step, and the real run
    /// takes the same −dt kicks and drifts. Everything above holds with |dt| (the bound has dt²),
    /// and a prediction that ignored the sign (the forward path) misses the reversed run by O(1):
    /// the row checks that too.
    /// A body with a real mass (a second star of 0.6 solar masses launched past a Sun and three
    /// planets) is predicted as the N-body problem it is: the path matches a real run of the
    /// whole system with the body added (Simulation, fp64 `reference` kernel, the same KDK
    /// leapfrog, dt and ε²) to 1e-9 of the system's size over 2000 steps — both are fp64 KDK and
    /// differ only in the order of the force sums (relative 1e-16 per step, carried by the
    /// orbit's divergence). The test-particle path of the same launch (mass 0, the others held
    /// fixed) misses that run by more than 1e-2: the star's pull moves the Sun, and the
    /// prediction that leaves it out is wrong for that mass.
    void massiveLaunchMatchesFullRun()
    {
        World w;
        // Sun and three planets on circular orbits (G = 1, M = 1): v = sqrt(1 / r).
        w.addBody(Float4{0, 0, 0, 1.0f}, Float4{}, Group::Star);
        for (const float r : {1.0f, 2.0f, 4.0f})
            w.addBody(Float4{r, 0, 0, 1e-3f}, Float4{0, float(std::sqrt(1.0 / r)), 0, 0}, Group::Generic);
        SimParams p;
        p.G = 1;
        p.eps2 = 0.0f;
        p.dt = 1.0f / 256;
        p.integrator = "leapfrog";
        const LaunchField field = makeLaunchField(w, p.G, p.eps2);
        const double mass = 0.6;
        const double m32 = double(float(mass)); // the run's World holds the mass in fp32: both use that value
        QVERIFY(launchIsLive(field, m32));
        QVERIFY(!launchIsLive(field, 0.0));
        LaunchRequest q;
        q.position = {-3.0, 2.5, 0.0}; // exact in fp32, as the run's World holds it
        q.velocity = {0.25, -0.125, 0.0};
        q.dt = double(p.dt);
        q.duration = 2000 * q.dt;
        q.maxPathPoints = 2001;
        q.mass = m32;
        const LaunchPrediction live = predictLaunch(field, q);
        QVERIFY(!live.testParticle);
        QCOMPARE(live.steps, std::size_t(2000));
        LaunchRequest tq = q;
        tq.mass = 0;
        const LaunchPrediction test = predictLaunch(field, tq);
        QVERIFY(test.testParticle);

        // The real run: the body added to the system, every body moving.
        World all = w;
        all.addBody(Float4{float(q.position.x), float(q.position.y), float(q.position.z), float(mass)},
                    Float4{float(q.velocity.x), float(q.velocity.y), float(q.velocity.z), 0}, Group::Generic);
        Simulation sim(std::move(all), std::nullopt, p, "reference");
        double worstLive = 0, worstTest = 0;
        for (int k = 1; k <= 2000; ++k) {
            sim.step(1);
            const Fp64State s = sim.state64();
            const Double4& x = s.position.back();
            const Double3& a = live.path[std::size_t(k)];
            const Double3& b = test.path[std::size_t(k)];
            worstLive = std::max({worstLive, std::abs(a.x - x.x), std::abs(a.y - x.y), std::abs(a.z - x.z)});
            worstTest = std::max({worstTest, std::abs(b.x - x.x), std::abs(b.y - x.y), std::abs(b.z - x.z)});
        }
        qInfo("live prediction vs the full run: %.3g; test particle: %.3g", worstLive, worstTest);
        QVERIFY2(worstLive < 1e-9, qPrintable(QString::number(worstLive)));
        QVERIFY2(worstTest > 1e-2, qPrintable(QString::number(worstTest)));
        // A large field is never integrated whole: the body is a test particle there, and says so.
        PlummerParams pp;
        pp.bodies = kMaxLiveLaunchSources + 1;
        const LaunchField big = makeLaunchField(makePlummer(pp).world, 1.0, 0.01f);
        QVERIFY(!launchIsLive(big, 1.0));
        LaunchRequest bq;
        bq.position = {2, 0, 0};
        bq.mass = 1.0;
        bq.duration = 0.1;
        QVERIFY(predictLaunch(big, bq).testParticle);
    }

    void launchMatchesHeldFixedRun_data()
    {
        QTest::addColumn<bool>("reverse");
        QTest::newRow("forward") << false;
        QTest::newRow("reverse") << true;
    }
    void launchMatchesHeldFixedRun()
    {
        QFETCH(bool, reverse);
        PlummerParams pp;
        pp.bodies = 97;
        pp.seed = 7;
        World w = makePlummer(pp).world;
        SimParams p;
        p.G = 1;
        p.eps2 = 0.01f;
        p.dt = 1.0f / 128;
        p.reverse = reverse;
        const LaunchField field = makeLaunchField(w, p.G, p.eps2);
        QCOMPARE(field.sources.size(), w.size());
        LaunchRequest q;
        q.position = {1.5, 0.0, 0.2};
        q.velocity = {0.0, 0.55, 0.1};
        q.dt = signedTimeStep(p); // the step the simulation takes: −dt in reverse
        QCOMPARE(q.dt, reverse ? -double(p.dt) : double(p.dt));
        q.duration = 300 * double(p.dt);
        q.maxPathPoints = 301; // every step kept
        const LaunchPrediction got = predictLaunch(field, q);
        QCOMPARE(got.steps, std::size_t(300));
        QCOMPARE(got.path.size(), std::size_t(301));
        QVERIFY(!got.truncated && !got.cancelled);
        QCOMPARE(got.timeCovered, 300 * q.dt); // signed: 300 steps back in reverse

        // The real run: the new body appended (massless: a test particle) to an fp64 state of
        // the system, and only its row stepped (the others held fixed), with the accelerations
        // of the reference kernel's own force code (KernelInfo::host over the row [me, me + 1)).
        const std::size_t me = w.size();
        w.addBody(Float4{0, 0, 0, 0}, Float4{}, Group::Generic);
        Fp64State s = widen(w);
        const KernelInfo* ref = findKernel("reference");
        QVERIFY(ref && ref->host);
        Double3 x = q.position, v = q.velocity;
        const auto a64 = [&](const Double3& at) {
            s.position[me] = {at.x, at.y, at.z, 0};
            std::vector<Double4> acc(s.size());
            HostForceArgs args;
            args.pos = s.position.data();
            args.acc = acc.data();
            args.n = s.size();
            args.eps2 = p.eps2;
            args.G = p.G;
            args.iBegin = me;
            args.iEnd = me + 1;
            ref->host(args); // the reference kernel's own force code, one row
            return Double3{acc[me].x, acc[me].y, acc[me].z};
        };
        Double3 a = a64(x);
        double worst = 0, amax = 0;
        const double h = 0.5 * q.dt;
        for (int k = 0; k < 300; ++k) {
            v = {v.x + h * a.x, v.y + h * a.y, v.z + h * a.z};
            x = {x.x + q.dt * v.x, x.y + q.dt * v.y, x.z + q.dt * v.z};
            a = a64(x);
            v = {v.x + h * a.x, v.y + h * a.y, v.z + h * a.z};
            amax = std::max(amax, std::sqrt(a.x * a.x + a.y * a.y + a.z * a.z));
            const Double3& g = got.path[std::size_t(k) + 1];
            worst = std::max({worst, std::abs(g.x - x.x), std::abs(g.y - x.y), std::abs(g.z - x.z)});
        }
        // A: divergence of the predictor's own path from a 1e-9 nudge.
        LaunchRequest nudged = q;
        nudged.position.x += 1e-9;
        const LaunchPrediction other = predictLaunch(field, nudged);
        double growth = 1;
        for (std::size_t k = 0; k < other.path.size(); ++k)
            growth = std::max({growth, std::abs(other.path[k].x - got.path[k].x) / 1e-9,
                               std::abs(other.path[k].y - got.path[k].y) / 1e-9,
                               std::abs(other.path[k].z - got.path[k].z) / 1e-9});
        const double bound = growth * 300.0 * 300.0 * double(w.size()) * 0.5 * kEps64 * amax * q.dt * q.dt;
        qInfo("launch vs held-fixed reference run (%s): max |dx| %.3g, bound %.3g (A = %.3g, |a|max = %.3g)",
              reverse ? "reverse" : "forward", worst, bound, growth, amax);
        QCOMPARE_LE(worst, bound);
        QVERIFY(bound < 1e-8);
        // It did go somewhere: the path is not the start repeated (in reverse the body starts
        // along −v: y falls).
        QVERIFY(std::abs(got.path.back().y - q.position.y) > 0.5);
        QCOMPARE(got.path[1].y < q.position.y, reverse);
        if (reverse) {
            // The forward prediction (what the preview drew before it took the sign) is far
            // from the reversed run: the sign is not a detail within the tolerance.
            LaunchRequest forward = q;
            forward.dt = std::abs(q.dt);
            const Double3 f = predictLaunch(field, forward).path.back();
            QVERIFY(std::abs(f.x - x.x) + std::abs(f.y - x.y) + std::abs(f.z - x.z) > 0.5);
        }
    }

    /// Closed form: a body launched at the circular speed v = sqrt(G M / r) around one point mass
    /// returns after one period P = 2π sqrt(r³ / (G M)) to its start, behind by leapfrog's phase
    /// error, which for this orbit has a closed form. On a circle of radius ρ the force is −Ω² x
    /// (Ω² = G M / ρ³), so KDK's position recurrence x₊ − 2x + x₋ = −Ω² dt² x has discrete circular
    /// orbits turning by θ per step with sin(θ/2) = Ω dt / 2, θ = Ω dt (1 + (Ω dt)²/24 + …), whose
    /// velocity (KDK's v is the centred difference) is ρ sin θ / dt = ρ Ω (1 − (Ω dt)²/8). Launched
    /// at ρ Ω, the body is (Ω dt)²/8 too fast for that circle: it is at the pericentre of an
    /// ellipse with a = r (1 + (Ω dt)²/4) (vis-viva), whose period is longer by 3/8 (Ω dt)², while
    /// the discrete map turns faster by (Ω dt)²/24. After P it lags by the mean anomaly
    /// 2π (Ω dt)² (3/8 − 1/24) = (2π/3) (Ω dt)², a distance (2π/3) r (Ω dt)² along the orbit (the
    /// ellipse's eccentricity changes that at higher order). With 200 steps per period
    /// (Ω dt = 0.0314) that is 2.07e-3 r; we require the miss within 2 % of it (the terms of
    /// relative order (Ω dt)² = 1e-3 and e² are far smaller). Half a period on, the body is at the apocentre
    /// r (1 + (Ω dt)²/2) on the far side, lagging by half as much.
    void launchCircularOrbitReturns()
    {
        World w;
        const double M = 3.0, G = 2.0, r = 1.7;
        w.addBody(Float4{0, 0, 0, float(M)}, Float4{}, Group::Generic);
        const LaunchField field = makeLaunchField(w, G, 0.0);
        QVERIFY(field.dominant.has_value());
        const double omega = std::sqrt(G * M / (r * r * r));
        const double period = 2 * kPi / omega;
        LaunchRequest q;
        q.position = {r, 0, 0};
        q.velocity = {0, std::sqrt(G * M / r), 0};
        q.dt = period / 200;
        q.duration = period;
        const LaunchPrediction got = predictLaunch(field, q);
        QCOMPARE(got.steps, std::size_t(200));
        const Double3 end = got.path.back();
        const double miss = std::sqrt((end.x - r) * (end.x - r) + end.y * end.y + end.z * end.z);
        const double wdt = omega * q.dt;
        const double lag = 2 * kPi / 3 * r * wdt * wdt;
        qInfo("circular orbit: returns within %.4g of its start after one period (closed form %.4g)", miss, lag);
        QCOMPARE_LE(std::abs(miss - lag), 0.02 * lag);
        QVERIFY(end.y < 0); // behind: the lag is along the orbit, not ahead of the start
        // The periapsis of a circular orbit is its radius, to the same order; the speed is v.
        QVERIFY(got.aroundDominant);
        QCOMPARE_LE(std::abs(got.periapsis - r), r * wdt * wdt);
        QCOMPARE(got.speed, std::sqrt(G * M / r));
        // Halfway: on the far side at the apocentre, lagging by half as much.
        const Double3 half = got.path[got.path.size() / 2];
        QCOMPARE_LE(std::abs(-half.x - r * (1 + wdt * wdt / 2)), 0.1 * r * wdt * wdt);
        QCOMPARE_LE(std::abs(std::abs(half.y) - lag / 2), 0.1 * lag);
    }

    void launchCapsAndCancels()
    {
        World w;
        w.addBody(Float4{0, 0, 0, 1}, Float4{}, Group::Generic);
        const LaunchField field = makeLaunchField(w, 1.0, 0.0);
        LaunchRequest q;
        q.position = {1, 0, 0};
        q.velocity = {0, 1, 0};
        q.dt = 0.001;
        q.duration = 100;
        q.maxSteps = 5000;
        q.maxPathPoints = 100;
        LaunchPrediction got = predictLaunch(field, q);
        QVERIFY(got.truncated);
        QCOMPARE(got.steps, std::size_t(5000));
        QCOMPARE(got.timeCovered, 5.0);
        QVERIFY(got.path.size() <= 100);
        std::atomic<bool> cancel{true};
        got = predictLaunch(field, q, &cancel);
        QVERIFY(got.cancelled);
        QCOMPARE(got.steps, std::size_t(0));
        q.dt = 0;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, predictLaunch(field, q));
        q.dt = std::numeric_limits<double>::quiet_NaN();
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, predictLaunch(field, q));
        // A negative step is time running backwards (SimParams::reverse): T / |dt| steps.
        q.dt = -0.001;
        q.duration = 0.5;
        got = predictLaunch(field, q);
        QCOMPARE(got.steps, std::size_t(500));
        QCOMPARE(got.timeCovered, -0.5);
    }

    /// Subsampling keeps the total mass and the heaviest body: the field far away is M / r².
    void launchFieldSubsampled()
    {
        PlummerParams pp;
        pp.bodies = 1001;
        World w = makePlummer(pp).world;
        w.addBody(Float4{0.1f, 0, 0, 5.f}, Float4{}, Group::Generic); // a black hole: 5 of 6
        const LaunchField f = makeLaunchField(w, 1.0, 0.0, 100);
        QVERIFY(f.sources.size() <= 100 + 2);
        double m = 0;
        for (const Double4& s : f.sources)
            m += s.w;
        QCOMPARE_LE(std::abs(m - f.totalMass), 1e-12 * f.totalMass);
        QVERIFY(f.dominant.has_value());
        QCOMPARE(f.sources[*f.dominant].w, 5.0);
        // At r = 1000 the field is G M / r² to a relative (R / r) = 1e-3 or so (R ≈ 1..10 here).
        const Double3 a = fieldAcceleration(f, {1000, 0, 0});
        QCOMPARE_LE(std::abs(-a.x * 1e6 / f.totalMass - 1.0), 2e-2);
    }

    // ---- picking ----------------------------------------------------------------------------

    void pickNearestProjected()
    {
        // Identity view-projection: clip = (x, y, z, 1); pixel = ((x + 1) / 2 · W, (1 − y) / 2 · H).
        float m[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
        const std::vector<Float4> p = {{0.0f, 0.0f, 0.0f, 1}, {0.5f, 0.5f, 0.0f, 1}, {0.52f, 0.5f, 0.5f, 1},
                                       {0.5f, 0.5f, 2.0f, 1}};
        // Body 1 projects to (300, 100) in a 400 × 400 view; body 2 to (304, 100); body 3 is
        // beyond the far plane (z > w).
        auto got = pickBody(p, m, 301, 101, 400, 400, 5);
        QVERIFY(got);
        QCOMPARE(*got, BodyIndex(1));
        got = pickBody(p, m, 304, 100, 400, 400, 5);
        QCOMPARE(*got, BodyIndex(2));
        QVERIFY(!pickBody(p, m, 250, 250, 400, 400, 5)); // empty space
        QCOMPARE(*pickBody(p, m, 200, 200, 400, 400, 0.5), BodyIndex(0));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, pickBody(p, m, 0, 0, 0, 400, 5));
    }

    void describeTwoBodies()
    {
        World w;
        w.addBody(Float4{0, 0, 0, 2}, Float4{3, 4, 0, 0}, Group::Star);
        w.addBody(Float4{2, 0, 0, 8}, Float4{}, Group::Gas);
        w.addBody(Float4{0, 10, 0, 1}, Float4{}, Group::Gas);
        w.setName(0, "A");
        const double G = 1.5, eps2 = 0.25;
        const BodyReport r = describeBody(w, 0, G, eps2);
        QCOMPARE(r.name, std::string("A"));
        QCOMPARE(r.speed, 5.0);
        QCOMPARE(r.mass, 2.0);
        QCOMPARE(*r.nearest, BodyIndex(1));
        QCOMPARE(r.nearestDistance, 2.0);
        QCOMPARE(*r.attractor, BodyIndex(1));
        QCOMPARE(r.attractorPull, G * 8 / (4 + eps2));
        // a = G [8 · (2, 0) / (4.25)^{3/2} + 1 · (0, 10) / (100.25)^{3/2}]
        QCOMPARE(r.acceleration.x, G * 8 * 2 / std::pow(4.25, 1.5));
        QVERIFY(std::abs(r.acceleration.y - G * 10 / std::pow(100.25, 1.5)) < 1e-15);
        QVERIFY_THROWS_EXCEPTION(std::out_of_range, describeBody(w, 3, G, eps2));
    }

    /// Simulation::body: one body's row equals world()'s after steps (rounded to fp32: the fp64
    /// kernels' rows are exact in fp64, world() holds their rounding to nearest; the fp32 rows
    /// are the same floats widened), and reading it costs no full download of a device state
    /// (fullDownloads() stays; the next world() is one). The CUDA rows skip without a device.
    void bodyRowEqualsWorld_data()
    {
        QTest::addColumn<QString>("kernel");
        QTest::newRow("cpu") << "cpu";
        QTest::newRow("reference (fp64)") << "reference";
        QTest::newRow("tiled (GPU)") << "tiled";
        QTest::newRow("reduction2d-float3 (GPU, float3 layout)") << "reduction2d-float3";
        QTest::newRow("tiled-fp64 (GPU)") << "tiled-fp64";
    }
    void bodyRowEqualsWorld()
    {
        QFETCH(QString, kernel);
        SKIP_UNAVAILABLE(kernel.toUtf8().constData());
        const ModelBodies b = reverseSystem(); // 61 bodies: no multiple of a block size
        Simulation sim(b.world, b.exact, reverseParams("leapfrog"), kernel.toStdString());
        const bool device = sim.deviceResident();
        const bool fp64 = sim.kernel().layout == Layout::Double4;
        sim.step(7);
        const std::uint64_t downloads = sim.fullDownloads();
        QCOMPARE(downloads, std::uint64_t(0)); // nothing read the state back yet
        const BodyIndex rows[] = {0, 29, kReverseBodies - 1};
        std::vector<BodyState> got;
        for (const BodyIndex i : rows)
            got.push_back(sim.body(i));
        QCOMPARE(sim.fullDownloads(), downloads); // rows only
        QVERIFY_THROWS_EXCEPTION(std::out_of_range, sim.body(kReverseBodies));

        const Fp64State exact = sim.state64(); // the kernel's precision, widened exactly
        QCOMPARE(sim.fullDownloads(), downloads + (device ? 1 : 0));
        const World& w = sim.world();
        for (std::size_t k = 0; k < got.size(); ++k) {
            const BodyIndex i = rows[k];
            const Double4& x = got[k].position;
            const Double4& v = got[k].velocity;
            // bit for bit the row of the state, in the kernel's precision
            QCOMPARE(x.x, exact.position[i].x);
            QCOMPARE(x.y, exact.position[i].y);
            QCOMPARE(x.z, exact.position[i].z);
            QCOMPARE(x.w, exact.position[i].w);
            QCOMPARE(v.x, exact.velocity[i].x);
            QCOMPARE(v.y, exact.velocity[i].y);
            QCOMPARE(v.z, exact.velocity[i].z);
            // and world()'s row once rounded to fp32 (exactly it for fp32 kernels)
            const Float4& wx = w.positions()[i];
            const Float4& wv = w.velocities()[i];
            QCOMPARE(float(x.x), wx.x);
            QCOMPARE(float(x.y), wx.y);
            QCOMPARE(float(x.z), wx.z);
            QCOMPARE(float(x.w), wx.w);
            QCOMPARE(float(v.x), wv.x);
            QCOMPARE(float(v.y), wv.y);
            QCOMPARE(float(v.z), wv.z);
            if (!fp64)
                QCOMPARE(x.x, double(wx.x));
        }
        // The bodies moved: the rows are of the state after the steps, not the initial one.
        QVERIFY(got[0].position.x != double(b.world.positions()[0].x));
        // The host copy is current now: a row reads it, and ids come from the host throughout.
        const BodyState again = sim.body(rows[1]);
        QCOMPARE(again.position.x, got[1].position.x);
        QCOMPARE(sim.ids().size(), std::size_t(kReverseBodies));
        QCOMPARE(*findBodyById(sim.ids(), w.ids()[29]), BodyIndex(29));
    }

    void selectionFollowsMerges()
    {
        std::vector<MergeRecord> log = {{3, 7, 10, 1.0, 0.1}, {1, 3, 20, 2.0, 0.2}, {2, 9, 30, 3.0, 0.3}};
        QCOMPARE(followMerges(7, log), 1u); // 7 → 3 → 1
        QCOMPARE(followMerges(3, log), 1u);
        QCOMPARE(followMerges(9, log), 2u);
        QCOMPARE(followMerges(5, log), 5u);
        World w;
        for (int i = 0; i < 5; ++i)
            w.addBody(Float4{float(i), 0, 0, 1}, Float4{}, Group::Generic);
        w.removeBodies({1});
        QCOMPARE(*findBodyById(w, 3, BodyIndex(3)), BodyIndex(2)); // a stale hint: searched
        QVERIFY(!findBodyById(w, 1));
    }
};

QTEST_APPLESS_MAIN(TestSandbox)
#include "tst_sandbox.moc"
