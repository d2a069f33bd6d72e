// Diagnostics on the host: closed forms of a two-body circular orbit, the automatic evaluations of
// the Simulation (interval, observer, relative energy change), the CSV of the recorder, and
// `nbody run --diagnostics`. Qt Core only; the CLI's `tiled` row runs on the GPU machine.
#include "DiagnosticsTestData.h"
#include "sim/core/Diagnostics.h"
#include "sim/core/DiagnosticsRecorder.h"
#include "sim/core/Scenario.h"
#include "sim/core/Simulation.h"

#include <QtTest>

#include <QDir>
#include <QFile>
#include <QTemporaryDir>

#include <cmath>
#include <cstring>
#include <limits>
#include <numbers>
#include <random>

#include <omp.h>

using namespace nbody;

namespace {

/// A circular orbit of two bodies (masses m1, m2, separation a) in the xy-plane about their centre
/// of mass c, which moves with velocity V; gravitational constant G, softening ε².
/// Softened force: |F| = G m1 m2 a / (a² + ε²)^{3/2}, so ω² = G M / (a² + ε²)^{3/2} (M = m1 + m2)
/// and body k circles c at r1 = a m2 / M, r2 = a m1 / M with speed ω r_k. Closed forms:
///   K = ½ M V² + ½ μ a² ω²  (μ = m1 m2 / M, the reduced mass),   W = −G m1 m2 / sqrt(a² + ε²),
///   P = M V,   L = M c × V + μ a² ω ẑ,   centre of mass c,   its velocity V,
///   and for V = 0: 2K / |W| = μ a² ω² sqrt(a² + ε²) / (G m1 m2) = a² / (a² + ε²) (1 unsoftened).
struct TwoBody {
    double m1 = 3, m2 = 1, a = 2, G = 1.5, eps2 = 0.25;
    Double3 c{1, -2, 0.5}, V{0.25, 0.5, -1};

    double M() const { return m1 + m2; }
    double mu() const { return m1 * m2 / M(); }
    double omega() const { return std::sqrt(G * M() / std::pow(a * a + eps2, 1.5)); }
    Fp64State state() const
    {
        const double w = omega(), r1 = a * m2 / M(), r2 = a * m1 / M();
        Fp64State s;
        s.position = {{c.x - r1, c.y, c.z, m1}, {c.x + r2, c.y, c.z, m2}};
        s.velocity = {{V.x, V.y - w * r1, V.z, 0}, {V.x, V.y + w * r2, V.z, 0}};
        s.acceleration.resize(2);
        return s;
    }
    double K() const { return 0.5 * M() * (V.x * V.x + V.y * V.y + V.z * V.z) + 0.5 * mu() * a * a * omega() * omega(); }
    double W() const { return -G * m1 * m2 / std::sqrt(a * a + eps2); }
    Double3 L() const
    {
        return {M() * (c.y * V.z - c.z * V.y), M() * (c.z * V.x - c.x * V.z),
                M() * (c.x * V.y - c.y * V.x) + mu() * a * a * omega()};
    }
};

double norm(const Double3& v) { return std::sqrt(v.x * v.x + v.y * v.y + v.z * v.z); }
double dist(const Double3& a, const Double3& b) { return norm(Double3{a.x - b.x, a.y - b.y, a.z - b.z}); }

/// Checks every field of `d` against the closed forms of `o`, to relative tolerance `tol`
/// (vectors: relative to the larger of their norm and `scale` of the same unit).
void checkClosedForms(const Diagnostics& d, const TwoBody& o, double tol)
{
    const double K = o.K(), W = o.W();
    QCOMPARE_LE(std::abs(d.kinetic - K), tol * K);
    QCOMPARE_LE(std::abs(d.potential - W), tol * std::abs(W));
    QCOMPARE_LE(std::abs(d.total - (K + W)), tol * (K + std::abs(W)));
    QCOMPARE_LE(std::abs(d.mass - o.M()), tol * o.M());
    const Double3 P{o.M() * o.V.x, o.M() * o.V.y, o.M() * o.V.z};
    // P's terms are m_k v_k with |v_k| ≤ |V| + ω a: the error scales with Σ m_k |v_k|.
    const double pScale = o.M() * (norm(o.V) + o.omega() * o.a);
    QCOMPARE_LE(dist(d.momentum, P), tol * pScale);
    const double lScale = o.M() * (norm(o.c) + o.a) * (norm(o.V) + o.omega() * o.a);
    QCOMPARE_LE(dist(d.angularMomentum, o.L()), tol * lScale);
    QCOMPARE_LE(dist(d.centreOfMass, o.c), tol * (norm(o.c) + o.a));
    QCOMPARE_LE(dist(d.centreOfMassVelocity, o.V), tol * (norm(o.V) + o.omega() * o.a));
    QCOMPARE_LE(std::abs(d.virialRatio - 2 * K / std::abs(W)), tol * 4 * K / std::abs(W));
}

/// CSV text → rows of numbers (header checked separately).
QList<QList<double>> parseCsv(const QByteArray& text, QString* header)
{
    QList<QList<double>> rows;
    const QList<QByteArray> lines = text.split('\n');
    for (int i = 0; i < lines.size(); ++i) {
        if (lines[i].isEmpty())
            continue;
        if (i == 0) {
            *header = QString::fromUtf8(lines[i]);
            continue;
        }
        QList<double> row;
        for (const QByteArray& f : lines[i].split(','))
            row << f.toDouble();
        rows << row;
    }
    return rows;
}

enum Column { cTime, cStep, cK, cW, cE, cDE, cPx, cPy, cPz, cLx, cLy, cLz, cComX, cComY, cComZ, cVirial, cLost, cColumns };

} // namespace

class TestDiagnostics : public QObject {
    Q_OBJECT
private slots:
    void twoBodyClosedForms_data()
    {
        QTest::addColumn<double>("eps2");
        QTest::addColumn<bool>("moving");
        QTest::newRow("unsoftened, at rest") << 0.0 << false;
        QTest::newRow("softened, moving") << 0.25 << true;
    }
    void twoBodyClosedForms()
    {
        QFETCH(double, eps2);
        QFETCH(bool, moving);
        TwoBody o;
        o.eps2 = eps2;
        if (!moving)
            o.c = o.V = Double3{};
        // fp64 state: each quantity is a handful of fp64 operations on exact inputs (ω and the
        // speeds carry one sqrt each); with errors of a few 1.1e-16 and sums of two terms, 1e-14
        // relative to the scale of each quantity bounds them.
        const Diagnostics d = measureDiagnostics(o.state(), 0.0, 0, o.G, o.eps2);
        checkClosedForms(d, o, 1e-14);
        if (!moving)
            QCOMPARE_LE(std::abs(d.virialRatio - 4.0 / (4.0 + eps2)), 1e-14); // a²/(a² + ε²), a = 2
        // fp32 World: each input rounded to fp32 (relative 2^-24 = 6e-8); K, W, L are products of
        // up to three inputs and a square root, so relative errors stay below 4 · 6e-8 ≈ 2.4e-7 of
        // their scale; we allow 1e-6.
        World w = toWorld(o.state());
        checkClosedForms(measureDiagnostics(w, o.G, o.eps2), o, 1e-6);
    }
    void singleBodyHasNoPotential()
    {
        World w;
        w.addBody({1, 2, 3, 4}, {0.5f, 0, 0, 0});
        const Diagnostics d = measureDiagnostics(w, 1.0, 0.0);
        QCOMPARE(d.potential, 0.0);
        QCOMPARE(d.virialRatio, 0.0); // the documented convention for W = 0
        QCOMPARE(d.kinetic, 0.5 * 4 * 0.25);
        QCOMPARE(d.angularMomentum.x, 0.0);
        QCOMPARE(d.angularMomentum.y, 4 * 3 * 0.5); // m (z vx − x vz)
        QCOMPARE(d.angularMomentum.z, -4 * 2 * 0.5); // m (x vy − y vx)
        QCOMPARE(d.centreOfMass.z, 3.0);
    }
    void hostSumsSameBitsOnAnyThreadCount()
    {
        // The same state gave diagnostics that differed in the last bits from run to run (the
        // potential's OpenMP reduction added the threads' partial sums in the order they finished,
        // over a dynamic split), so two identical runs wrote different --diagnostics files. The
        // sums now have the same bits on 1, 2, 3, 5 and 8 threads and on every repetition: the
        // whole of a 4097-body system (pairs parallel from 256 rows), and the last 300 rows of
        // 70 001 bodies (the element sums parallel from 65 536).
        std::mt19937 rng(7);
        std::uniform_real_distribution<float> u(-1.f, 1.f), mass(0.1f, 1.f);
        auto make = [&](std::size_t n, std::vector<Float4>& pos, std::vector<Float4>& vel) {
            pos.resize(n);
            vel.resize(n);
            for (std::size_t i = 0; i < n; ++i) {
                pos[i] = Float4{u(rng), u(rng), u(rng), mass(rng)};
                vel[i] = Float4{u(rng), u(rng), u(rng), 0.f};
            }
        };
        std::vector<Float4> smallPos, smallVel, bigPos, bigVel;
        make(4097, smallPos, smallVel);
        make(70001, bigPos, bigVel);
        const auto bits = [](const DiagnosticSums& s) {
            const double v[] = {s.mass, s.massMoment.x, s.massMoment.y, s.massMoment.z, s.kinetic,
                                s.momentum.x, s.momentum.y, s.momentum.z, s.angularMomentum.x,
                                s.angularMomentum.y, s.angularMomentum.z, s.pairSum};
            QByteArray b(sizeof v, Qt::Uninitialized);
            std::memcpy(b.data(), v, sizeof v);
            return b;
        };
        const int was = omp_get_max_threads();
        omp_set_num_threads(1);
        const QByteArray small1 = bits(measureSums(smallPos, smallVel, 1e-3));
        const QByteArray big1 = bits(measureSums(bigPos, bigVel, 1e-3, 70001 - 300, 70001));
        for (int threads : {2, 3, 5, 8}) {
            omp_set_num_threads(threads);
            for (int repeat = 0; repeat < 3; ++repeat) {
                const QByteArray small = bits(measureSums(smallPos, smallVel, 1e-3));
                const QByteArray big = bits(measureSums(bigPos, bigVel, 1e-3, 70001 - 300, 70001));
                omp_set_num_threads(was);
                QVERIFY2(small == small1, qPrintable(QString("4097 bodies, %1 threads").arg(threads)));
                QVERIFY2(big == big1, qPrintable(QString("rows 69701-70000, %1 threads").arg(threads)));
                omp_set_num_threads(threads);
            }
        }
        omp_set_num_threads(was);
    }
    void simulationEvaluatesEveryInterval()
    {
        // Two-body circular orbit (unsoftened) in fp64 with the host reference kernel, 1000 steps
        // per period, diagnostics every 100 steps: samples at steps 0, 100, …, 1000.
        TwoBody o;
        o.eps2 = 0;
        o.c = o.V = Double3{};
        SimParams p;
        p.G = o.G;
        p.eps2 = 0;
        const double period = 2 * std::numbers::pi / o.omega();
        p.dt = float(period / 1000);
        p.diagnosticsInterval = 100;
        Simulation sim(toWorld(o.state()), p, "reference");
        QList<Diagnostics> seen;
        sim.setDiagnosticsObserver([&](const Diagnostics& d) { seen << d; });
        for (int i = 0; i < 10; ++i)
            sim.step(97); // chunks that are no multiple of the interval
        sim.step(30);
        QCOMPARE(seen.size(), 11);
        const Diagnostics& e0 = seen.front();
        QCOMPARE(e0.energyChange, 0.0);
        QVERIFY(sim.initialDiagnostics() && sim.initialDiagnostics()->total == e0.total);
        QCOMPARE(sim.latestDiagnostics()->step, std::uint64_t(1000));
        // Bounds. KDK leapfrog keeps a modified energy exactly, so |ΔE/E| and the relative
        // changes of K and W (the orbit becomes an ellipse of eccentricity O((ω dt)²)) stay below
        // a small multiple of (ω dt)² = (2π/1000)² = 3.9e-5: we allow 4 (ω dt)². The kicks are
        // central and the drift keeps r × v, so L is conserved up to rounding: 1000 steps of a
        // few fp64 roundings (1e-16) each, 1e-12 relative; P likewise up to 1e-12 of Σ m |v| (P0
        // itself is not 0: the orbit's velocities were rounded to fp32 in the World).
        const double wdt2 = std::pow(o.omega() * double(p.dt), 2);
        double maxDe = 0, maxVirial = 0;
        for (const Diagnostics& d : seen) {
            maxDe = std::max(maxDe, std::abs(d.energyChange));
            maxVirial = std::max(maxVirial, std::abs(d.virialRatio - 1.0));
        }
        qInfo("max |dE/E0| = %.3g, max |2K/|W| - 1| = %.3g, (omega dt)^2 = %.3g", maxDe, maxVirial, wdt2);
        for (int k = 0; k < seen.size(); ++k) {
            const Diagnostics& d = seen[k];
            QCOMPARE(d.step, std::uint64_t(100 * k));
            QCOMPARE_LE(std::abs(d.time - 100.0 * k * double(p.dt)), 1e-12 * period);
            QCOMPARE(d.energyChange, relativeEnergyChange(e0, d));
            QCOMPARE_LE(std::abs(d.energyChange), 4 * wdt2);
            QCOMPARE_LE(std::abs(d.virialRatio - 1.0), 4 * wdt2);
            QCOMPARE_LE(dist(d.angularMomentum, e0.angularMomentum), 1e-12 * norm(e0.angularMomentum));
            QCOMPARE_LE(dist(d.momentum, e0.momentum), 1e-12 * o.M() * o.omega() * o.a);
        }
        // On request: the same state, energyChange against E0.
        const Diagnostics now = sim.measure();
        QCOMPARE(now.total, seen.back().total);
        QCOMPARE(now.energyChange, seen.back().energyChange);
        // A new ε² makes energies incomparable: E0 is measured again at the next step.
        SimParams q = sim.params();
        q.eps2 = 0.01f;
        sim.setParams(q);
        QVERIFY(!sim.initialDiagnostics());
        sim.step(1);
        QCOMPARE(seen.size(), 12);
        QCOMPARE(seen.back().energyChange, 0.0);
        QCOMPARE(seen.back().step, std::uint64_t(1000));
    }
    void energyChangeMaximumKeepsThePeak()
    {
        // The running maximum of |ΔE/E₀|: the sign and the place of the largest kept, an
        // equal later value does not move it, a non-finite change stays the maximum.
        EnergyChangeMaximum m;
        QVERIFY(!m.exceeds(0.0)); // nothing seen
        m.add(0.0, 0.0, 0);
        m.add(-0.529, 3.14, 200);
        m.add(1.4e-4, 6.28, 400);
        m.add(0.529, 7.0, 450);
        QCOMPARE(m.evaluations, std::size_t(4));
        QCOMPARE(m.magnitude, 0.529);
        QCOMPARE(m.change, -0.529);
        QCOMPARE(m.step, std::uint64_t(200));
        QCOMPARE(m.time, 3.14);
        QVERIFY(m.exceeds(0.01));
        QVERIFY(!m.exceeds(0.529)); // at the tolerance is within it
        m.add(std::numeric_limits<double>::infinity(), 8.0, 500);
        m.add(1e-3, 9.0, 600);
        QVERIFY(std::isnan(m.magnitude));
        QCOMPARE(m.step, std::uint64_t(500));
        QVERIFY(m.exceeds(1e300));
        // Over a series, as DiagnosticsRecorder keeps it.
        std::vector<Diagnostics> series(3);
        series[1].energyChange = 2e-3;
        series[1].step = 10;
        series[2].energyChange = -1e-3;
        series[2].step = 20;
        const EnergyChangeMaximum s = energyChangeMaximum(series);
        QCOMPARE(s.change, 2e-3);
        QCOMPARE(s.step, std::uint64_t(10));
        QCOMPARE(s.evaluations, std::size_t(3));
    }
    void noEvaluationsWithoutInterval()
    {
        TwoBody o;
        Simulation sim(toWorld(o.state()), SimParams{}, "cpu");
        int calls = 0;
        sim.setDiagnosticsObserver([&](const Diagnostics&) { ++calls; });
        sim.step(20);
        QCOMPARE(calls, 0);
        QVERIFY(!sim.initialDiagnostics());
    }
    void csvColumnsAndValues()
    {
        Diagnostics a;
        a.time = 0.1;
        a.step = 1;
        a.kinetic = 1.0 / 3.0;
        a.potential = -2e300;
        a.total = a.kinetic + a.potential;
        a.energyChange = -1.2345678901234567e-9;
        a.momentum = {1e-300, -0.0, 7};
        a.angularMomentum = {std::numbers::pi, -std::numbers::e, 1e20};
        a.centreOfMass = {-1, 2.5, 1e-5};
        a.virialRatio = 0.999999999999;
        a.energyLost = -3.25e-7;
        Diagnostics b = a;
        b.step = 18446744073709551615ull; // the largest step still prints exactly
        DiagnosticsRecorder r;
        r.append(a);
        r.append(b);
        QString header;
        const QList<QList<double>> rows = parseCsv(QByteArray::fromStdString(r.csv()), &header);
        QCOMPARE(header, QStringLiteral("time,step,kinetic,potential,total,energy_change,px,py,pz,lx,ly,lz,"
                                        "com_x,com_y,com_z,virial_ratio,energy_lost"));
        QCOMPARE(rows.size(), 2);
        QCOMPARE(rows[0].size(), int(cColumns));
        // %.17g reads back to the same doubles.
        const QList<double> want = {a.time, 1, a.kinetic, a.potential, a.total, a.energyChange,
                                    a.momentum.x, a.momentum.y, a.momentum.z, a.angularMomentum.x,
                                    a.angularMomentum.y, a.angularMomentum.z, a.centreOfMass.x,
                                    a.centreOfMass.y, a.centreOfMass.z, a.virialRatio, a.energyLost};
        for (int c = 0; c < cColumns; ++c)
            QCOMPARE(rows[0][c], want[c]);
        QVERIFY(QByteArray::fromStdString(r.csv()).split('\n')[2].startsWith("0.10000000000000001,18446744073709551615,"));
    }
    void csvWriteIsAtomic()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        DiagnosticsRecorder r;
        r.append(Diagnostics{});
        const QString good = dir.filePath("d.csv");
        r.writeCsv(good.toStdString());
        QFile f(good);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll().count('\n'), 2);
        // A target in a missing directory and a directory as target: refused, nothing written.
        for (const QString& bad : {dir.filePath("missing/d.csv"), dir.path()}) {
            bool threw = false;
            try {
                r.writeCsv(bad.toStdString());
            } catch (const std::runtime_error& e) {
                threw = true;
                QVERIFY2(QString::fromUtf8(e.what()).contains(bad), e.what());
            }
            QVERIFY(threw);
        }
        QCOMPARE(QDir(dir.path()).entryList(QDir::NoDotAndDotDot | QDir::AllEntries), QStringList{"d.csv"});
    }
    void cliWritesDiagnostics_data()
    {
        QTest::addColumn<QString>("kernel");
        QTest::addColumn<bool>("capture"); // with a capture, GPU kernels step in the GL buffers (interop)
        QTest::newRow("cpu") << "cpu" << false;
        QTest::newRow("tiled") << "tiled" << false;
        QTest::newRow("tiled-fp64") << "tiled-fp64" << false;
        QTest::newRow("cpu, capture") << "cpu" << true;
        QTest::newRow("tiled, capture") << "tiled" << true;
        QTest::newRow("tiled-fp64, capture") << "tiled-fp64" << true;
    }
    void cliWritesDiagnostics()
    {
        QFETCH(QString, kernel);
        QFETCH(bool, capture);
        if (kernel != "cpu" && !cliKernelAvailable(kernel))
            QSKIP("the kernel is not available here (no CUDA device or built without CUDA)");
        QTemporaryDir dir;
        const QString csv = dir.filePath("diag.csv");
        // 301 bodies of the default cube (at rest), softened to match their spacing; 23 steps with
        // a row every 5: steps 0, 5, 10, 15, 20 and the final 23.
        QStringList args = {"run", "--kernel", kernel, "--bodies", "301", "--steps", "23", "--eps2", "1e8",
                            "--dt", "0.5", "--diagnostics", csv, "--diagnostics-every", "5"};
        if (capture)
            args << "--capture" << dir.filePath("final.png") << "--width" << "64" << "--height" << "64";
        const CliResult r = runCli(args);
        if (capture && r.code == 2 && r.err.contains("cannot render headless"))
            QSKIP(qPrintable("no headless OpenGL here: " + r.err));
        QVERIFY2(r.code == 0, qPrintable(r.err + r.out));
        QVERIFY2(r.out.contains("Diagnostics written to ") && r.out.contains("(6 rows, every 5 steps)"),
                 qPrintable(r.out));
        QVERIFY(r.out.contains("virial ratio 2K/|W|:"));
        QFile f(csv);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QString header;
        const QList<QList<double>> rows = parseCsv(f.readAll(), &header);
        QCOMPARE(header, QString::fromLatin1(kDiagnosticsCsvHeader.data(), kDiagnosticsCsvHeader.size()));
        QCOMPARE(rows.size(), 6);
        const QList<int> steps = {0, 5, 10, 15, 20, 23};
        for (int k = 0; k < rows.size(); ++k) {
            const QList<double>& row = rows[k];
            QCOMPARE(row.size(), int(cColumns));
            QCOMPARE(row[cStep], double(steps[k]));
            QCOMPARE_LE(std::abs(row[cTime] - 0.5 * steps[k]), 1e-12);
            // Relations that hold exactly: the same fp64 operations on the same doubles.
            QCOMPARE(row[cE], row[cK] + row[cW]);
            QCOMPARE(row[cDE], (row[cE] - rows[0][cE]) / std::abs(rows[0][cE]));
            QCOMPARE(row[cVirial], 2 * row[cK] / std::abs(row[cW]));
        }
        // Step 0: the cube at rest, so K, P, L and the virial ratio are 0; W and the centre of
        // mass are those of the host evaluation of the same bodies. Host (cpu) evaluations
        // agree to fp64 summation order, 2 N 2^-53 ≈ 7e-14; the fp32 GPU kernel's pair terms are
        // exact to 8 · 2^-24 = 4.8e-7 relative (tst_gpu_diagnostics derives it), all of one sign.
        CubeParams c;
        c.bodies = 301;
        const Diagnostics host = measureDiagnostics(makeUniformCube(c), 1.0, 1e8);
        const double tolW = kernel == "tiled" ? 4.8e-7 : 1e-13;
        for (int col : {cK, cPx, cPy, cPz, cLx, cLy, cLz, cVirial})
            QCOMPARE(rows[0][col], 0.0);
        QCOMPARE_LE(std::abs(rows[0][cW] - host.potential), tolW * std::abs(host.potential));
        QCOMPARE_LE(dist(Double3{rows[0][cComX], rows[0][cComY], rows[0][cComZ]}, host.centreOfMass), 1e-13 * 1e5);
        // The cube falls together: K grows, W deepens, the energy is kept (|ΔE/E0| small).
        QVERIFY(rows.last()[cK] > 0);
        QVERIFY(rows.last()[cW] < rows[0][cW]);
        QCOMPARE_LE(std::abs(rows.last()[cDE]), 1e-3);
    }
    void cliRefusesBadDiagnosticsTargets()
    {
        QTemporaryDir dir;
        for (const QString& target : {dir.filePath("missing/diag.csv"), dir.path(), QString()}) {
            const CliResult r = runCli({"run", "--kernel", "cpu", "--bodies", "10", "--steps", "2", "--diagnostics", target});
            QCOMPARE(r.code, 2);
            QVERIFY2(r.err.contains("diagnostics"), qPrintable(r.err));
            QVERIFY2(!r.out.contains("step "), "refused before running");
        }
        const CliResult r = runCli({"run", "--bodies", "10", "--diagnostics", dir.filePath("x.csv"), "--diagnostics-every", "0"});
        QCOMPARE(r.code, 2);
        // --diagnostics-every alone would be silently ignored: refused.
        const CliResult alone = runCli({"run", "--bodies", "10", "--diagnostics-every", "5"});
        QCOMPARE(alone.code, 2);
        QVERIFY2(alone.err.contains("--diagnostics"), qPrintable(alone.err));
        QCOMPARE(QDir(dir.path()).entryList(QDir::NoDotAndDotDot | QDir::AllEntries), QStringList{});
    }
};

QTEST_GUILESS_MAIN(TestDiagnostics)
#include "tst_diagnostics.moc"
