// Behaviour held fixed: the state after 100 steps, bit for bit, for every deterministic kernel row
// and every integrator, against checksums recorded before the simulation core was reshaped
// (tests/data/golden-steps.json). Any change to the step loop, the integrators' substeps, the
// kernels' summation order or the state's layout shows here as a changed checksum.
//
// The system: a Plummer sphere of 333 bodies (no multiple of any block size; seed 42, Hénon
// units, equal masses), G = 1, eps2 = 1e-4, dt = 1/256, 100 steps: a few crossing times' worth
// of close encounters at the centre, so a difference of one ulp anywhere grows visibly within the run. The
// checksum is FNV-1a (64 bits) over the bits of every body's fp64 position, mass and velocity
// (Simulation::body: the kernel's precision widened exactly), in body order.
//
// CPU rows run once per Highway SIMD target this CPU supports (runOnCpuSimdTarget): the SIMD
// paths of `cpu` and `tree-cpu` round differently per vector width, so their checksums are
// recorded per target and CPU vendor ("cpu/leapfrog/AVX2/GenuineIntel": SSE's and AVX2's
// approximate reciprocal square root differs between Intel and AMD); rows that do not use SIMD give the same checksum on
// every target, which the test checks as well. CUDA rows are keyed by the device's compute
// capability ("blocked/yoshida4/sm_90") and skip without a device.
//
// Recording: NBODY_GOLDEN_RECORD=FILE writes every checksum computed here as JSON to FILE
// (merged into what FILE already holds) instead of comparing; tests/data/golden-steps.json is
// such a file, recorded on an AVX-512 machine (every x86 target up to AVX3) and on the H200.
// A key the file does not have skips with the command that records it.
#include "TestData.h"

#include "sim/core/CpuKernels.h"
#include "sim/base/DeviceInfo.h"
#include "sim/core/Integrators.h"
#include "sim/core/KernelRegistry.h"
#include "sim/core/Models.h"
#include "sim/core/Simulation.h"

#include <QtTest>

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

#include <cstdint>
#include <cstring>
#include <map>
#include <string>

using namespace nbody;

namespace {

constexpr int kSteps = 100;
constexpr std::size_t kBodies = 333;

std::uint64_t fnv1a(std::uint64_t h, const void* data, std::size_t bytes)
{
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < bytes; ++i) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

/// The checksum of the state after kSteps steps of `kernel` with `integrator`.
QString runChecksum(const KernelInfo& kernel, const IntegratorInfo& integrator)
{
    PlummerParams pp;
    pp.bodies = kBodies;
    pp.seed = 42;
    const ModelBodies b = makePlummer(pp);
    SimParams p;
    p.G = 1;
    p.eps2 = 1e-4f;
    p.dt = 1.0f / 256.0f;
    p.integrator = std::string(integrator.id);
    Simulation sim(b.world, b.exact, p, kernel.id);
    sim.step(kSteps);
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (BodyIndex i = 0; i < sim.size(); ++i) {
        const BodyState s = sim.body(i);
        const double v[7] = {s.position.x, s.position.y, s.position.z, s.position.w,
                             s.velocity.x, s.velocity.y, s.velocity.z};
        h = fnv1a(h, v, sizeof v);
    }
    return QStringLiteral("%1").arg(qulonglong(h), 16, 16, QLatin1Char('0'));
}

QString key(const KernelInfo& k, const IntegratorInfo& in, const QString& where)
{
    return QString::fromUtf8(k.id.data(), qsizetype(k.id.size())) + "/" +
           QString::fromUtf8(in.id.data(), qsizetype(in.id.size())) + "/" + where;
}

/// The CPU's vendor ("GenuineIntel", "AuthenticAMD"): the approximate reciprocal square root of
/// SSE and AVX2 (rsqrtps) differs between vendors, so the SIMD rows' bits do too.
QString cpuVendor()
{
    QFile f(QStringLiteral("/proc/cpuinfo"));
    if (f.open(QIODevice::ReadOnly))
        for (const QByteArray& line : f.readAll().split('\n'))
            if (line.startsWith("vendor_id"))
                return QString::fromLatin1(line.mid(line.indexOf(':') + 1).trimmed());
    return QStringLiteral("unknown-cpu");
}

} // namespace

class TestGolden : public QObject {
    Q_OBJECT

    QJsonObject m_recorded;
    QString m_recordTo;
    std::map<QString, QString> m_computed;
    QTemporaryDir m_cacheDir;

private slots:
    void initTestCase()
    {
        // Launch parameters on auto take the kernel rows' defaults, never this machine's tuning
        // cache: a tuned block size or j-split changes the order of the sums, and with it the bits.
        QVERIFY(m_cacheDir.isValid());
        qputenv("NBODY_TUNING_CACHE", m_cacheDir.filePath(QStringLiteral("launch-tuning.json")).toUtf8());
        m_recordTo = qEnvironmentVariable("NBODY_GOLDEN_RECORD");
        const QString file = nbodyTestDataFile(QStringLiteral("golden-steps.json"));
        if (!file.isEmpty()) {
            QFile f(file);
            QVERIFY(f.open(QIODevice::ReadOnly));
            QJsonParseError e{};
            const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &e);
            QVERIFY2(e.error == QJsonParseError::NoError, qPrintable(file + ": " + e.errorString()));
            m_recorded = doc.object().value("checksums").toObject();
        }
        QVERIFY2(!m_recordTo.isEmpty() || !m_recorded.isEmpty(),
                 "tests/data/golden-steps.json is missing or holds no checksums");
    }

    void stateAfter100Steps_data()
    {
        QTest::addColumn<QString>("kernel");
        QTest::addColumn<QString>("integrator");
        for (const KernelInfo& k : kernelRegistry()) {
            if (!k.deterministic)
                continue;
            for (const IntegratorInfo& in : integratorRegistry()) {
                const QString kid = QString::fromUtf8(k.id.data(), qsizetype(k.id.size()));
                const QString iid = QString::fromUtf8(in.id.data(), qsizetype(in.id.size()));
                QTest::newRow(qPrintable(kid + " " + iid)) << kid << iid;
            }
        }
    }
    void stateAfter100Steps()
    {
        QFETCH(QString, kernel);
        QFETCH(QString, integrator);
        const KernelInfo* k = findKernel(kernel.toStdString());
        const IntegratorInfo* in = findIntegrator(integrator.toStdString());
        QVERIFY(k && in);
        if (const Availability a = availability(*k); !a.available)
            QSKIP(qPrintable(kernel + ": " + QString::fromStdString(a.reason)));

        // Where the checksum holds: each SIMD target for CPU rows, the compute capability for CUDA.
        std::vector<std::pair<QString, QString>> results; // key, checksum
        if (k->backend == Backend::Cpu) {
            for (const std::int64_t t : cpuSimdTargets()) {
                QString sum;
                const std::int64_t ran = runOnCpuSimdTarget(t, [&] { sum = runChecksum(*k, *in); });
                QCOMPARE(ran, t);
                results.emplace_back(key(*k, *in, QString::fromStdString(cpuSimdTargetName(t)) + "/" + cpuVendor()),
                                     sum);
            }
        } else {
            const CudaRuntimeInfo cuda = queryCuda();
            QVERIFY2(!cuda.devices.empty(), cuda.whyNone.c_str());
            const CudaDeviceInfo& d = cuda.devices.front(); // the simulation runs on device 0
            results.emplace_back(key(*k, *in, QStringLiteral("sm_%1%2").arg(d.major).arg(d.minor)),
                                 runChecksum(*k, *in));
        }

        int compared = 0;
        QStringList missing;
        for (const auto& [name, sum] : results) {
            m_computed[name] = sum;
            if (!m_recordTo.isEmpty())
                continue;
            if (!m_recorded.contains(name)) {
                missing << name;
                continue;
            }
            QVERIFY2(m_recorded.value(name).toString() == sum,
                     qPrintable(name + ": " + sum + ", recorded " + m_recorded.value(name).toString()));
            ++compared;
        }
        if (!m_recordTo.isEmpty())
            QSKIP(qPrintable("recorded " + QString::number(results.size()) + " checksums"));
        if (compared == 0)
            QSKIP(qPrintable("no recorded checksum for " + missing.join(", ") +
                             " (record: NBODY_GOLDEN_RECORD=tests/data/golden-steps.json " +
                             QCoreApplication::applicationFilePath() + ")"));
    }

    void cleanupTestCase()
    {
        if (m_recordTo.isEmpty())
            return;
        QJsonObject doc;
        QJsonObject sums;
        {
            QFile in(m_recordTo);
            if (in.open(QIODevice::ReadOnly)) {
                doc = QJsonDocument::fromJson(in.readAll()).object();
                sums = doc.value("checksums").toObject();
            }
        }
        for (const auto& [name, sum] : m_computed)
            sums[name] = sum;
        doc["about"] = QStringLiteral(
            "FNV-1a 64 of the fp64 positions, masses and velocities after 100 steps: Plummer sphere, "
            "N = 333, seed 42, G = 1, eps2 = 1e-4, dt = 1/256 (tests/tst_golden.cpp)");
        doc["checksums"] = sums;
        QFile out(m_recordTo);
        QVERIFY(out.open(QIODevice::WriteOnly | QIODevice::Truncate));
        out.write(QJsonDocument(doc).toJson());
    }
};

QTEST_GUILESS_MAIN(TestGolden)
#include "tst_golden.moc"
