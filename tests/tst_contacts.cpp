// The contact-search rows (sim/collide/Collisions.h, kernels/ContactSearch.h, docs/contact-search.md).
//
// CPU (runs everywhere, CI included): the touching test on exact cases; `cpu-pairs` against
// pair lists known in closed form — a jittered line (exactly the N − 1 neighbours), jittered
// cubic lattices whose touching pairs are exactly the lattice's axis neighbours or axis and
// face-diagonal neighbours (the jitter and radius keep every other distance on the far side of
// the radius sum, margins below), coincident bodies (all N(N − 1)/2 pairs), radius 0; the
// registry; the bench system's pair count against the closed form of the distance distribution.
//
// GPU (QSKIP without a device; run by scripts/gpu-check.sh, part `contacts`): every CUDA row
// returns exactly the pairs of `cpu-pairs` (same pairs, same order) at N = 1, 2, 31, 33, 1000,
// 4097 for every system, twice (deterministic); the cell list's hashed and one-cell grids; the
// atomic list's overflow and rerun; more pairs than memory holds gives std::length_error and
// the rows still work afterwards.
#include "sim/collide/Collisions.h"
#include "sim/perf/ContactBenchmark.h"
#include "sim/collide/ContactHost.h"
#include "sim/base/DeviceInfo.h"
#include "sim/base/Random.h"

#if NBODY_HAVE_CUDA
#include "kernels/ContactSearch.h"
#endif

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>

using namespace nbody;

namespace {

struct System {
    std::vector<Float4> pos;
    std::vector<float> radius;
};

/// Lattice offsets of the touching neighbours: the 6 axis neighbours, or those and the 12 face
/// diagonals.
std::vector<std::array<int, 3>> latticeOffsets(bool faceDiagonals)
{
    std::vector<std::array<int, 3>> o;
    for (int z = -1; z <= 1; ++z)
        for (int y = -1; y <= 1; ++y)
            for (int x = -1; x <= 1; ++x) {
                const int nonZero = (x != 0) + (y != 0) + (z != 0);
                if (nonZero == 1 || (faceDiagonals && nonZero == 2))
                    o.push_back({x, y, z});
            }
    return o;
}

/// Side of the lattice box holding n points: the smallest m with m³ ≥ n. Point k sits at
/// (k mod m, ⌊k/m⌋ mod m, ⌊k/m²⌋), x fastest: the first n points of an m × m × m box.
int latticeSide(std::size_t n)
{
    int m = 1;
    while (std::size_t(m) * m * m < n)
        ++m;
    return m;
}

/// The systems of the tests, n bodies, deterministic for a seed.
///  line:       x_k = k + U(±0.1), y, z = U(±0.05), R = 0.65: neighbours are at most
///              √(1.2² + 0.1² + 0.1²) = 1.209 < 1.3 apart, next-but-one at least 1.8: exactly the
///              N − 1 pairs (k, k + 1).
///  lattice:    unit lattice (latticeSide), each coordinate jittered by U(±0.02) (differences
///              ±0.04), R = 0.6: axis neighbours ≤ √(1.04² + 2·0.04²) = 1.042 < 1.2, face
///              diagonals ≥ 0.96·√2 = 1.358 > 1.2: exactly the axis neighbours.
///  lattice-fd: the same lattice, R = 0.775: face diagonals ≤ √(2·1.04² + 0.04²) = 1.471 < 1.55,
///              body diagonals ≥ 0.96·√3 = 1.663 and distance-2 neighbours ≥ 1.96 > 1.55: exactly
///              the axis and face-diagonal neighbours.
///  coincident: every body at (0.25, −0.5, 1), R = 1: all N(N − 1)/2 pairs.
///  zero:       the lattice with every radius 0: no pairs.
///  half-zero:  the lattice, even bodies R = 0, odd bodies R = 1.2 (a radius-0 body touches an odd
///              neighbour whose sphere holds its centre; two odd bodies touch up to 2.4 apart).
///  clustered:  ⌈N/40⌉ Gaussian clusters (σ = 0.4) with centres uniform in [−8, 8]³; radii 0 for
///              a fifth of the bodies, U(0, 0.25) for most, U(1, 2) for one in a hundred.
///  one-cell:   bodies uniform in [0, 1]³ with R = U(0, 0.05), body 0 with R = 2: the cell list's
///              cell (≥ 4) holds the whole system.
///  far:        the clustered system with a few bodies moved far away: ±1e6, ±1e30 on the axes,
///              two touching pairs at 1e7 and at −3e12 (coincident in fp32), one at 1e38: the cell
///              grid is clamped and hashed.
///  sparse:     bodies in close pairs (0.56 apart, R = 0.3, the second of every other pair R = 0)
///              at random points of [−1000, 1000]³: about 10⁹ cells of 1.2 for N bodies, so the
///              cell list hashes a sparse grid.
///  nonfinite:  the clustered system with some coordinates NaN or ±inf (such bodies touch
///              nothing: their distances are NaN or infinite).
System makeSystem(const QString& shape, std::size_t n, std::uint64_t seed = 11)
{
    System s;
    s.pos.resize(n);
    s.radius.resize(n);
    Xoshiro256 rng(seed);
    const auto u = [&](double lo, double hi) { return float(rng.uniform(lo, hi)); };
    const auto lattice = [&](float r) {
        const int m = latticeSide(n);
        for (std::size_t k = 0; k < n; ++k) {
            s.pos[k] = Float4{float(k % m) + u(-0.02, 0.02), float((k / m) % m) + u(-0.02, 0.02),
                              float(k / (std::size_t(m) * m)) + u(-0.02, 0.02), 1.f};
            s.radius[k] = r;
        }
    };
    const auto clustered = [&] {
        const std::size_t clusters = (n + 39) / 40;
        std::vector<Float4> centre(clusters);
        for (auto& c : centre)
            c = Float4{u(-8, 8), u(-8, 8), u(-8, 8), 0.f};
        for (std::size_t k = 0; k < n; ++k) {
            const Float4& c = centre[rng.next() % clusters];
            s.pos[k] = Float4{c.x + 0.4f * float(rng.normal()), c.y + 0.4f * float(rng.normal()),
                              c.z + 0.4f * float(rng.normal()), 1.f};
            const double pick = rng.uniform();
            s.radius[k] = pick < 0.2 ? 0.f : pick < 0.99 ? u(0, 0.25) : u(1, 2);
        }
    };
    if (shape == "line") {
        for (std::size_t k = 0; k < n; ++k) {
            s.pos[k] = Float4{float(k) + u(-0.1, 0.1), u(-0.05, 0.05), u(-0.05, 0.05), 1.f};
            s.radius[k] = 0.65f;
        }
    } else if (shape == "lattice") {
        lattice(0.6f);
    } else if (shape == "lattice-fd") {
        lattice(0.775f);
    } else if (shape == "coincident") {
        for (std::size_t k = 0; k < n; ++k) {
            s.pos[k] = Float4{0.25f, -0.5f, 1.f, 1.f};
            s.radius[k] = 1.f;
        }
    } else if (shape == "zero") {
        lattice(0.f);
    } else if (shape == "half-zero") {
        lattice(0.f);
        for (std::size_t k = 1; k < n; k += 2)
            s.radius[k] = 1.2f;
    } else if (shape == "clustered") {
        clustered();
    } else if (shape == "one-cell") {
        for (std::size_t k = 0; k < n; ++k) {
            s.pos[k] = Float4{u(0, 1), u(0, 1), u(0, 1), 1.f};
            s.radius[k] = u(0, 0.05);
        }
        if (n > 0)
            s.radius[0] = 2.f;
    } else if (shape == "far") {
        clustered();
        const float away[][3] = {{1e6f, 0, 0},  {-1e6f, 0, 0}, {0, 1e30f, 0},      {0, 0, -1e30f},
                                 {1e7f, 1, 1},  {1e7f, 1, 1},  {-3e12f, 0, 5e11f}, {-3e12f, 0, 5e11f},
                                 {1e38f, 0, 0}, {0, -1e38f, 0}};
        for (std::size_t a = 0; a < std::size(away) && a < n; ++a) {
            const std::size_t k = (a * 7919) % n;
            s.pos[k] = Float4{away[a][0], away[a][1], away[a][2], 1.f};
            s.radius[k] = 0.1f;
        }
    } else if (shape == "sparse") {
        for (std::size_t k = 0; k < n; ++k) {
            if (k % 2 == 0)
                s.pos[k] = Float4{u(-1000, 1000), u(-1000, 1000), u(-1000, 1000), 1.f};
            else
                s.pos[k] = Float4{s.pos[k - 1].x + 0.5f, s.pos[k - 1].y, s.pos[k - 1].z - 0.25f, 1.f};
            s.radius[k] = k % 4 == 3 ? 0.f : 0.3f;
        }
    } else if (shape == "nonfinite") {
        clustered();
        const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
        for (std::size_t k = 3; k < n; k += 17) {
            const float bad = k % 3 == 0 ? nan : k % 3 == 1 ? inf : -inf;
            (k % 2 ? s.pos[k].x : s.pos[k].z) = bad;
        }
    } else {
        qFatal("unknown shape %s", qPrintable(shape));
    }
    return s;
}

/// The exact pair list of a lattice system (makeSystem "lattice" / "lattice-fd"): every (k, j),
/// j > k, whose lattice points differ by one of `offsets`.
std::vector<ContactPair> latticePairs(std::size_t n, bool faceDiagonals)
{
    const int m = latticeSide(n);
    std::vector<ContactPair> out;
    for (std::size_t k = 0; k < n; ++k) {
        const int x = int(k % m), y = int((k / m) % m), z = int(k / (std::size_t(m) * m));
        for (const auto& d : latticeOffsets(faceDiagonals)) {
            const int a = x + d[0], b = y + d[1], c = z + d[2];
            if (a < 0 || b < 0 || c < 0 || a >= m || b >= m || c >= m)
                continue;
            const std::size_t j = std::size_t(a) + std::size_t(m) * (std::size_t(b) + std::size_t(m) * std::size_t(c));
            if (j > k && j < n)
                out.push_back({std::uint32_t(k), std::uint32_t(j)});
        }
    }
    std::sort(out.begin(), out.end(), [](const ContactPair& p, const ContactPair& q) {
        return p.i != q.i ? p.i < q.i : p.j < q.j;
    });
    return out;
}

/// "" when the list keeps the contract (i < j < n, sorted by (i, j), unique), else the first
/// violation.
QString contractViolation(const std::vector<ContactPair>& pairs, std::size_t n)
{
    for (std::size_t k = 0; k < pairs.size(); ++k) {
        const ContactPair& p = pairs[k];
        if (!(p.i < p.j) || p.j >= n)
            return QString("pair %1 = (%2, %3) is not i < j < N = %4").arg(k).arg(p.i).arg(p.j).arg(n);
        if (k > 0) {
            const ContactPair& q = pairs[k - 1];
            if (!(q.i < p.i || (q.i == p.i && q.j < p.j)))
                return QString("pairs %1 and %2 ((%3, %4), (%5, %6)) are not strictly increasing")
                    .arg(k - 1).arg(k).arg(q.i).arg(q.j).arg(p.i).arg(p.j);
        }
    }
    return {};
}

/// Index and value of the first difference between two pair lists, for the failure message.
QString firstDifference(const std::vector<ContactPair>& got, const std::vector<ContactPair>& want)
{
    const std::size_t n = std::min(got.size(), want.size());
    for (std::size_t k = 0; k < n; ++k)
        if (!(got[k] == want[k]))
            return QString("at %1: (%2, %3) instead of (%4, %5)").arg(k).arg(got[k].i).arg(got[k].j).arg(want[k].i).arg(want[k].j);
    return QString("%1 pairs instead of %2").arg(got.size()).arg(want.size());
}

const ContactSearchInfo& row(const char* id)
{
    const ContactSearchInfo* r = findContactSearch(id);
    if (!r)
        qFatal("no contact search %s", id);
    return *r;
}

std::vector<ContactPair> cpuPairs(const System& s) { return findContactsHost(row("cpu-pairs"), s.pos, s.radius); }

const int kSizes[] = {1, 2, 31, 33, 1000, 4097};

/// Why the row cannot run here ("" when it can): CPU rows always can, CUDA rows need a device.
/// (contactSearchAvailability would say the same, plus a lost context, which no test provokes;
/// it links the kernel registry and with it every force kernel: this executable travels to the
/// GPU machine, so it links only the contact searches.)
QString whyUnavailable(const ContactSearchInfo& r)
{
    if (r.backend == Backend::Cpu)
        return {};
    static const QString why = QString::fromStdString(queryCuda().whyNone);
    return why;
}

} // namespace

class TestContacts : public QObject {
    Q_OBJECT
private slots:
    void cleanupTestCase()
    {
        releaseContactSearchWorkspace(); // checked: a failed free fails the test
    }

    // ---- CPU -----------------------------------------------------------------------------

    void registry()
    {
        const auto rows = contactSearches();
        QVERIFY(!rows.empty());
        QCOMPARE(QString::fromUtf8(rows.front().id.data(), int(rows.front().id.size())), QString("cpu-pairs"));
        QVERIFY(rows.front().backend == Backend::Cpu);
        bool cudaSeen = false;
        for (std::size_t a = 0; a < rows.size(); ++a) {
            QVERIFY2(rows[a].find, std::string(rows[a].id).c_str());
            QVERIFY(!rows[a].name.empty() && !rows[a].description.empty());
            QCOMPARE(findContactSearch(rows[a].id), &rows[a]);
            if (rows[a].backend == Backend::Cuda)
                cudaSeen = true;
            else
                QVERIFY2(!cudaSeen, "CPU rows come first");
            for (std::size_t b = 0; b < a; ++b)
                QVERIFY(rows[a].id != rows[b].id);
        }
        QVERIFY(findContactSearch("no-such-search") == nullptr);
        for (const char* id : {"cuda-pairs", "cuda-atomic", "cuda-cells"}) {
            const ContactSearchInfo* r = findContactSearch(id);
            QCOMPARE(r != nullptr, bool(NBODY_HAVE_CUDA));
            if (r)
                QVERIFY(r->backend == Backend::Cuda);
        }
    }

    void touchingExactCases()
    {
        const Float4 o{0, 0, 0, 1};
        // d² = 4 = (1 + 1)²: touching is strict.
        QVERIFY(!contactTouching(o, 1.f, Float4{2, 0, 0, 1}, 1.f));
        QVERIFY(contactTouching(o, 1.f, Float4{1.9375f, 0, 0, 1}, 1.f));
        // Radius 0: never with another radius 0, even at the same point; inside a sphere, yes.
        QVERIFY(!contactTouching(o, 0.f, o, 0.f));
        QVERIFY(contactTouching(o, 0.f, Float4{0.5f, 0.5f, 0.5f, 1}, 1.f));
        QVERIFY(!contactTouching(o, 0.f, Float4{1, 0, 0, 1}, 1.f));
        // Symmetric, and NaN touches nothing.
        const Float4 p{0.3f, -1.2f, 0.7f, 1};
        QCOMPARE(contactTouching(o, 0.4f, p, 1.f), contactTouching(p, 1.f, o, 0.4f));
        QVERIFY(!contactTouching(o, 1.f, Float4{std::nanf(""), 0, 0, 1}, 1.f));
    }

    void cpuClosedForms_data()
    {
        QTest::addColumn<QString>("shape");
        QTest::addColumn<int>("n");
        for (const char* shape : {"line", "lattice", "lattice-fd", "coincident", "zero"})
            for (int n : kSizes)
                QTest::newRow(QString("%1 N=%2").arg(shape).arg(n).toUtf8().constData()) << QString(shape) << n;
    }
    /// cpu-pairs returns exactly the pairs the construction of the system implies.
    void cpuClosedForms()
    {
        QFETCH(QString, shape);
        QFETCH(int, n);
        const System s = makeSystem(shape, std::size_t(n));
        std::vector<ContactPair> want;
        if (shape == "line") {
            for (int k = 0; k + 1 < n; ++k)
                want.push_back({std::uint32_t(k), std::uint32_t(k + 1)});
        } else if (shape == "lattice" || shape == "lattice-fd") {
            want = latticePairs(std::size_t(n), shape == "lattice-fd");
        } else if (shape == "coincident") {
            for (int i = 0; i < n; ++i)
                for (int j = i + 1; j < n; ++j)
                    want.push_back({std::uint32_t(i), std::uint32_t(j)});
        }
        const std::vector<ContactPair> got = cpuPairs(s);
        QVERIFY2(got == want, qPrintable(firstDifference(got, want)));
        if (shape == "line")
            QCOMPARE(got.size(), std::size_t(std::max(n - 1, 0)));
        // N = 1000 fills a 10³ cube: 3·m²(m − 1) = 2700 axis neighbours and 3·2(m − 1)²m = 4860
        // face diagonals (two per unit square of each of the three plane orientations).
        if (n == 1000 && shape == "lattice")
            QCOMPARE(got.size(), std::size_t(2700));
        if (n == 1000 && shape == "lattice-fd")
            QCOMPARE(got.size(), std::size_t(2700 + 4860));
    }

    void cpuContract_data()
    {
        QTest::addColumn<QString>("shape");
        for (const char* shape : {"half-zero", "clustered", "one-cell", "far", "sparse", "nonfinite"})
            QTest::newRow(shape) << QString(shape);
    }
    /// The systems without a closed form: cpu-pairs keeps the contract, agrees with a plain
    /// double loop over contactTouching, and finds pairs (so the GPU comparisons compare something).
    void cpuContract()
    {
        QFETCH(QString, shape);
        const std::size_t n = 1000;
        const System s = makeSystem(shape, n);
        const std::vector<ContactPair> got = cpuPairs(s);
        QVERIFY2(contractViolation(got, n).isEmpty(), qPrintable(contractViolation(got, n)));
        std::vector<ContactPair> want;
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = i + 1; j < n; ++j)
                if (contactTouching(s.pos[i], s.radius[i], s.pos[j], s.radius[j]))
                    want.push_back({std::uint32_t(i), std::uint32_t(j)});
        QVERIFY2(got == want, qPrintable(firstDifference(got, want)));
        QVERIFY2(got.size() >= 50, qPrintable(QString("only %1 pairs").arg(got.size())));
        if (shape == "far") { // the far pairs coincide in fp32 and must be found
            const std::size_t a = (4 * 7919) % n, b = (5 * 7919) % n;
            QVERIFY(std::find(got.begin(), got.end(), ContactPair{std::uint32_t(std::min(a, b)),
                                                                  std::uint32_t(std::max(a, b))}) != got.end());
        }
    }

    void badInput()
    {
        for (const ContactSearchInfo& r : contactSearches()) {
            if (!whyUnavailable(r).isEmpty())
                continue;
            ContactSearchArgs a;
            a.n = 5;
            QVERIFY_THROWS_EXCEPTION(std::invalid_argument, r.find(a));
            a.n = 0; // N = 0: no pairs, nothing touched
            QVERIFY(r.find(a).empty());
        }
        const std::vector<Float4> p(3);
        const std::vector<float> radius(2, 1.f);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, ContactColumns(row("cpu-pairs"), p, radius));
        QCOMPARE(largestRadius(std::vector<float>{0.5f, -2.f, std::nanf(""), 1.f}), 2.f);
        QCOMPARE(largestRadius({}), 0.f);
    }

    /// The bench system's pair count against its expectation: for two bodies uniform in a cube
    /// of side L, P(d < s) = (4π/3)(s/L)³ − (3π/2)(s/L)⁴ + (8/5)(s/L)⁵ (s ≤ L, the distance
    /// distribution in a cube), averaged over s = R_i + R_j = r₀·t, t triangular on [1, 3]
    /// (Simpson's rule), times N(N − 1)/2. Tolerance 5σ with σ² = 3·E: the Poisson variance E
    /// plus the covariance of pairs sharing a body through that body's random radius, which
    /// the spread of (R + R')³ over R ∈ [r₀/2, 3r₀/2] bounds by 2E at K = 4.
    void benchSystemPairCount()
    {
        const std::size_t n = 20000;
        const double k = 4;
        const ContactBenchSystem s = makeContactBenchSystem(n, 42, k);
        QCOMPARE(s.position.size(), n);
        QCOMPARE(s.radius.size(), n);
        for (float r : s.radius)
            QVERIFY(r >= float(0.5 * s.r0) * 0.999f && r <= float(1.5 * s.r0) * 1.001f);
        const double L = 2;
        const auto F = [](double d) {
            return 4 * std::numbers::pi / 3 * d * d * d - 1.5 * std::numbers::pi * d * d * d * d + 1.6 * d * d * d * d * d;
        };
        const int steps = 2000; // Simpson over t in [1, 3], density t − 1 then 3 − t
        double mean = 0;
        for (int q = 0; q <= steps; ++q) {
            const double t = 1 + 2.0 * q / steps;
            const double w = (q == 0 || q == steps) ? 1 : (q % 2 ? 4 : 2);
            mean += w * (t <= 2 ? t - 1 : 3 - t) * F(s.r0 * t / L);
        }
        mean *= (2.0 / steps) / 3;
        const double expected = double(n) * double(n - 1) / 2 * mean;
        const double got = double(cpuPairs(System{s.position, s.radius}).size());
        const double sigma = std::sqrt(3 * expected);
        QVERIFY2(std::abs(got - expected) < 5 * sigma,
                 qPrintable(QString("%1 pairs, %2 expected (5 sigma = %3)").arg(got).arg(expected).arg(5 * sigma)));
        // Far from the faces a body touches K others: the expectation is K·N/2 less the faces'
        // few per cent (ContactBenchSystem).
        QVERIFY(expected < k * double(n) / 2 && expected > 0.9 * k * double(n) / 2);
    }

    // ---- GPU -----------------------------------------------------------------------------

    void gpuMatchesCpu_data()
    {
        QTest::addColumn<QString>("search");
        QTest::addColumn<QString>("shape");
        QTest::addColumn<int>("n");
        for (const char* search : {"cuda-pairs", "cuda-atomic", "cuda-cells"})
            for (const char* shape : {"line", "lattice", "lattice-fd", "coincident", "zero", "half-zero", "clustered",
                                      "one-cell", "far", "sparse", "nonfinite"})
                for (int n : kSizes)
                    QTest::newRow(QString("%1 %2 N=%3").arg(search, shape).arg(n).toUtf8().constData())
                        << QString(search) << QString(shape) << n;
    }
    /// Same pairs, same order as cpu-pairs; the same again on a second call (deterministic, and
    /// the reused workspace gives the same answer).
    void gpuMatchesCpu()
    {
        QFETCH(QString, search);
        QFETCH(QString, shape);
        QFETCH(int, n);
        const ContactSearchInfo* r = findContactSearch(search.toStdString());
        if (!r)
            QSKIP("built without CUDA");
        if (const QString why = whyUnavailable(*r); !why.isEmpty())
            QSKIP(qPrintable(why));
        const System s = makeSystem(shape, std::size_t(n));
        const std::vector<ContactPair> want = cpuPairs(s);
        const ContactColumns columns(*r, s.pos, s.radius);
        const std::vector<ContactPair> got = columns.find();
        QVERIFY2(got == want, qPrintable(firstDifference(got, want)));
        QVERIFY2(columns.find() == want, "the second search differs");
#if NBODY_HAVE_CUDA
        const gpu::ContactSearchStats st = gpu::lastContactSearchStats();
        QCOMPARE(st.pairs, std::uint64_t(want.size()));
        if (search == "cuda-cells" && n > 1 && shape != "zero") {
            if (shape == "one-cell")
                QCOMPARE(st.cells, std::uint64_t(1));
            if ((shape == "far" || shape == "sparse") && n >= 1000)
                QVERIFY2(st.hashed, "the far bodies' and the sparse grid are hashed");
            if (shape == "lattice" && n >= 1000)
                QVERIFY2(!st.hashed && st.cells > 1, "the lattice's grid is dense");
            QVERIFY(st.candidates >= st.pairs);
            QVERIFY(st.candidates <= std::uint64_t(n) * std::uint64_t(n - 1) / 2);
        } else if (n > 1) {
            QCOMPARE(st.candidates, search == "cuda-cells" ? std::uint64_t(0)
                                                           : std::uint64_t(n) * std::uint64_t(n - 1) / 2);
        }
#endif
    }

    /// The atomic list overflows on a fresh workspace (its first capacity is 2N + 1024 pairs; the
    /// coincident system has N(N − 1)/2), grows to the count and reruns once; the next search
    /// keeps the capacity and runs once.
    void gpuAtomicOverflow()
    {
#if NBODY_HAVE_CUDA
        const ContactSearchInfo& r = row("cuda-atomic");
        if (const QString why = whyUnavailable(r); !why.isEmpty())
            QSKIP(qPrintable(why));
        gpu::releaseContactWorkspaces();
        const std::size_t n = 2001;
        const System s = makeSystem("coincident", n);
        const std::vector<ContactPair> want = cpuPairs(s);
        QCOMPARE(want.size(), n * (n - 1) / 2);
        const ContactColumns columns(r, s.pos, s.radius);
        QVERIFY(columns.find() == want);
        gpu::ContactSearchStats st = gpu::lastContactSearchStats();
        QCOMPARE(st.reruns, 1);
        QVERIFY(st.capacity >= want.size());
        QVERIFY(columns.find() == want);
        st = gpu::lastContactSearchStats();
        QCOMPARE(st.reruns, 0);
        QVERIFY(st.workspaceBytes >= 2 * want.size() * sizeof(std::uint64_t));
#else
        QSKIP("built without CUDA");
#endif
    }

    /// More pairs than the device (and the host) can hold: 300 007 coincident bodies have
    /// 4.5·10¹⁰ pairs, 360 GB at 8 bytes each (141 GB on an H200). Every CUDA row refuses them
    /// with std::length_error naming the count, allocates nothing for them, and works afterwards.
    void gpuTooManyPairs()
    {
#if NBODY_HAVE_CUDA
        const std::size_t n = 300007;
        const std::uint64_t pairs = std::uint64_t(n) * (n - 1) / 2;
        const System big = makeSystem("coincident", n);
        const System small = makeSystem("clustered", 1000);
        const std::vector<ContactPair> want = cpuPairs(small);
        for (const char* id : {"cuda-pairs", "cuda-atomic", "cuda-cells"}) {
            const ContactSearchInfo& r = row(id);
            if (const QString why = whyUnavailable(r); !why.isEmpty())
                QSKIP(qPrintable(why));
            const ContactColumns columns(r, big.pos, big.radius);
            try {
                (void)columns.find();
                QFAIL(qPrintable(QString("%1 returned %2 pairs").arg(id).arg(pairs)));
            } catch (const std::length_error& e) {
                QVERIFY2(QString(e.what()).contains(QString::number(pairs)), e.what());
                QVERIFY2(QString(e.what()).contains(id), e.what());
            }
            QVERIFY2(findContactsHost(r, small.pos, small.radius) == want, id);
        }
#else
        QSKIP("built without CUDA");
#endif
    }
};

QTEST_GUILESS_MAIN(TestContacts)
#include "tst_contacts.moc"
