// KDK leapfrog on a two-body circular orbit: radius and energy stay within derived bounds.
#include "sim/core/Simulation.h"

#include <QtTest>

#include <cmath>
#include <numbers>

using namespace nbody;

class TestIntegrator : public QObject {
    Q_OBJECT
private slots:
    void circularOrbit_data()
    {
        QTest::addColumn<QString>("kernel");
        QTest::newRow("cpu") << "cpu";
        QTest::newRow("reference") << "reference";
    }
    void circularOrbit()
    {
        QFETCH(QString, kernel);
        // Two equal masses m = 0.5 at separation d = 1, G = 1, ε² = 0: each circles the centre of
        // mass at r = 0.5 with v² = G m r / d² = 0.25, ω = v / r = 1, period T = 2π.
        World w;
        w.addBody({0.5f, 0, 0, 0.5f}, {0, 0.5f, 0, 0});
        w.addBody({-0.5f, 0, 0, 0.5f}, {0, -0.5f, 0, 0});
        SimParams p;
        p.G = 1;
        p.eps2 = 0;
        const double T = 2 * std::numbers::pi;
        const int stepsPerPeriod = 1000;
        p.dt = float(T / stepsPerPeriod);
        Simulation sim(w, p, kernel.toStdString());
        const Diagnostics e0 = sim.measure();
        QCOMPARE_LE(std::abs(e0.total - (-0.125)), 1e-7); // K = 2·½·0.5·0.25 = 0.125, W = −0.25

        // Bounds. Leapfrog on an orbit of angular frequency ω keeps a modified energy exactly, so
        // the energy error is bounded (no drift) by O((ω dt)²); the orbit it traces is a slightly
        // eccentric ellipse with relative radius change O((ω dt)²). With ω dt = 2π/1000,
        // (ω dt)² = 3.9e-5. fp32 state adds rounding: 10 000 steps of ~6e-8 relative error each,
        // as a random walk ≈ 100 · 6e-8 = 6e-6, as a worst-case bias 6e-4 — observed far below;
        // we allow 1e-5. So |ΔE/E| ≤ (ω dt)² + 1e-5 and |r/r0 − 1| ≤ (ω dt)² + 1e-5.
        const double wdt2 = std::pow(2 * std::numbers::pi / stepsPerPeriod, 2);
        const double bound = wdt2 + 1e-5;
        double maxDr = 0, maxDe = 0;
        for (int period = 0; period < 10; ++period) {
            for (int chunk = 0; chunk < 10; ++chunk) {
                sim.step(stepsPerPeriod / 10);
                const auto& x = sim.world().positions();
                const double dx = x[0].x - x[1].x, dy = x[0].y - x[1].y, dz = x[0].z - x[1].z;
                maxDr = std::max(maxDr, std::abs(std::sqrt(dx * dx + dy * dy + dz * dz) - 1.0));
                maxDe = std::max(maxDe, std::abs(relativeEnergyChange(e0, sim.measure())));
            }
        }
        qInfo("max |r/r0 - 1| = %.3g, max |dE/E| = %.3g, bound %.3g", maxDr, maxDe, bound);
        QCOMPARE_LE(maxDr, bound);
        QCOMPARE_LE(maxDe, bound);
        // After 10 periods the bodies are back where they started, up to the phase error: the
        // orbit's mean radius is off by up to `bound`, so by Kepler's third law (T ∝ r^{3/2}) its
        // period by 1.5·bound, plus leapfrog's own frequency error (ω dt)²/24 — over 10 periods
        // (62.8 rad) the phase error is ≤ 62.8·(1.5·bound + (ω dt)²/24) rad, and the position
        // error r = 0.5 times that.
        const double phaseBound = 20 * std::numbers::pi * (1.5 * bound + wdt2 / 24);
        const auto& x = sim.world().positions();
        qInfo("after 10 periods: body 0 at (%.6g, %.6g); position bound %.3g", double(x[0].x), double(x[0].y),
              0.5 * phaseBound);
        QCOMPARE_LE(std::abs(x[0].x - 0.5), 0.5 * phaseBound);
        QCOMPARE_LE(std::abs(x[0].y), 0.5 * phaseBound);
        QCOMPARE_LE(std::abs(sim.time() - 10 * T), 10 * T * 1e-6);
        QCOMPARE(sim.stepCount(), std::uint64_t(10 * stepsPerPeriod));
    }
    void halfKickBugWouldFail()
    {
        // The predecessor's "leapfrog" added only ½ a dt per step: a body falling
        // from rest under constant acceleration would reach only half the speed. With KDK, a test
        // particle next to a heavy body gains v = a·t exactly in one step: v1 = ½a0 dt + ½a1 dt.
        World w;
        w.addBody({0, 0, 0, 1e6f}, {});
        w.addBody({1000, 0, 0, 0}, {});
        SimParams p;
        p.eps2 = 0;
        p.dt = 1e-3f;
        Simulation sim(w, p, "reference");
        sim.step(1);
        const double a = 1e6 / 1e6; // G m / r² = 1
        const double v = sim.world().velocities()[1].x;
        QCOMPARE_LE(std::abs(v + a * p.dt), 1e-7);
    }
};

QTEST_APPLESS_MAIN(TestIntegrator)
#include "tst_integrator.moc"
