// The distributed backend (src/mpi, docs/mpi.md): the shares of N bodies among P processes, and
// `mpirun --oversubscribe -np P nbody run` against one process — the same state bit for bit after
// 100 steps with the `cpu` and `reference` kernels for N = 1, 2, 1000 and 4097, read back from
// the snapshot rank 0 wrote with the single-process reader, with the blocking exchange and the
// pipelined one (--exchange-chunks C > 1, N < P·C included); more processes than bodies refused
// by name; a failing rank (the NBODY_MPI_FAIL_RANK test switch, with NBODY_MPI_FAIL_CHUNK in the
// middle of a pipelined exchange; an unreadable input on rank 0)
// stopping every rank with its message instead of a hang; `bench` (ranks and exchange time in the
// table, JSON and CSV), `validate` (the report one process's, the reduced sums within a derived
// bound) and `render` (byte-identical frames) under mpirun. The `tiled` rows (2 ranks sharing one
// GPU) skip without a CUDA device and run on the GPU machine.
#include "CliRunner.h"
#include "mpi/Distributed.h"
#include "sim/core/Diagnostics.h"
#include "sim/core/KernelRegistry.h"
#include "sim/core/Scenario.h"
#include "sim/io/Snapshot.h"

#include <QtTest>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

using namespace nbody;
using nbody_test::CliResult;

namespace {

/// `mpirun --oversubscribe -np P nbody args…` (as root too, as CI runs), at most timeoutMs;
/// `extra` goes to the environment of every rank (-x).
CliResult runMpi(int processes, const QStringList& args, const QProcessEnvironment& extra = {}, int timeoutMs = 120000)
{
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("OMPI_ALLOW_RUN_AS_ROOT"), QStringLiteral("1"));
    env.insert(QStringLiteral("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"), QStringLiteral("1"));
    env.insert(QStringLiteral("OMP_NUM_THREADS"), QStringLiteral("1")); // P ranks on 2 cores
    QStringList mpiArgs{QStringLiteral("--oversubscribe"), QStringLiteral("-np"), QString::number(processes)};
    for (const QString& key : extra.keys()) {
        env.insert(key, extra.value(key));
        mpiArgs << QStringLiteral("-x") << key;
    }
    p.setProcessEnvironment(env);
    // $NBODY_MPIEXEC: the launcher scripts/gpu-check.sh carries to the GPU machine, else the
    // one CMake found.
    const QByteArray launcher = qgetenv("NBODY_MPIEXEC");
    p.start(launcher.isEmpty() ? QStringLiteral(NBODY_MPIEXEC) : QString::fromLocal8Bit(launcher),
            mpiArgs << nbody_test::cliPath() << args);
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        return {-2, {}, QStringLiteral("timed out (a hang)")};
    }
    CliResult r;
    r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = QString::fromLocal8Bit(p.readAllStandardOutput());
    r.err = QString::fromLocal8Bit(p.readAllStandardError());
    return r;
}

template <class V>
bool sameBits(const std::vector<V>& a, const std::vector<V>& b)
{
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(V)) == 0;
}

QJsonObject readJson(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}

QByteArray readBytes(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("(unreadable)");
}

/// The fields of a validation report that come from the energy and momentum sums, which P
/// processes reduce in another order (fp64); every other figure comes from the state, which is
/// the same bit for bit. "seconds" is a timing.
bool fromReducedSums(const QString& key)
{
    return key == QLatin1String("energyChange") || key == QLatin1String("energyChangeDifference") ||
           key == QLatin1String("referenceEnergyChange") || key == QLatin1String("momentumChange") ||
           key == QLatin1String("initialEnergy");
}

/// Compares two report values: equal, except the reduced sums' fields (within `tolerance`,
/// absolute) and timings. Returns the path of the first difference, or "" when they agree.
QString compareReports(const QJsonValue& a, const QJsonValue& b, double tolerance, const QString& path = {})
{
    if (a.type() != b.type())
        return path + " (types differ)";
    if (a.isObject()) {
        const QJsonObject x = a.toObject(), y = b.toObject();
        if (x.keys() != y.keys())
            return path + " (keys differ)";
        for (const QString& key : x.keys()) {
            if (key == QLatin1String("seconds"))
                continue;
            if (fromReducedSums(key) && x[key].isDouble()) {
                if (!(std::fabs(x[key].toDouble() - y[key].toDouble()) <= tolerance))
                    return path + "." + key + QStringLiteral(" (%1 vs %2)").arg(x[key].toDouble(), 0, 'g', 17).arg(y[key].toDouble(), 0, 'g', 17);
                continue;
            }
            if (const QString d = compareReports(x[key], y[key], tolerance, path + "." + key); !d.isEmpty())
                return d;
        }
        return {};
    }
    if (a.isArray()) {
        const QJsonArray x = a.toArray(), y = b.toArray();
        if (x.size() != y.size())
            return path + " (lengths differ)";
        for (qsizetype i = 0; i < x.size(); ++i)
            if (const QString d = compareReports(x[i], y[i], tolerance, path + QStringLiteral("[%1]").arg(i)); !d.isEmpty())
                return d;
        return {};
    }
    return a == b ? QString() : path + " (" + QString::fromUtf8(QJsonDocument(QJsonArray{a}).toJson(QJsonDocument::Compact)) +
                                    " vs " + QString::fromUtf8(QJsonDocument(QJsonArray{b}).toJson(QJsonDocument::Compact)) + ")";
}

QString whyUnavailable(const char* id)
{
    const KernelInfo* k = findKernel(id);
    if (!k)
        return QStringLiteral("no kernel ") + id;
    const Availability a = availability(*k);
    return a.available ? QString() : QString::fromStdString(a.reason);
}

} // namespace

class TestMpi : public QObject {
    Q_OBJECT
private slots:
    void shares_data()
    {
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("processes");
        for (int n : {1, 2, 3, 7, 1000, 4097})
            for (int p : {1, 2, 3, 4, 7})
                if (p <= n)
                    QTest::addRow("N=%d P=%d", n, p) << n << p;
    }
    void shares()
    {
        QFETCH(int, n);
        QFETCH(int, processes);
        std::size_t next = 0, smallest = std::size_t(n), largest = 0;
        for (int r = 0; r < processes; ++r) {
            const RowRange rows = mpi::shareOf(std::size_t(n), r, processes);
            QCOMPARE(rows.begin, next); // rank order, no gap, no overlap
            QVERIFY(rows.size() >= 1);
            smallest = std::min(smallest, rows.size());
            largest = std::max(largest, rows.size());
            next = rows.end;
        }
        QCOMPARE(next, std::size_t(n));
        QVERIFY(largest - smallest <= 1); // uneven by one body at most
        QCOMPARE(mpi::shareOf(std::size_t(n), 0, processes).size(), std::size_t((n + processes - 1) / processes));
    }
    void moreProcessesThanBodiesRefused()
    {
        try {
            (void)mpi::shareOf(2, 0, 3);
            QFAIL("3 processes were given 2 bodies");
        } catch (const std::invalid_argument& e) {
            QCOMPARE(QString(e.what()), QStringLiteral("3 processes cannot share 2 bodies: every process needs at "
                                                       "least one (run with at most 2 processes, mpirun -np 2)"));
        }
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, (void)mpi::shareOf(5, 3, 3));
    }

    // The chunks of the pipelined exchange: every rank's rows in C pieces, in order, no gap, no
    // overlap, sizes differing by at most one; over all ranks and chunks they cover [0, N) once
    // (what the C collectives assemble), empty chunks where a share has fewer rows than C.
    void chunks_data()
    {
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("processes");
        QTest::addColumn<int>("chunks");
        for (int n : {1, 2, 3, 7, 1000, 4097})
            for (int p : {1, 2, 3, 7})
                for (int c : {1, 2, 3, 4, 9})
                    if (p <= n)
                        QTest::addRow("N=%d P=%d C=%d", n, p, c) << n << p << c;
    }
    void chunks()
    {
        QFETCH(int, n);
        QFETCH(int, processes);
        QFETCH(int, chunks);
        std::vector<int> covered(std::size_t(n), 0);
        for (int r = 0; r < processes; ++r) {
            const RowRange rows = mpi::shareOf(std::size_t(n), r, processes);
            std::size_t next = rows.begin, smallest = rows.size(), largest = 0, empty = 0;
            for (int c = 0; c < chunks; ++c) {
                const RowRange piece = chunkOf(rows, c, chunks);
                QCOMPARE(piece.begin, next);
                QVERIFY(piece.end >= piece.begin);
                next = piece.end;
                smallest = std::min(smallest, piece.size());
                largest = std::max(largest, piece.size());
                empty += piece.size() == 0;
                for (std::size_t i = piece.begin; i < piece.end; ++i)
                    ++covered[i];
            }
            QCOMPARE(next, rows.end);
            QVERIFY(largest - smallest <= 1);
            QCOMPARE(empty, rows.size() < std::size_t(chunks) ? std::size_t(chunks) - rows.size() : std::size_t(0));
        }
        QCOMPARE(std::count(covered.begin(), covered.end(), 1), std::ptrdiff_t(n));
    }

    // The automatic choice: the user's count when given; else 1 alone, for a tree row, for the
    // CPU rows (minimum 0) and below two chunks' worth of rows; else rows / minimum, at most 4.
    void autoChunks()
    {
        QCOMPARE(exchangeChunksFor(7, 10, 2, false, 1024), 7);   // the user's, even for 10 rows
        QCOMPARE(exchangeChunksFor(3, 1 << 20, 2, false, 0), 3); // … and for a CPU row
        QCOMPARE(exchangeChunksFor(0, 1 << 20, 2, false, 0), 1); // CPU rows: one chunk
        QCOMPARE(exchangeChunksFor(0, 1 << 20, 1, false, 1024), 1); // one process
        QCOMPARE(exchangeChunksFor(0, 1 << 20, 2, true, 1024), 1);  // a tree row
        QCOMPARE(exchangeChunksFor(0, 2047, 2, false, 1024), 1);
        QCOMPARE(exchangeChunksFor(0, 2048, 2, false, 1024), 2);
        QCOMPARE(exchangeChunksFor(0, 3 * 1024 + 5, 3, false, 1024), 3);
        QCOMPARE(exchangeChunksFor(0, 1 << 20, 2, false, 1024), 4);
        QCOMPARE(exchangeChunksFor(0, 32768, 2, false, 65536), 1);  // CUDA, N = 65537 on 2 ranks
        QCOMPARE(exchangeChunksFor(0, 524288, 2, false, 65536), 4); // CUDA, N = 1 M on 2 ranks
    }

    // The diagnostic sums of the ranks' rows add up to those of all bodies (fp64, another order).
    void rowSumsAddUp()
    {
        CubeParams c;
        c.bodies = 1000;
        const World w = makeUniformCube(c);
        const DiagnosticSums all = measureSums(w.positions(), w.velocities(), 0.002);
        for (int p : {2, 3, 7}) {
            DiagnosticSums sum;
            for (int r = 0; r < p; ++r) {
                const RowRange rows = mpi::shareOf(w.size(), r, p);
                sum += measureSums(w.positions(), w.velocities(), 0.002, rows.begin, rows.end);
            }
            QVERIFY(all.pairSum < 0);
            QVERIFY(std::fabs(sum.pairSum - all.pairSum) <= 1e-12 * std::fabs(all.pairSum));
            QVERIFY(std::fabs(sum.mass - all.mass) <= 1e-12 * all.mass);
            QVERIFY(std::fabs(sum.massMoment.x - all.massMoment.x) <= 1e-9 * all.mass * 1e5);
            QCOMPARE(sum.kinetic, all.kinetic); // the cube starts at rest: 0 either way
        }
        // Rows of one body, and the refusal of rows outside the system.
        const DiagnosticSums first = measureSums(w.positions(), w.velocities(), 0.002, 0, 1);
        QCOMPARE(first.mass, double(w.positions()[0].w));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, measureSums(w.positions(), w.velocities(), 0.002, 5, 1001));
    }

    // P ranks against one process: the snapshot rank 0 writes after 100 steps, read back with the
    // single-process reader, holds the same positions and velocities bit for bit.
    void sameStateAsOneProcess_data()
    {
        QTest::addColumn<QString>("kernel");
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("processes");
        QTest::addColumn<int>("chunks"); // --exchange-chunks (0: not given, auto: 1 for these rows)
        for (const char* k : {"cpu", "reference"})
            for (int n : {1, 2, 1000, 4097})
                for (int p : {2, 3})
                    if (p <= n)
                        QTest::addRow("%s N=%d P=%d", k, n, p) << QString(k) << n << p << 0;
        // The pipelined exchange: C chunks of every rank's rows, one MPI_Iallgatherv each. N < P·C
        // leaves chunks empty (N = 1 on one rank of mpirun in 4 chunks: 3 empty; N = 2 on 2 ranks
        // in 3: 2 empty on each); 4097 on 2 ranks in 3 gives uneven chunks (683, 683, 683 / 682,
        // 683, 683 rows) of uneven shares.
        for (const char* k : {"cpu", "reference"}) {
            QTest::addRow("%s N=1 P=1 C=4", k) << QString(k) << 1 << 1 << 4;
            QTest::addRow("%s N=2 P=2 C=3", k) << QString(k) << 2 << 2 << 3;
            QTest::addRow("%s N=1000 P=3 C=4", k) << QString(k) << 1000 << 3 << 4;
            QTest::addRow("%s N=4097 P=2 C=3", k) << QString(k) << 4097 << 2 << 3;
        }
        QTest::addRow("cpu N=1000 P=2 C=1") << QStringLiteral("cpu") << 1000 << 2 << 1;
        QTest::addRow("tiled N=4097 P=2 (one GPU)") << QStringLiteral("tiled") << 4097 << 2 << 0;
        QTest::addRow("blocked N=4097 P=3 (one GPU)") << QStringLiteral("blocked") << 4097 << 3 << 0;
        QTest::addRow("tiled N=4097 P=2 C=4 (one GPU)") << QStringLiteral("tiled") << 4097 << 2 << 4;
        QTest::addRow("blocked N=4097 P=3 C=3 (one GPU)") << QStringLiteral("blocked") << 4097 << 3 << 3;
    }
    void sameStateAsOneProcess()
    {
        QFETCH(QString, kernel);
        QFETCH(int, n);
        QFETCH(int, processes);
        QFETCH(int, chunks);
        if (const QString why = whyUnavailable(qPrintable(kernel)); !why.isEmpty())
            QSKIP(qPrintable(why));
        QVERIFY(m_dir.isValid());
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        // One process's run is made once per kernel and N (the P rows compare with it).
        const QString one = m_dir.filePath(QStringLiteral("one-%1-%2.h5").arg(kernel).arg(n));
        const QString many = dir.filePath(QStringLiteral("many.h5"));
        QStringList args{QStringLiteral("run"), QStringLiteral("--kernel"), kernel, QStringLiteral("--bodies"),
                         QString::number(n), QStringLiteral("--steps"), QStringLiteral("100"),
                         QStringLiteral("--no-energy")};
        // CUDA rows: the rows' default launch parameters in both runs (a tuning between them
        // could choose another j-split, which orders the j-sum differently).
        if (findKernel(kernel.toStdString())->backend == Backend::Cuda)
            args << QStringLiteral("--no-tune");
        if (!QFile::exists(one)) {
            const CliResult single = nbody_test::runCli(QStringList(args) << QStringLiteral("--output") << one, 240000);
            QVERIFY2(single.code == 0, qPrintable(single.err));
        }
        QStringList shared = QStringList(args) << QStringLiteral("--output") << many;
        if (chunks > 0)
            shared << QStringLiteral("--exchange-chunks") << QString::number(chunks);
        const CliResult mpiRun = runMpi(processes, shared);
        QVERIFY2(mpiRun.code == 0, qPrintable(mpiRun.out + mpiRun.err));
        QVERIFY2(mpiRun.out.contains(QStringLiteral("MPI:     %1 process").arg(processes)), qPrintable(mpiRun.out));
        if (processes > 1) {
            // The summary's exchange line: one blocking MPI_Allgatherv per force evaluation (101:
            // the first a_0 and one per step), or C chunks, with the time in flight and waited.
            if (chunks > 1) {
                const QRegularExpression line(QStringLiteral("force exchange \\(rank 0\\): 101 exchanges in %1 chunks "
                                                             "\\(MPI_Iallgatherv\\), (\\S+) ms in flight each, (\\S+) ms "
                                                             "of it waiting \\((\\S+) % hidden\\)")
                                                  .arg(chunks));
                const QRegularExpressionMatch m = line.match(mpiRun.out);
                QVERIFY2(m.hasMatch(), qPrintable(mpiRun.out));
                const double inFlight = m.captured(1).toDouble(), waiting = m.captured(2).toDouble();
                const double hidden = m.captured(3).toDouble();
                QVERIFY2(inFlight > 0 && waiting > 0 && hidden >= 0 && hidden <= 100, qPrintable(m.captured(0)));
            } else {
                QVERIFY2(mpiRun.out.contains(QStringLiteral("force exchange (rank 0): 101 MPI_Allgatherv")), qPrintable(mpiRun.out));
            }
        }
        // Rank 0 alone reports (the others' stdout is silenced): one summary, one snapshot line.
        QCOMPARE(mpiRun.out.count(QStringLiteral("Summary (")), 1);
        QCOMPARE(mpiRun.out.count(QStringLiteral("Snapshot written to")), 1);
        const Snapshot a = readSnapshot(one.toStdString());
        const Snapshot b = readSnapshot(many.toStdString());
        QCOMPARE(b.world.size(), std::size_t(n));
        QCOMPARE(b.world.step, std::uint64_t(100));
        QCOMPARE(b.world.time, a.world.time);
        QVERIFY2(sameBits(a.world.positions(), b.world.positions()),
                 "positions after 100 steps on several processes differ from one process");
        QVERIFY2(sameBits(a.world.velocities(), b.world.velocities()),
                 "velocities after 100 steps on several processes differ from one process");
        if (n >= 2) { // and the bodies did move: the comparison is not of two untouched cubes
            const QString start = dir.filePath(QStringLiteral("start.h5"));
            QStringList zero = args;
            zero[zero.indexOf(QStringLiteral("100"))] = QStringLiteral("0");
            QCOMPARE(nbody_test::runCli(zero << QStringLiteral("--output") << start).code, 0);
            QVERIFY(!sameBits(readSnapshot(start.toStdString()).world.positions(), b.world.positions()));
        }
    }

    // Diagnostics reduce the ranks' rows in fp64: the energies agree with one process to fp64
    // round-off (the order of the sums differs), and the energy-change line is there.
    void diagnosticsReduced()
    {
        const QStringList args{QStringLiteral("run"), QStringLiteral("--kernel"), QStringLiteral("reference"),
                               QStringLiteral("--bodies"), QStringLiteral("1000"), QStringLiteral("--steps"),
                               QStringLiteral("10")};
        const CliResult single = nbody_test::runCli(args);
        QVERIFY2(single.code == 0, qPrintable(single.err));
        const CliResult many = runMpi(3, args);
        QVERIFY2(many.code == 0, qPrintable(many.out + many.err));
        const QRegularExpression energy(QStringLiteral("E0 = (\\S+), E = (\\S+),"));
        const auto m1 = energy.match(single.out), m3 = energy.match(many.out);
        QVERIFY2(m1.hasMatch() && m3.hasMatch(), qPrintable(single.out + many.out));
        for (int g : {1, 2}) {
            const double e1 = m1.captured(g).toDouble(), e3 = m3.captured(g).toDouble();
            QVERIFY(e1 < 0);
            QVERIFY2(std::fabs(e3 - e1) <= 1e-8 * std::fabs(e1), qPrintable(m1.captured(g) + " vs " + m3.captured(g)));
        }
    }

    void moreProcessesThanBodiesStopsClearly()
    {
        const CliResult r = runMpi(3, {QStringLiteral("run"), QStringLiteral("--kernel"), QStringLiteral("cpu"),
                                       QStringLiteral("--bodies"), QStringLiteral("2"), QStringLiteral("--steps"),
                                       QStringLiteral("1")});
        QCOMPARE(r.code == 0, false);
        QVERIFY2(r.code != -2, "mpirun hung");
        QVERIFY2(r.err.contains(QStringLiteral("nbody run: 3 processes cannot share 2 bodies")), qPrintable(r.err));
        QCOMPARE(r.err.count(QStringLiteral("cannot share")), 1); // rank 0 says it, once
    }

    // A failing rank stops every rank with its message, soon (not a hang): the test switch makes
    // rank k fail before its first force exchange; an unreadable input fails rank 0.
    void failingRankStopsAll_data()
    {
        QTest::addColumn<int>("processes");
        QTest::addColumn<int>("failing");
        QTest::addColumn<QStringList>("command");
        QTest::addColumn<int>("chunk"); // NBODY_MPI_FAIL_CHUNK (-1: before the exchange)
        const QStringList run{QStringLiteral("run"), QStringLiteral("--kernel"), QStringLiteral("cpu"),
                              QStringLiteral("--bodies"), QStringLiteral("100"), QStringLiteral("--steps"),
                              QStringLiteral("5")};
        QTest::addRow("rank 1 of 2") << 2 << 1 << run << -1;
        QTest::addRow("rank 2 of 3") << 3 << 2 << run << -1;
        QTest::addRow("rank 0 of 3") << 3 << 0 << run << -1;
        // In the middle of a pipelined exchange: chunks 0 … c−1 posted by every rank, the failing
        // one stops before chunk c's checkpoint (as when computing chunk c fails).
        const QStringList chunked = QStringList(run) << QStringLiteral("--exchange-chunks") << QStringLiteral("4");
        QTest::addRow("rank 1 of 2 in chunk 2 of 4") << 2 << 1 << chunked << 2;
        QTest::addRow("rank 0 of 3 in chunk 1 of 4") << 3 << 0 << chunked << 1;
        QTest::addRow("rank 2 of 3 in chunk 3 of 4") << 3 << 2 << chunked << 3;
        QTest::addRow("bench rank 1 of 2")
            << 2 << 1
            << QStringList{QStringLiteral("bench"), QStringLiteral("--kernels"), QStringLiteral("cpu"),
                           QStringLiteral("--bodies"), QStringLiteral("101"), QStringLiteral("--steps"), QStringLiteral("2")} << -1;
        QTest::addRow("validate rank 2 of 3")
            << 3 << 2
            << QStringList{QStringLiteral("validate"), QStringLiteral("--kernel"), QStringLiteral("cpu"),
                           QStringLiteral("--bodies"), QStringLiteral("101"), QStringLiteral("--steps"),
                           QStringLiteral("5"), QStringLiteral("--checkpoints"), QStringLiteral("1")} << -1;
        QTest::addRow("render rank 1 of 2")
            << 2 << 1
            << QStringList{QStringLiteral("render"), QStringLiteral("--kernel"), QStringLiteral("cpu"),
                           QStringLiteral("--bodies"), QStringLiteral("101"), QStringLiteral("--frames"),
                           QStringLiteral("3"), QStringLiteral("--size"), QStringLiteral("32x32"),
                           QStringLiteral("--no-progress"), QStringLiteral("--out"), QStringLiteral("@DIR@")} << -1;
    }
    void failingRankStopsAll()
    {
        QFETCH(int, processes);
        QFETCH(int, failing);
        QFETCH(QStringList, command);
        QFETCH(int, chunk);
        QTemporaryDir dir;
        command.replaceInStrings(QStringLiteral("@DIR@"), dir.filePath(QStringLiteral("frames")));
        QProcessEnvironment env;
        env.insert(QStringLiteral("NBODY_MPI_FAIL_RANK"), QString::number(failing));
        if (chunk >= 0)
            env.insert(QStringLiteral("NBODY_MPI_FAIL_CHUNK"), QString::number(chunk));
        QElapsedTimer clock;
        clock.start();
        const CliResult r = runMpi(processes, command, env, 60000);
        QVERIFY2(r.code != -2, "a failing rank left the others waiting");
        QCOMPARE(r.code == 0, false);
        // Rank 0 says its own failure; another rank's comes through rank 0 with its rank.
        const QString message = failing == 0
                                    ? QStringLiteral("nbody %1: failure injected by NBODY_MPI_FAIL_RANK=0").arg(command[0])
                                    : QStringLiteral("rank %1 of %2: failure injected by NBODY_MPI_FAIL_RANK=%1")
                                          .arg(failing)
                                          .arg(processes);
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
        if (chunk >= 0)
            QVERIFY2(r.err.contains(QStringLiteral("in chunk %1 of the force exchange").arg(chunk)), qPrintable(r.err));
        QCOMPARE(r.err.count(QStringLiteral("failure injected")), 1); // printed once, by rank 0
        QVERIFY2(!r.out.contains(QStringLiteral("Summary (")), qPrintable(r.out));
        QVERIFY2(!r.out.contains(QStringLiteral("Report written")) && !r.out.contains(QStringLiteral("Frames written")),
                 qPrintable(r.out));
        QVERIFY(clock.elapsed() < 30000);
    }

    void unreadableInputStopsAll()
    {
        QTemporaryDir dir;
        const QString missing = dir.filePath(QStringLiteral("missing.h5"));
        const CliResult r = runMpi(3, {QStringLiteral("run"), QStringLiteral("--input"), missing,
                                       QStringLiteral("--kernel"), QStringLiteral("cpu")},
                                   {}, 60000);
        QVERIFY2(r.code != -2, "rank 0's failure left the others waiting");
        QCOMPARE(r.code == 0, false);
        QVERIFY2(r.err.contains(QStringLiteral("nbody run: ")) && r.err.contains(QStringLiteral("missing.h5")),
                 qPrintable(r.err));
    }

    // `mpirun -np P nbody bench`: rank 0 prints one table whose rows say P ranks and the exchange
    // time per step, which lies within the step time; the JSON and CSV carry the same.
    void benchShared_data()
    {
        QTest::addColumn<int>("processes");
        QTest::addColumn<int>("chunks"); // --exchange-chunks (0: auto, 1 chunk for CPU rows)
        QTest::addRow("P=2") << 2 << 0;
        QTest::addRow("P=3 C=3") << 3 << 3;
    }
    void benchShared()
    {
        QFETCH(int, processes);
        QFETCH(int, chunks);
        QTemporaryDir dir;
        const QString json = dir.filePath(QStringLiteral("b.json")), csv = dir.filePath(QStringLiteral("b.csv"));
        QStringList args{QStringLiteral("bench"), QStringLiteral("--kernels"), QStringLiteral("cpu,reference"),
                         QStringLiteral("--bodies"), QStringLiteral("1001"), QStringLiteral("--steps"), QStringLiteral("2"),
                         QStringLiteral("--warmup"), QStringLiteral("1"), QStringLiteral("--json"), json,
                         QStringLiteral("--csv"), csv};
        if (chunks > 0)
            args << QStringLiteral("--exchange-chunks") << QString::number(chunks);
        const CliResult r = runMpi(processes, args);
        const int expectChunks = chunks > 0 ? chunks : 1;
        QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
        QVERIFY2(r.out.contains(QStringLiteral("MPI:       %1 processes").arg(processes)), qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("exchange ms")), qPrintable(r.out));
        QCOMPARE(r.err.count(QStringLiteral("bench [1/2] cpu N=1001")), 1); // rank 0 alone reports
        QCOMPARE(r.err.count(QStringLiteral("bench: wrote")), 2);
        // The table's rows: kernel, precision, layout, N, ranks, force ms, step ms, exchange ms, …
        for (const char* kernel : {"cpu", "reference"}) {
            const QRegularExpression row(QStringLiteral("^%1\\s+\\S+\\s+\\S+\\s+1001\\s+%2\\s+(\\S+)\\s+(\\S+)\\s+(\\S+)\\s")
                                             .arg(QLatin1String(kernel))
                                             .arg(processes),
                                         QRegularExpression::MultilineOption);
            const QRegularExpressionMatch m = row.match(r.out);
            QVERIFY2(m.hasMatch(), qPrintable(r.out));
            const double step = m.captured(2).toDouble(), exchange = m.captured(3).toDouble();
            QVERIFY2(exchange > 0 && exchange <= step, qPrintable(m.captured(0)));
        }
        const QJsonObject saved = readJson(json);
        QCOMPARE(saved[QStringLiteral("ranks")].toInt(), processes);
        QVERIFY(saved[QStringLiteral("mpi")].toString().startsWith(QStringLiteral("%1 processes").arg(processes)));
        const QJsonArray results = saved[QStringLiteral("results")].toArray();
        QCOMPARE(results.size(), 2);
        for (const QJsonValue& v : results) {
            QCOMPARE(v[QStringLiteral("ranks")].toInt(), processes);
            const double step = v[QStringLiteral("stepMsMedian")].toDouble();
            const double exchange = v[QStringLiteral("exchangeMsPerStep")].toDouble();
            const double compute = v[QStringLiteral("computeMsPerStep")].toDouble();
            QVERIFY2(exchange > 0 && exchange <= step, qPrintable(QString::number(exchange)));
            // Two samples: medians are means of two, step − exchange per sample, so they add up.
            QVERIFY2(compute >= 0 && std::fabs(compute + exchange - step) <= 1e-9 * step + 1e-12,
                     qPrintable(QStringLiteral("%1 + %2 vs %3").arg(compute).arg(exchange).arg(step)));
            QCOMPARE(v[QStringLiteral("timer")].toString(), QStringLiteral("wall clock"));
            // The pipeline's figures: the chunks, the time in flight and the part hidden. One
            // chunk: the blocking collective is in flight only while rank 0 waits in it, so
            // nothing is hidden (in flight ≤ waiting in every sample, hence in the medians).
            QCOMPARE(v[QStringLiteral("exchangeChunks")].toInt(), expectChunks);
            const double inFlight = v[QStringLiteral("exchangeInFlightMsPerStep")].toDouble();
            const double hidden = v[QStringLiteral("exchangeHiddenFraction")].toDouble();
            QVERIFY2(inFlight > 0, qPrintable(QString::number(inFlight)));
            QVERIFY2(hidden >= 0 && hidden < 1, qPrintable(QString::number(hidden)));
            if (expectChunks == 1) {
                QVERIFY2(inFlight <= exchange, qPrintable(QStringLiteral("%1 vs %2").arg(inFlight).arg(exchange)));
                QCOMPARE(hidden, 0.0);
            }
        }
        for (const char* kernel : {"cpu", "reference"})
            QVERIFY2(r.out.contains(QRegularExpression(QStringLiteral("^exchange: %1 N=1001: %2 chunks? \\(MPI_I?[Aa]llgatherv\\), \\S+ ms "
                                                                      "in flight per step, \\S+ ms of it waiting \\(\\S+ % hidden\\)")
                                                           .arg(QLatin1String(kernel))
                                                           .arg(expectChunks),
                                                       QRegularExpression::MultilineOption)),
                     qPrintable(r.out));
        const QStringList lines = QString::fromUtf8(readBytes(csv)).trimmed().split('\n');
        QCOMPARE(lines.size(), 3);
        QVERIFY2(lines[0].endsWith(QStringLiteral(",ranks,exchange_ms_per_step,compute_ms_per_step")), qPrintable(lines[0]));
        QVERIFY2(lines[1].contains(QRegularExpression(QStringLiteral(",%1,[0-9.e+-]+,[0-9.e+-]+$").arg(processes))),
                 qPrintable(lines[1]));
    }

    // `mpirun -np P nbody validate`: every run shared (the reference's too). The states are one
    // process's bit for bit, so every figure of the report that comes from them (force errors,
    // position, velocity and acceleration errors, growth of the position error, the verdict) is
    // equal; the energies and momenta are sums over all bodies that the P processes reduce in
    // another order (fp64, u = 2^-53). Bound: each E is an outer sum over N per-body terms,
    // whose recursive summation errs by at most (N − 1) u Σ|terms| in either order, so two
    // orders differ by ≤ 2 N u (|W| + K); ΔE/E0 takes E and E0 (twice that) over |E0|, and for
    // the Plummer sphere (|W| + K) / |E0| = 3 (virial: E = −K = W/2): |Δ(ΔE/E0)| ≤ 12 N u; the
    // momentum change (|ΔP| over Σ m|v|) is bounded alike.
    void validateShared_data()
    {
        QTest::addColumn<QString>("kernel");
        QTest::addColumn<int>("processes");
        for (const char* k : {"cpu", "reference"})
            for (int p : {2, 3})
                QTest::addRow("%s P=%d", k, p) << QString(k) << p;
    }
    void validateShared()
    {
        QFETCH(QString, kernel);
        QFETCH(int, processes);
        QVERIFY(m_dir.isValid());
        constexpr int n = 1001;
        const QStringList args{QStringLiteral("validate"), QStringLiteral("--kernel"), kernel, QStringLiteral("--bodies"),
                               QString::number(n), QStringLiteral("--steps"), QStringLiteral("20"),
                               QStringLiteral("--checkpoints"), QStringLiteral("4"), QStringLiteral("--quiet")};
        const QString one = m_dir.filePath(QStringLiteral("validate-one-%1.json").arg(kernel));
        if (!QFile::exists(one)) {
            const CliResult single = nbody_test::runCli(QStringList(args) << QStringLiteral("--report") << one);
            QVERIFY2(single.code == 0, qPrintable(single.out + single.err));
        }
        QTemporaryDir dir;
        const QString many = dir.filePath(QStringLiteral("many.json"));
        const CliResult r = runMpi(processes, QStringList(args) << QStringLiteral("--report") << many);
        QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
        QVERIFY2(r.out.contains(QStringLiteral("MPI:     %1 processes").arg(processes)), qPrintable(r.out));
        QCOMPARE(r.out.count(QStringLiteral("Report written to")), 1);
        const QJsonObject a = readJson(one), b = readJson(many);
        QCOMPARE(b[QStringLiteral("bodies")].toInt(), n);
        const double tolerance = 12.0 * n * std::numeric_limits<double>::epsilon() / 2; // 12 N u
        const QString kernels = compareReports(a[QStringLiteral("kernels")], b[QStringLiteral("kernels")], tolerance, QStringLiteral("kernels"));
        QVERIFY2(kernels.isEmpty(), qPrintable(kernels));
        const QString reference = compareReports(a[QStringLiteral("reference")], b[QStringLiteral("reference")], tolerance, QStringLiteral("reference"));
        QVERIFY2(reference.isEmpty(), qPrintable(reference));
        QCOMPARE(b[QStringLiteral("allPass")].toBool(), true);
        // And the runs moved: the position error grew from step 0 (the comparison is not empty).
        const QJsonArray growth = b[QStringLiteral("kernels")].toArray()[0][QStringLiteral("growth")].toArray();
        if (kernel == QLatin1String("cpu"))
            QVERIFY(growth.last()[QStringLiteral("maxPositionError")].toDouble() > growth.first()[QStringLiteral("maxPositionError")].toDouble());
    }

    // `mpirun -np P nbody render`: rank 0 writes the same frames as one process, byte for byte
    // (the same state, drawn by the same renderer); the other ranks open no GL context.
    void renderShared_data()
    {
        QTest::addColumn<QString>("kernel");
        QTest::addColumn<int>("processes");
        for (const char* k : {"cpu", "reference"})
            for (int p : {2, 3})
                QTest::addRow("%s P=%d", k, p) << QString(k) << p;
    }
    void renderShared()
    {
        QFETCH(QString, kernel);
        QFETCH(int, processes);
        QVERIFY(m_dir.isValid());
        const QStringList args{QStringLiteral("render"), QStringLiteral("--kernel"), kernel, QStringLiteral("--bodies"),
                               QStringLiteral("1001"), QStringLiteral("--frames"), QStringLiteral("3"),
                               QStringLiteral("--every"), QStringLiteral("5"), QStringLiteral("--size"),
                               QStringLiteral("96x64"), QStringLiteral("--no-progress"), QStringLiteral("--out")};
        const QString one = m_dir.filePath(QStringLiteral("frames-one-%1").arg(kernel));
        if (!QDir(one).exists()) {
            const CliResult single = nbody_test::runCli(QStringList(args) << one);
            if (single.code == 2 && single.err.contains(QStringLiteral("cannot render headless")))
                QSKIP(qPrintable(QStringLiteral("no headless OpenGL here: ") + single.err));
            QVERIFY2(single.code == 0, qPrintable(single.out + single.err));
        }
        QTemporaryDir dir;
        const QString many = dir.filePath(QStringLiteral("frames"));
        const CliResult r = runMpi(processes, QStringList(args) << many);
        QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
        QVERIFY2(r.out.contains(QStringLiteral("MPI:     %1 processes").arg(processes)), qPrintable(r.out));
        QCOMPARE(r.out.count(QStringLiteral("OpenGL:")), 1); // rank 0 alone renders
        const QStringList frames = QDir(one).entryList({QStringLiteral("*.png")}, QDir::Files, QDir::Name);
        QCOMPARE(frames.size(), 3);
        QCOMPARE(QDir(many).entryList({QStringLiteral("*.png")}, QDir::Files, QDir::Name), frames);
        for (const QString& f : frames)
            QVERIFY2(readBytes(QDir(one).filePath(f)) == readBytes(QDir(many).filePath(f)), qPrintable(f + " differs"));
        // The frames show motion: the last differs from the first (the comparison can fail).
        QVERIFY(readBytes(QDir(one).filePath(frames.first())) != readBytes(QDir(one).filePath(frames.last())));
    }

private:
    QTemporaryDir m_dir; ///< single-process snapshots shared by the rows of sameStateAsOneProcess
};

QTEST_APPLESS_MAIN(TestMpi)
#include "tst_mpi.moc"
