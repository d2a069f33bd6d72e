// The integrator registry: KDK leapfrog and Yoshida's fourth-order composition on orbits with
// known solutions — a Kepler ellipse (e = 0.5) that must close after 10 periods, the
// convergence order of the energy error (×4 and ×16 when dt halves) and the figure-eight
// three-body choreography (Chenciner & Montgomery 2000), which must return after one period.
// CPU rows run everywhere; the `tiled-fp64` rows run on a CUDA device and skip without one.
#include "KeplerOrbit.h"
#include "sim/core/Integrators.h"
#include "sim/core/Models.h"
#include "sim/core/Simulation.h"

#include <QtTest>

#include <omp.h>

#include <cmath>
#include <numbers>
#include <tuple>

using namespace nbody;

namespace {

constexpr double kPi = std::numbers::pi;

using test::kKeplerMass;
using test::kepler;
using test::keplerPericentreSpeed;

Simulation makeSim(const ModelBodies& b, double dt, const char* kernel, const char* integrator)
{
    SimParams p;
    p.G = 1;
    p.eps2 = 0;
    p.dt = float(dt);
    p.integrator = integrator;
    return Simulation(b.world, b.exact, p, kernel);
}

/// QSKIPs rows whose kernel cannot run here (CUDA rows without a device).
#define SKIP_UNAVAILABLE(kernelId)                                                                       \
    do {                                                                                                 \
        const KernelInfo* k_ = findKernel(kernelId);                                                     \
        QVERIFY(k_);                                                                                     \
        if (const Availability a_ = availability(*k_); !a_.available)                                    \
            QSKIP(qPrintable(QStringLiteral("%1: %2").arg(QString::fromUtf8(kernelId), QString::fromStdString(a_.reason)))); \
    } while (0)

/// Max |E(t) − E0| / |E0| over `steps` steps, sampled after every step.
double maxEnergyError(Simulation& sim, int steps)
{
    const Diagnostics e0 = sim.measure();
    double worst = 0;
    for (int i = 0; i < steps; ++i) {
        sim.step(1);
        worst = std::max(worst, std::abs(relativeEnergyChange(e0, sim.measure())));
    }
    return worst;
}

double dist(const Double4& a, const Double4& b)
{
    return std::sqrt((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y) + (a.z - b.z) * (a.z - b.z));
}

} // namespace

class TestIntegrators : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        // Two or three bodies: OpenMP's parallel regions would only add fork/join overhead, which
        // on a loaded machine (spinning threads competing for the cores) costs milliseconds a step.
        omp_set_num_threads(1);
    }

    void registry()
    {
        // Rows: ids unique, weights sum to 1 (one step advances time by dt), orders as documented.
        QVERIFY(integratorRegistry().size() >= 2);
        QCOMPARE(integratorRegistry()[0].id, std::string_view("leapfrog"));
        for (const IntegratorInfo& i : integratorRegistry()) {
            double sum = 0;
            for (double w : i.weights)
                sum += w;
            QVERIFY2(std::abs(sum - 1) < 1e-15, std::string(i.id).c_str());
            QCOMPARE(findIntegrator(i.id), &i);
        }
        const IntegratorInfo* y = findIntegrator("yoshida4");
        QVERIFY(y);
        QCOMPARE(y->order, 4);
        QCOMPARE(y->weights.size(), std::size_t(3));
        // Yoshida (1990): w1 = 1/(2 − 2^{1/3}) = 1.3512071919596578, w0 = −1.7024143839193153.
        QCOMPARE_LE(std::abs(y->weights[0] - 1.3512071919596578), 1e-15);
        QCOMPARE_LE(std::abs(y->weights[1] + 1.7024143839193153), 1e-15);
        // The third-order condition of the symmetric composition: 2 w1³ + w0³ = 0.
        QCOMPARE_LE(std::abs(2 * std::pow(y->weights[0], 3) + std::pow(y->weights[1], 3)), 1e-14);
    }

    void unknownIntegratorRefused()
    {
        World w;
        w.addBody({0, 0, 0, 1}, {});
        SimParams p;
        p.integrator = "rk4";
        try {
            Simulation sim(w, p, "cpu");
            QFAIL("an unknown integrator was accepted");
        } catch (const std::invalid_argument& e) {
            const QString m = QString::fromUtf8(e.what());
            QVERIFY2(m.contains("rk4") && m.contains("leapfrog") && m.contains("yoshida4"), e.what());
        }
        // setParams keeps the old parameters on refusal.
        Simulation sim(w, SimParams{}, "cpu");
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, sim.setParams(p));
        QCOMPARE(sim.params().integrator, std::string("leapfrog"));
    }

    void keplerReturns_data()
    {
        QTest::addColumn<QString>("kernel");
        QTest::addColumn<QString>("integrator");
        QTest::addColumn<int>("stepsPerPeriod");
        QTest::newRow("reference/yoshida4") << "reference" << "yoshida4" << 1024;
        QTest::newRow("reference/leapfrog") << "reference" << "leapfrog" << 4096;
        QTest::newRow("tiled-fp64/yoshida4 (GPU)") << "tiled-fp64" << "yoshida4" << 1024;
    }
    void keplerReturns()
    {
        QFETCH(QString, kernel);
        QFETCH(QString, integrator);
        QFETCH(int, stepsPerPeriod);
        SKIP_UNAVAILABLE(kernel.toUtf8().constData());
        // e = 0.5, a = 1, T = 1: the pericentre r_p = 0.5 is passed at v_p = 2π sqrt(3), angular
        // rate Ω_p = v_p / r_p = 21.8, the fastest time scale of the orbit.
        const double e = 0.5;
        const int periods = 10;
        const ModelBodies b = kepler(e);
        const int p = findIntegrator(integrator.toStdString())->order;
        // Runs 10 periods with n steps per period (dt = 1/n: exact in fp32, so the time lands on
        // 10 T exactly); returns the separation's distance from its start and the max |ΔE/E|.
        auto run = [&](int n) {
            Simulation sim = makeSim(b, 1.0 / n, kernel.toUtf8().constData(), integrator.toUtf8().constData());
            const Diagnostics e0 = sim.measure();
            double maxDe = 0;
            for (int s = 0; s < periods * 16; ++s) {
                sim.step(n / 16);
                maxDe = std::max(maxDe, std::abs(relativeEnergyChange(e0, sim.measure())));
            }
            [&] { QCOMPARE(sim.time(), double(periods)); }(); // sums of 2^-k: exact
            const Fp64State now = widen(sim.world()); // the fp32 rounding of the fp64 state
            const double rx = now.position[1].x - now.position[0].x, ry = now.position[1].y - now.position[0].y;
            return std::tuple{rx, ry, maxDe};
        };
        const auto [rx, ry, maxDe] = run(stepsPerPeriod);
        const auto [rx2, ry2, maxDe2] = run(stepsPerPeriod / 2);
        const double dt = 1.0 / stepsPerPeriod;
        const double omegaDt = keplerPericentreSpeed(e) / (1 - e) * dt;
        const double err = std::hypot(rx - (1 - e), ry);
        // Bounds, with ε_p = (Ω_p dt)^p (p = 2 leapfrog, 4 Yoshida):
        // 1. Energy. Both methods are symplectic: the numerical orbit is the exact orbit of a
        //    modified Hamiltonian H + O(ε_p), so |ΔE/E| stays bounded by ε_p (no drift).
        // 2. Return, a priori. Each step's local error is O((Ω dt)^{p+1}) relative, largest at
        //    pericentre; over one orbit of T/dt steps the phase error is at most
        //    (T/dt)(Ω_p dt)^{p+1} = T Ω_p ε_p radians, so after n orbits the separation (length a = 1)
        //    is within n T Ω_p ε_p of its start.
        // 3. Return, from the order (Richardson). The same run with 2 dt has 2^p times the error,
        //    so the error at dt is |x(2dt) − x(dt)| / (2^p − 1) to leading order; we allow 1.5
        //    times that for the next order's term.
        // Both plus the fp32 read-out of world() (6e-8 relative: 1.2e-7 for the separation) and
        // the fp64 rounding of ≤ 4·10⁴ steps (≤ 1e-12).
        const double readout = 1.2e-7 + 1e-12;
        const double aPrioriE = std::pow(omegaDt, p);
        const double aPrioriX = periods * 1.0 * (keplerPericentreSpeed(e) / (1 - e)) * aPrioriE + readout;
        const double richardson = 1.5 * std::hypot(rx2 - rx, ry2 - ry) / (std::pow(2.0, p) - 1) + readout;
        qInfo("%s/%s: %d steps of dt %.4g (Omega_p dt = %.3g): max |dE/E| = %.3g (bound %.3g; %.3g at 2 dt)",
              qPrintable(kernel), qPrintable(integrator), periods * stepsPerPeriod, dt, omegaDt, maxDe, aPrioriE,
              maxDe2);
        qInfo("after %d periods: |r - r_0| = %.3g; bounds: a priori %.3g, from the run at 2 dt %.3g", periods, err,
              aPrioriX, richardson);
        QCOMPARE_LE(maxDe, aPrioriE);
        QCOMPARE_LE(err, aPrioriX);
        QCOMPARE_LE(err, richardson);
    }

    void energyConvergenceOrder_data()
    {
        QTest::addColumn<QString>("kernel");
        QTest::addColumn<QString>("integrator");
        QTest::addColumn<int>("stepsPerPeriod");
        // Steps per period at the coarser dt: Ω_p dt = 21.8 / n.
        QTest::newRow("cpu/leapfrog") << "cpu" << "leapfrog" << 512;
        QTest::newRow("reference/leapfrog") << "reference" << "leapfrog" << 512;
        QTest::newRow("reference/yoshida4") << "reference" << "yoshida4" << 256;
        QTest::newRow("tiled-fp64/yoshida4 (GPU)") << "tiled-fp64" << "yoshida4" << 256;
    }
    void energyConvergenceOrder()
    {
        QFETCH(QString, kernel);
        QFETCH(QString, integrator);
        QFETCH(int, stepsPerPeriod);
        SKIP_UNAVAILABLE(kernel.toUtf8().constData());
        // The energy error of a method of order p scales as dt^p: halving dt divides the maximum
        // energy error over one orbit by 2^p — 4 for leapfrog, 16 for Yoshida. With
        // ε(dt) = C dt^p (1 + D dt² + …) the measured ratio is 2^p (1 + ¾ D dt² + …); D dt² is of
        // the order of (Ω_p dt)² ≤ (21.8 / 256)² = 0.0073 here, so we allow 10 % (more than
        // ten times that). The fp32 `cpu` row's rounding floor (≈ 1e-7 · steps^½ ≈ 5e-6) is far
        // below its smallest error (≈ (Ω_p dt)² / 8 ≈ 2e-4).
        const ModelBodies b = kepler(0.5);
        double err[2];
        for (int k = 0; k < 2; ++k) {
            const int n = stepsPerPeriod << k;
            Simulation sim = makeSim(b, 1.0 / n, kernel.toUtf8().constData(), integrator.toUtf8().constData());
            err[k] = maxEnergyError(sim, n);
        }
        const int p = findIntegrator(integrator.toStdString())->order;
        const double expected = std::pow(2.0, p), ratio = err[0] / err[1];
        qInfo("%s/%s: max |dE/E| %.4g (dt) and %.4g (dt/2): ratio %.3f, expected %.0f", qPrintable(kernel),
              qPrintable(integrator), err[0], err[1], ratio, expected);
        QCOMPARE_LE(std::abs(ratio / expected - 1), 0.10);
    }

    void figureEightReturns_data()
    {
        QTest::addColumn<QString>("kernel");
        QTest::newRow("reference") << "reference";
        QTest::newRow("tiled-fp64 (GPU)") << "tiled-fp64";
    }
    void figureEightReturns()
    {
        QFETCH(QString, kernel);
        SKIP_UNAVAILABLE(kernel.toUtf8().constData());
        // Chenciner & Montgomery's figure eight with Simó's initial conditions, given to 8
        // digits, and its period T = 6.32591398. With n = 4000 Yoshida steps (dt ≈ 1.6e-3; the
        // closest approach is ≈ 0.7 at speeds ≤ 1.4, so Ω dt ≤ 3e-3 and the method's error
        // (Ω dt)⁴ · n ≈ 3e-7 · ... is ≈ 1e-7 at most) the orbit's return is limited by the
        // published digits: initial values rounded to 5e-9 and a period rounded to 5e-9 move the
        // return point by ≤ 5e-9 · (growth of the linearised flow over one period, which is of
        // order 10 to 100 for this linearly stable orbit, Simó 2002) + v · 5e-9. We allow 1e-6 for
        // positions and velocities, ten times the sum.
        const ModelBodies b = makeFigureEight();
        const int n = 4000;
        const double T = kFigureEightPeriod;
        SimParams p;
        p.G = 1;
        p.eps2 = 0;
        p.dt = float(T / n);
        p.integrator = "yoshida4";
        Simulation sim(b.world, b.exact, p, kernel.toStdString());
        const Diagnostics e0 = sim.measure();
        // fp32 dt: whole steps up to T, then one step of the rest (0 < rest ≤ dt).
        sim.step(int(std::floor(T / double(p.dt))));
        if (const double rest = T - sim.time(); rest > 0) {
            SimParams q = p;
            q.dt = float(rest);
            sim.setParams(q);
            sim.step(1);
        }
        const Diagnostics e1 = sim.measure();
        const Fp64State now = widen(sim.world());
        double worst = 0;
        for (int i = 0; i < 3; ++i) {
            worst = std::max(worst, dist(now.position[i], b.exact->position[i]));
            worst = std::max(worst, dist(now.velocity[i], b.exact->velocity[i]));
        }
        qInfo("%s: after one period (t = %.9g) max |x - x0|, |v - v0| = %.3g; |dE/E| = %.3g", qPrintable(kernel),
              sim.time(), worst, std::abs(relativeEnergyChange(e0, e1)));
        // + the fp32 readout of world() (|x| ≤ 1.1: ≤ 6.6e-8).
        QCOMPARE_LE(worst, 1e-6 + 6.6e-8);
        // And it is a choreography: halfway (T/2) body 1 is where body 0 started... checked by the
        // return above; energy: E = −1.287 (Simó), conserved to the method's error.
        QCOMPARE_LE(std::abs(e0.total + 1.2871), 1e-4);
        QCOMPARE_LE(std::abs(relativeEnergyChange(e0, e1)), 1e-8);
    }

    void everyKernelRunsYoshida()
    {
        // The composition uses kicks and drifts of any length (w0 < 0), so every kernel takes it:
        // 100 Yoshida steps of the Kepler pair on each available kernel agree with the fp64
        // reference to fp32 accuracy (relative 1e-7 per step, a 1e-5 allowance after 100 steps
        // of an orbit whose errors grow at most linearly).
        const ModelBodies b = kepler(0.5);
        Simulation ref = makeSim(b, 1.0 / 1024, "reference", "yoshida4");
        ref.step(100);
        const Fp64State want = widen(ref.world());
        int checked = 0;
        for (const KernelInfo& k : kernelRegistry()) {
            if (!availability(k).available)
                continue;
            Simulation sim = makeSim(b, 1.0 / 1024, std::string(k.id).c_str(), "yoshida4");
            sim.step(100);
            const Fp64State got = widen(sim.world());
            for (int i = 0; i < 2; ++i)
                QVERIFY2(dist(got.position[i], want.position[i]) < 1e-5, std::string(k.id).c_str());
            ++checked;
        }
        QVERIFY(checked >= 2); // cpu and reference at least
    }
};

QTEST_APPLESS_MAIN(TestIntegrators)
#include "tst_integrators.moc"
