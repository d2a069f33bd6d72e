/// \file tst_tipsy.cpp
/// Tests of the Tipsy reader (src/sim/io/Tipsy.h): the real Bonsai file galaxy_20K.bin (values
/// cross-checked against raw byte reads and against numbers read off the file with Python's
/// struct module), hand-written big- and little-endian files read back value by value, and
/// malformed files that must be refused with a FormatError naming the file and the problem.
///
/// Data: galaxy_20K.bin in nbodyDataDir() (TestData.h: $NBODY_DATA_DIR if set, else the directory
/// compiled in as NBODY_DATA_DIR); the real-file tests skip when the file is absent.

#include "sim/core/Scenario.h"
#include "sim/io/Snapshot.h"
#include "sim/io/Tipsy.h"

#include "FormatErrors.h"
#include "TestData.h"

#include <QByteArray>
#include <QFile>
#include <QStringList>
#include <QTemporaryDir>
#include <QTest>
#include <QtEndian>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

using namespace nbody;

namespace {

// ---- facts about galaxy_20K.bin ---------------------------------------------------------------
// Read off the file independently with python3 (struct.unpack('<diiiiii') on the header,
// '<8fi' per dark particle, '<10fi' per star):
constexpr int kBodies = 20000, kDark = 2500, kStar = 17500;
constexpr qsizetype kFileBytes = 860032;   // 32 + 2500·36 + 17500·44
constexpr qint64 kDarkOffset = 32;
constexpr qint64 kStarOffset = 32 + kDark * 36;
// first dark particle: mass, pos, vel, id
constexpr double kDark0[7] = {0.04270477965474129, 0.47185373306274414, 0.10953158140182495,
                              0.8985462188720703,  1.5059847831726074,  -0.20193754136562347,
                              0.21151122450828552};
constexpr std::uint32_t kDark0Id = 200000000u;
// last star: mass, pos, vel, id
constexpr double kStarLast[7] = {0.001190653070807457, 29.42360496520996,  -29.774673461914062,
                                 -1.0751819610595703,  0.8974363803863525, 0.8996971249580383,
                                 -0.015855751931667328};
constexpr std::uint32_t kStarLastId = 14999u;
constexpr double kTotalMass = 130.91738161165267; // sum of all masses in fp64
constexpr double kDarkMass = 106.76194913685322;

QString dataFile()
{
    return nbodyDataDir() + QStringLiteral("/galaxy_20K.bin");
}

bool near(double actual, double expected, double relTol = 1e-6)
{
    return std::abs(actual - expected) <= relTol * std::max(1.0, std::abs(expected));
}

// ---- a writer of Tipsy files in either byte order ---------------------------------------------
class TipsyWriter {
public:
    TipsyWriter(bool bigEndian, int headerBytes) : m_big(bigEndian), m_headerBytes(headerBytes) {}

    void header(double time, qint32 nbodies, qint32 ndim, qint32 nsph, qint32 ndark, qint32 nstar)
    {
        f64(time);
        for (qint32 v : {nbodies, ndim, nsph, ndark, nstar})
            i32(v);
        if (m_headerBytes == 32)
            i32(0); // padding
    }
    void f32(float v)
    {
        quint32 u;
        std::memcpy(&u, &v, 4);
        u32(u);
    }
    void i32(qint32 v) { u32(quint32(v)); }
    void f64(double v)
    {
        quint64 u;
        std::memcpy(&u, &v, 8);
        char b[8];
        if (m_big)
            qToBigEndian(u, b);
        else
            qToLittleEndian(u, b);
        m_bytes.append(b, 8);
    }
    const QByteArray& bytes() const { return m_bytes; }

private:
    void u32(quint32 u)
    {
        char b[4];
        if (m_big)
            qToBigEndian(u, b);
        else
            qToLittleEndian(u, b);
        m_bytes.append(b, 4);
    }
    bool m_big;
    int m_headerBytes;
    QByteArray m_bytes;
};

/// Little-endian float / int32 at a byte offset of a buffer.
float leFloat(const QByteArray& b, qint64 offset)
{
    const quint32 u = qFromLittleEndian<quint32>(b.constData() + offset);
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}
void putLeFloat(QByteArray& b, qint64 offset, float f)
{
    quint32 u;
    std::memcpy(&u, &f, 4);
    qToLittleEndian(u, b.data() + offset);
}
void putLeInt(QByteArray& b, qint64 offset, qint32 v) { qToLittleEndian(v, b.data() + offset); }

} // namespace

class TestTipsy : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();

    void realFileCounts();
    void realFileKnownValues();
    void realFileMatchesRawBytes();

    void roundTrip_data();
    void roundTrip();
    void bigEndianIds_data();
    void bigEndianIds();

    void malformed_data();
    void malformed();
    void missingFile();

private:
    QByteArray m_real; ///< the bytes of galaxy_20K.bin, empty when it is absent
    QTemporaryDir m_tmp;
};

void TestTipsy::initTestCase()
{
    QVERIFY2(m_tmp.isValid(), qPrintable(m_tmp.errorString()));
    QFile f(dataFile());
    if (f.open(QIODevice::ReadOnly))
        m_real = f.readAll();
}

#define REQUIRE_REAL_FILE()                                                                        \
    do {                                                                                           \
        if (m_real.isEmpty())                                                                      \
            QSKIP(qPrintable(QStringLiteral("data file absent: ") + dataFile()));                  \
    } while (false)

void TestTipsy::realFileCounts()
{
    REQUIRE_REAL_FILE();
    QCOMPARE(m_real.size(), kFileBytes);

    TipsyInfo info;
    const World w = readTipsy(dataFile().toStdString(), &info);
    QCOMPARE(w.size(), std::size_t(kBodies));
    QCOMPARE(info.nsph, 0);
    QCOMPARE(info.ndark, kDark);
    QCOMPARE(info.nstar, kStar);
    QCOMPARE(info.bigEndian, false);
    QCOMPARE(info.headerBytes, 32);
    QCOMPARE(info.time, 0.0);
    QCOMPARE(w.time, 0.0);

    // Groups: dark matter first, then stars, in file order.
    int dark = 0, star = 0;
    for (std::size_t i = 0; i < w.size(); ++i) {
        const Group expected = i < std::size_t(kDark) ? Group::DarkMatter : Group::Star;
        if (w.groups()[i] != expected)
            QFAIL(qPrintable(QStringLiteral("body %1 has the wrong group").arg(i)));
        (expected == Group::DarkMatter ? dark : star) += 1;
    }
    QCOMPARE(dark, kDark);
    QCOMPARE(star, kStar);
    QVERIFY2(w.validate().empty(), w.validate().c_str());
}

void TestTipsy::realFileKnownValues()
{
    REQUIRE_REAL_FILE();
    const World w = readTipsy(dataFile().toStdString());
    QCOMPARE(w.size(), std::size_t(kBodies));

    const Float4 p0 = w.positions().front(), v0 = w.velocities().front();
    const double got0[7] = {p0.w, p0.x, p0.y, p0.z, v0.x, v0.y, v0.z};
    const Float4 pl = w.positions().back(), vl = w.velocities().back();
    const double gotL[7] = {pl.w, pl.x, pl.y, pl.z, vl.x, vl.y, vl.z};
    for (int f = 0; f < 7; ++f) {
        QVERIFY2(near(got0[f], kDark0[f]), qPrintable(QStringLiteral("first dark field %1: %2 vs %3")
                                                          .arg(f).arg(got0[f]).arg(kDark0[f])));
        QVERIFY2(near(gotL[f], kStarLast[f]), qPrintable(QStringLiteral("last star field %1: %2 vs %3")
                                                             .arg(f).arg(gotL[f]).arg(kStarLast[f])));
    }
    QCOMPARE(v0.w, 0.f);
    QCOMPARE(w.ids().front(), kDark0Id);
    QCOMPARE(w.ids().back(), kStarLastId);

    double total = 0, dark = 0;
    for (std::size_t i = 0; i < w.size(); ++i) {
        total += w.positions()[i].w;
        if (w.groups()[i] == Group::DarkMatter)
            dark += w.positions()[i].w;
    }
    QVERIFY2(near(total, kTotalMass, 1e-9), qPrintable(QString::number(total, 'g', 17)));
    QVERIFY2(near(dark, kDarkMass, 1e-9), qPrintable(QString::number(dark, 'g', 17)));
}

void TestTipsy::realFileMatchesRawBytes()
{
    REQUIRE_REAL_FILE();
    const World w = readTipsy(dataFile().toStdString());
    QCOMPARE(qFromLittleEndian<qint32>(m_real.constData() + 8), kBodies);
    QCOMPARE(qFromLittleEndian<qint32>(m_real.constData() + 20), kDark);
    QCOMPARE(qFromLittleEndian<qint32>(m_real.constData() + 24), kStar);

    // A sample of bodies, every field bit-exact against the raw little-endian bytes.
    for (int i : {0, 1, 1249, kDark - 1, kDark, kDark + 1, 12345, kBodies - 2, kBodies - 1}) {
        const bool isDark = i < kDark;
        const qint64 rec = isDark ? kDarkOffset + qint64(i) * 36 : kStarOffset + qint64(i - kDark) * 44;
        const qint64 idOffset = rec + (isDark ? 32 : 40);
        const Float4 p = w.positions()[std::size_t(i)], v = w.velocities()[std::size_t(i)];
        const float got[7] = {p.w, p.x, p.y, p.z, v.x, v.y, v.z};
        for (int f = 0; f < 7; ++f)
            QCOMPARE(std::bit_cast<quint32>(got[f]), std::bit_cast<quint32>(leFloat(m_real, rec + 4 * f)));
        QCOMPARE(w.ids()[std::size_t(i)],
                 quint32(qFromLittleEndian<qint32>(m_real.constData() + idOffset)));
    }
}

void TestTipsy::roundTrip_data()
{
    QTest::addColumn<bool>("bigEndian");
    QTest::addColumn<int>("headerBytes");
    QTest::newRow("big-endian, 28-byte header (standard XDR)") << true << 28;
    QTest::newRow("big-endian, 32-byte header") << true << 32;
    QTest::newRow("little-endian, 32-byte header (Bonsai)") << false << 32;
    QTest::newRow("little-endian, 28-byte header") << false << 28;
}

void TestTipsy::roundTrip()
{
    QFETCH(bool, bigEndian);
    QFETCH(int, headerBytes);
    const int nsph = 2, ndark = 3, nstar = 4, n = nsph + ndark + nstar;
    const double time = 0.625;

    // Body i: mass 1 + i, position (i + 0.5, −2i, 1e3·i), velocity (0.25·i, −i, 3).
    auto field = [](int i, int f) -> float {
        const float vals[7] = {1.f + float(i), float(i) + 0.5f, -2.f * float(i), 1e3f * float(i),
                               0.25f * float(i), -float(i), 3.f};
        return vals[f];
    };
    TipsyWriter w(bigEndian, headerBytes);
    w.header(time, n, 3, nsph, ndark, nstar);
    const int extra[3] = {5, 2, 4}; // floats after the 7 we load, the last one being phi / id
    for (int i = 0; i < n; ++i) {
        const int family = i < nsph ? 0 : i < nsph + ndark ? 1 : 2;
        for (int f = 0; f < 7; ++f)
            w.f32(field(i, f));
        for (int e = 0; e < extra[family] - 1; ++e)
            w.f32(0.01f * float(e));
        if (bigEndian)
            w.f32(-1.5f);          // phi: a potential, not an id
        else
            w.i32(1000 + 7 * i);   // Bonsai: the id
    }
    QCOMPARE(w.bytes().size(), qsizetype(headerBytes + nsph * 48 + ndark * 36 + nstar * 44));

    const QString path = m_tmp.filePath(QStringLiteral("roundtrip.bin"));
    {
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        QCOMPARE(f.write(w.bytes()), qint64(w.bytes().size()));
    }

    TipsyInfo info;
    const World world = readTipsy(path.toStdString(), &info);
    QCOMPARE(info.bigEndian, bigEndian);
    QCOMPARE(info.headerBytes, headerBytes);
    QCOMPARE(info.nsph, nsph);
    QCOMPARE(info.ndark, ndark);
    QCOMPARE(info.nstar, nstar);
    QCOMPARE(info.time, time);
    QCOMPARE(world.time, time);
    QCOMPARE(world.size(), std::size_t(n));
    for (int i = 0; i < n; ++i) {
        const std::size_t k = std::size_t(i);
        const Float4 p = world.positions()[k], v = world.velocities()[k];
        QCOMPARE(p.w, field(i, 0));
        QCOMPARE(p.x, field(i, 1));
        QCOMPARE(p.y, field(i, 2));
        QCOMPARE(p.z, field(i, 3));
        QCOMPARE(v.x, field(i, 4));
        QCOMPARE(v.y, field(i, 5));
        QCOMPARE(v.z, field(i, 6));
        const Group g = i < nsph ? Group::Gas : i < nsph + ndark ? Group::DarkMatter : Group::Star;
        QCOMPARE(world.groups()[k], g);
        QCOMPARE(world.ids()[k], bigEndian ? std::uint32_t(i) : std::uint32_t(1000 + 7 * i));
    }
}

void TestTipsy::bigEndianIds_data()
{
    QTest::addColumn<int>("phiKind"); // 0: ids, 1: all 0 (unset), 2: potentials, 3: ids but one repeated
    QTest::addColumn<bool>("idsKept");
    QTest::newRow("ids in the phi slots") << 0 << true;
    QTest::newRow("phi all 0") << 1 << false;
    QTest::newRow("phi potentials (negative floats)") << 2 << false;
    QTest::newRow("phi integers with a repeat") << 3 << false;
}

void TestTipsy::bigEndianIds()
{
    // A big-endian file whose phi slots hold the particle ids as int32 (as Bonsai stores them, and
    // as the snapshot writer does): the ids survive (they read back as 0..N-1 before). Slots that
    // are potentials or unset give the index, as before.
    QFETCH(int, phiKind);
    QFETCH(bool, idsKept);
    const int nsph = 2, ndark = 3, nstar = 4, n = nsph + ndark + nstar;
    TipsyWriter w(true, 28);
    w.header(0.5, n, 3, nsph, ndark, nstar);
    const int extra[3] = {5, 2, 4};
    auto idOf = [](int i) { return qint32(5000 + 13 * (n - i)); }; // not the index, not sorted
    for (int i = 0; i < n; ++i) {
        const int family = i < nsph ? 0 : i < nsph + ndark ? 1 : 2;
        for (int f = 0; f < 7; ++f)
            w.f32(1.f + float(i) + 0.125f * float(f));
        for (int e = 0; e < extra[family] - 1; ++e)
            w.f32(0.f);
        switch (phiKind) {
        case 0: w.i32(idOf(i)); break;
        case 1: w.f32(0.f); break;
        case 2: w.f32(-0.75f - float(i)); break;
        default: w.i32(i == 4 ? idOf(3) : idOf(i)); break;
        }
    }
    const QString path = m_tmp.filePath(QStringLiteral("big-ids.bin"));
    {
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        QCOMPARE(f.write(w.bytes()), qint64(w.bytes().size()));
    }
    TipsyInfo info;
    const World world = readTipsy(path.toStdString(), &info);
    QVERIFY(info.bigEndian);
    QCOMPARE(info.idsInPhi, idsKept);
    QCOMPARE(world.size(), std::size_t(n));
    for (int i = 0; i < n; ++i) {
        QCOMPARE(world.ids()[std::size_t(i)], idsKept ? std::uint32_t(idOf(i)) : std::uint32_t(i));
        QCOMPARE(world.positions()[std::size_t(i)].w, 1.f + float(i));
    }
    // The snapshot writer's standard (big-endian) file keeps them too.
    const QString out = m_tmp.filePath(QStringLiteral("again.bin"));
    writeSnapshot(out.toStdString(), world);
    QCOMPARE(readSnapshot(out.toStdString()).world.ids(), world.ids());
}

void TestTipsy::malformed_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QStringList>("words"); // each must appear in what() (besides the path)

    // Small hand-written files: always present.
    QTest::newRow("empty file") << QByteArray() << QStringList{"too short"};
    QTest::newRow("shorter than a header") << QByteArray(20, '\0') << QStringList{"too short"};
    QTest::newRow("garbage") << QByteArray(1000, '\x7f') << QStringList{"not a Tipsy file"};
    {
        TipsyWriter w(false, 32);
        w.header(0.0, 5, 3, 0, 2, 2); // nbodies != nsph + ndark + nstar
        for (int i = 0; i < 2 * 9 + 2 * 11; ++i)
            w.f32(1.f);
        QTest::newRow("nbodies != sum of counts") << w.bytes()
                                                  << QStringList{"not a Tipsy file", "nbodies"};
    }
    {
        TipsyWriter w(true, 28);
        w.header(0.0, 2, 4, 0, 2, 0); // ndim = 4
        for (int i = 0; i < 2 * 9; ++i)
            w.f32(1.f);
        QTest::newRow("ndim out of range") << w.bytes() << QStringList{"not a Tipsy file", "ndim"};
    }
    {
        TipsyWriter w(true, 28);
        w.header(0.0, -1, 3, 0, -1, 0);
        QTest::newRow("negative count") << w.bytes() << QStringList{"not a Tipsy file"};
    }
    {
        // A count above kMaxBodies in a small file: refused before any allocation.
        TipsyWriter w(true, 28);
        const qint32 huge = qint32(1) << 30;
        w.header(0.0, huge, 3, 0, 0, huge);
        for (int i = 0; i < 11; ++i)
            w.f32(1.f);
        QTest::newRow("nstar = 2^30 (big-endian)") << w.bytes()
                                                   << QStringList{"too many bodies", "1073741824"};
    }
    {
        // Exactly kMaxBodies is allowed, but the file is tiny: a size mismatch, found before
        // 2^28 bodies of columns would be reserved.
        TipsyWriter w(false, 32);
        const qint32 n = qint32(kMaxBodies);
        w.header(0.0, n, 3, 0, n, 0);
        for (int i = 0; i < 9; ++i)
            w.f32(1.f);
        QTest::newRow("kMaxBodies claimed, 1 present") << w.bytes()
                                                       << QStringList{"size mismatch", "truncated"};
    }
    {
        TipsyWriter w(true, 28);
        w.header(0.0, 1, 3, 0, 0, 1);
        for (int i = 0; i < 11; ++i)
            w.f32(1.f);
        w.f32(1.f); // 8 bytes past the 28-byte layout, 4 past the 32-byte one
        w.f32(1.f);
        QTest::newRow("trailing data") << w.bytes() << QStringList{"size mismatch", "trailing"};
    }

    // Edits of the real file: only when it is present.
    if (m_real.isEmpty())
        return;
    QTest::newRow("real: header only") << m_real.left(32)
                                       << QStringList{"size mismatch", "truncated", "17500"};
    QTest::newRow("real: cut inside the dark particles")
        << m_real.left(kDarkOffset + 100 * 36 + 17) << QStringList{"size mismatch", "truncated"};
    QTest::newRow("real: cut inside the stars")
        << m_real.left(kStarOffset + 9000 * 44 + 10) << QStringList{"size mismatch", "truncated"};
    {
        QByteArray b = m_real;
        putLeInt(b, 24, qint32(1) << 30); // nstar = 2^30
        putLeInt(b, 8, kDark + (qint32(1) << 30));
        QTest::newRow("real: nstar = 2^30") << b << QStringList{"too many bodies"};
    }
    {
        QByteArray b = m_real;
        putLeInt(b, 8, kBodies + 1);
        QTest::newRow("real: nbodies = 20001") << b << QStringList{"not a Tipsy file", "nbodies"};
    }
    {
        QByteArray b = m_real;
        putLeFloat(b, kDarkOffset + 5 * 36 + 8, std::numeric_limits<float>::quiet_NaN()); // pos.y
        QTest::newRow("real: NaN position")
            << b << QStringList{"particle 5 ", "dark", "position.y", "not finite"};
    }
    {
        QByteArray b = m_real;
        putLeFloat(b, kStarOffset + 3 * 44 + 20, std::numeric_limits<float>::infinity()); // vel.y
        QTest::newRow("real: infinite velocity")
            << b << QStringList{"particle 2503", "star particle 3", "velocity.y", "not finite"};
    }
    {
        // Float positions with double velocities: as many bytes as double positions with float
        // velocities, so the size picks that layout, and was reported as a position "beyond the
        // range of fp32"; it is a layout the reader does not support, and says so.
        TipsyWriter w(false, 32);
        w.header(0.0, 2, 3, 0, 2, 0);
        for (int i = 0; i < 2; ++i) {
            w.f32(1.f);                                    // mass
            for (float x : {0.5f, 1.0e6f, -0.25f}) w.f32(x); // positions (read as a double, x and y are 5.7e45)
            for (double v : {0.1, -0.2, 0.3}) w.f64(v);    // velocities
            w.f32(0.01f);                                  // eps
            w.f32(0.f);                                    // phi
        }
        QTest::newRow("float positions, double velocities")
            << w.bytes() << QStringList{"float positions with double velocities", "does not support"};
    }
    {
        QByteArray b = m_real;
        putLeFloat(b, kStarOffset + 10 * 44, -1.f); // mass
        QTest::newRow("real: negative mass")
            << b << QStringList{"particle 2510", "star particle 10", "mass", "negative"};
    }
}

void TestTipsy::malformed()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QStringList, words);

    const QString path = m_tmp.filePath(QStringLiteral("malformed.bin"));
    {
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        QCOMPARE(f.write(bytes), qint64(bytes.size()));
    }
    expectFormatError(path, words, [](const std::string& p) { return readTipsy(p); });
}

void TestTipsy::missingFile()
{
    const QString path = m_tmp.filePath(QStringLiteral("does-not-exist.bin"));
    try {
        readTipsy(path.toStdString());
        QFAIL("a missing file was accepted");
    } catch (const FormatError& e) {
        const QString what = QString::fromStdString(e.what());
        QVERIFY2(what.contains(path) && what.contains("no such file"), qPrintable(what));
    }
    // A directory is not a Tipsy file either.
    try {
        readTipsy(m_tmp.path().toStdString());
        QFAIL("a directory was accepted");
    } catch (const FormatError& e) {
        QVERIFY2(QString::fromStdString(e.what()).contains("not a regular file"), e.what());
    }
}

QTEST_GUILESS_MAIN(TestTipsy)
#include "tst_tipsy.moc"
