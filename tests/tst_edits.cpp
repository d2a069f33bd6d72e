// Sandbox editing in the core (Qt Core + Test only): World::removeBodies, the Plummer cluster,
// add / remove / undo by id, the screen-region query, and a CPU simulation that keeps running
// across edits. The controller-level rows (with CUDA kernels on the GPU server) are in
// tst_controller (editsKeepRunning).
#include "sim/core/Diagnostics.h"
#include "sim/core/Edits.h"
#include "sim/core/Simulation.h"

#include <QtTest>

#include <algorithm>
#include <cmath>

using namespace nbody;

namespace {

World numbered(std::size_t n)
{
    World w;
    for (std::size_t i = 0; i < n; ++i)
        w.addBody({float(i), 2.f * float(i), 0.f, 1.f + float(i)}, {0.f, 0.f, float(i), 0.f},
                  i % 2 ? Group::Star : Group::DarkMatter);
    return w;
}

} // namespace

class TestEdits : public QObject {
    Q_OBJECT
private slots:
    void removeBodiesKeepsOrderAndIds()
    {
        World w = numbered(11);
        QCOMPARE(w.removeBodies({9, 2, 5, 2}), std::size_t(3)); // duplicates count once
        QCOMPARE(w.size(), std::size_t(8));
        const std::vector<std::uint32_t> ids(w.ids().begin(), w.ids().end());
        QCOMPARE(ids, (std::vector<std::uint32_t>{0, 1, 3, 4, 6, 7, 8, 10}));
        for (std::size_t i = 0; i < w.size(); ++i) { // every column moved together
            const float k = float(ids[i]);
            QCOMPARE(w.positions()[i].x, k);
            QCOMPARE(w.positions()[i].w, 1.f + k);
            QCOMPARE(w.velocities()[i].z, k);
            QCOMPARE(w.groups()[i], ids[i] % 2 ? Group::Star : Group::DarkMatter);
        }
        QVERIFY(w.validate().empty());
        QVERIFY_THROWS_EXCEPTION(std::out_of_range, w.removeBodies({0, 8}));
        QCOMPARE(w.size(), std::size_t(8)); // nothing removed by the refused call
        // A new body gets an id never used before, even after removals.
        w.addBody({0, 0, 0, 1}, {});
        QCOMPARE(w.ids().back(), std::uint32_t(11));
    }

    void plummerCluster()
    {
        // N = 2001 bodies, M = 3, a = 0.5, G = 2. Expected (Plummer 1911; AHW 1974):
        //  - centre of mass at `centre`, mean velocity `velocity` (exact up to fp32 rounding);
        //  - virial ratio 2K / |W| = 1: the sample's scatter is about 1/sqrt(N) ≈ 2 %, and the
        //    truncation at 10 a moves it by about 1 %: tolerance 0.08;
        //  - half-mass radius: M(r)/M = r³/(r²+a²)^1.5, truncated at 10 a (mass fraction
        //    f = 1000/101^1.5): r_h solves M(r_h)/M = f/2; the median of N radii scatters by
        //    about 1.3/sqrt(N) relative ≈ 3 %: tolerance 8 %.
        const std::size_t n = 2001;
        const double M = 3, a = 0.5, G = 2;
        const Double3 centre{10, -20, 30}, velocity{1, 2, -3};
        const World w = makePlummerCluster(n, M, a, centre, velocity, G, 7);
        QCOMPARE(w.size(), n);
        QVERIFY(w.validate().empty());
        const MassCentre mc = centreOfMass(w);
        QVERIFY(std::abs(mc.mass - M) < 1e-5 * M);
        QVERIFY(std::abs(mc.centre.x - centre.x) < 1e-4 && std::abs(mc.centre.y - centre.y) < 1e-4 &&
                std::abs(mc.centre.z - centre.z) < 1e-4);
        Double3 mv;
        for (const Float4& v : w.velocities())
            mv = {mv.x + v.x / double(n), mv.y + v.y / double(n), mv.z + v.z / double(n)};
        QVERIFY(std::abs(mv.x - velocity.x) < 1e-5 && std::abs(mv.y - velocity.y) < 1e-5 &&
                std::abs(mv.z - velocity.z) < 1e-5);
        // Virial ratio in the centre-of-mass frame.
        World rest = w;
        for (Float4& v : rest.velocities()) {
            v.x -= float(velocity.x);
            v.y -= float(velocity.y);
            v.z -= float(velocity.z);
        }
        const Diagnostics d = measureDiagnostics(rest, G, 0.0);
        const double ratio = 2 * d.kinetic / std::abs(d.potential);
        QVERIFY2(std::abs(ratio - 1) < 0.08, qPrintable(QString::number(ratio)));
        std::vector<double> r;
        for (const Float4& p : w.positions())
            r.push_back(std::sqrt((p.x - centre.x) * (p.x - centre.x) + (p.y - centre.y) * (p.y - centre.y) +
                                  (p.z - centre.z) * (p.z - centre.z)));
        QVERIFY(*std::max_element(r.begin(), r.end()) <= 10 * a * 1.05); // truncated (COM shift aside)
        std::nth_element(r.begin(), r.begin() + std::ptrdiff_t(n / 2), r.end());
        const double f = 1000 / std::pow(101.0, 1.5), u = f / 2;
        const double rh = a / std::sqrt(std::pow(u, -2.0 / 3.0) - 1);
        QVERIFY2(std::abs(r[n / 2] / rh - 1) < 0.08, qPrintable(QString("%1 vs %2").arg(r[n / 2]).arg(rh)));
        // Deterministic for a seed.
        const World again = makePlummerCluster(n, M, a, centre, velocity, G, 7);
        QCOMPARE(again.positions()[1234].x, w.positions()[1234].x);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, makePlummerCluster(0, M, a, centre, velocity, G, 1));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, makePlummerCluster(5, M, -a, centre, velocity, G, 1));
    }

    void addRemoveUndo()
    {
        World w = numbered(31);
        const EditRecord added = addBodies(w, makePlummerCluster(17, 1, 1, {}, {}, 1, 3), "cluster");
        QCOMPARE(w.size(), std::size_t(48));
        QCOMPARE(added.ids.size(), std::size_t(17));
        QCOMPARE(added.ids.front(), std::uint32_t(31));
        // The system moves on; undo still finds the added bodies by id.
        w.removeBodies({0});
        QCOMPARE(undoEdit(w, added), std::size_t(17));
        QCOMPARE(w.size(), std::size_t(30));
        QVERIFY(std::none_of(w.ids().begin(), w.ids().end(), [](std::uint32_t id) { return id >= 31; }));

        const World before = w;
        const EditRecord removed = removeBodies(w, {3, 4, 29}, "three");
        QCOMPARE(w.size(), std::size_t(27));
        QCOMPARE(removed.removed.size(), std::size_t(3));
        QCOMPARE(undoEdit(w, removed), std::size_t(3));
        QCOMPARE(w.size(), before.size());
        std::vector<std::uint32_t> a(w.ids().begin(), w.ids().end()), b(before.ids().begin(), before.ids().end());
        std::sort(a.begin(), a.end());
        std::sort(b.begin(), b.end());
        QVERIFY(a == b); // the same entities, with their ids
        QVERIFY_THROWS_EXCEPTION(std::out_of_range, removeBodies(w, {30}, "bad"));
        World bad;
        bad.addBody({0, 0, 0, 1}, {});
        bad.positions()[0].x = NAN;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, addBodies(w, bad, "nan"));
        QCOMPARE(w.size(), before.size());
    }

    void region()
    {
        // Identity view-projection: NDC = (x, y) for w = 1. Bodies at x = 0..10 (y = 2x).
        const World w = numbered(11);
        const float identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
        QCOMPARE(bodiesInRegion(w, identity, 2.5f, 0.f, 0.5f, 100.f), (std::vector<BodyIndex>{1, 2}));
        QCOMPARE(bodiesInRegion(w, identity, -1.f, -1.f, 1.f, 1.f), (std::vector<BodyIndex>{0}));
        // w = −1 everywhere: behind the camera, never selected.
        const float behind[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, -1};
        QVERIFY(bodiesInRegion(w, behind, -100.f, -100.f, 100.f, 100.f).empty());
    }

    void cpuSimulationKeepsRunning()
    {
        // Edits go through Simulation::setWorld with the current time and step: the run goes on.
        World start;
        for (int i = 0; i < 1001; ++i)
            start.addBody({float(i % 10), float(i / 10 % 10), float(i / 100), 1.f}, {});
        SimParams p;
        p.eps2 = 0.5f;
        p.dt = 0.01f;
        Simulation sim(start, p, "cpu");
        sim.step(3);
        World w = sim.world();
        const EditRecord added = addBodies(w, makePlummerCluster(33, 10, 0.3, {5, 5, 5}, {0, 0, 0}, 1, 9), "c");
        sim.setWorld(w);
        QCOMPARE(sim.size(), std::size_t(1034));
        QCOMPARE(sim.stepCount(), std::uint64_t(3));
        sim.step(2);
        QCOMPARE(sim.stepCount(), std::uint64_t(5));
        QVERIFY(sim.checkFinite().empty());
        w = sim.world();
        std::vector<BodyIndex> all(100);
        for (std::size_t i = 0; i < all.size(); ++i)
            all[i] = i * 3;
        removeBodies(w, all, "100");
        sim.setWorld(w);
        QCOMPARE(sim.size(), std::size_t(934));
        sim.step(2);
        QCOMPARE(sim.stepCount(), std::uint64_t(7));
        QVERIFY(sim.checkFinite().empty());
        QVERIFY(std::abs(sim.time() - 7 * double(0.01f)) < 1e-12); // time went on: 7 steps of the fp32 dt
        w = sim.world();
        undoEdit(w, added);
        sim.setWorld(w);
        QCOMPARE(sim.size(), std::size_t(901));
        sim.step(1);
        QVERIFY(sim.checkFinite().empty());
    }
};

QTEST_GUILESS_MAIN(TestEdits)
#include "tst_edits.moc"
