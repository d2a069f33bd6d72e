// The launch-parameter tuner without a GPU: the search against synthetic cost functions, the N
// buckets and candidates, the cache file (round trip, another device or driver, malformed files,
// reads while another thread writes) and how tuned values reach deviceForceArgs().
#include "sim/perf/Tuner.h"

#include <QtTest>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <thread>

using namespace nbody;

namespace {

/// A CUDA row that reads what the `blocked` rows read (no launcher: nothing runs).
KernelInfo blockedLikeRow()
{
    KernelInfo k = *findKernel("tiled");
    k.id = "tuner-test-blocked";
    k.params = KernelParamUse{};
    k.params.blockSize = k.params.bodiesPerThread = k.params.jSplit = k.params.unroll = true;
    k.defaults = nullptr;
    return k;
}

const TuningDevice kDevice{"Test GPU 9000", 13000, 132, 1024};

double dist(int v, int best)
{
    return std::abs(std::log2(double(v)) - std::log2(double(best)));
}

/// Separable cost with its minimum at block 128, 4 i/thread, j-split 8, unroll 2; refuses
/// more than 512 i-bodies per block (as a register limit would).
double syntheticMs(const LaunchValues& v)
{
    if (v.blockSize * v.bodiesPerThread > 512)
        throw std::invalid_argument("too many i-bodies per block");
    return (1 + dist(v.blockSize, 128)) * (1 + dist(v.bodiesPerThread, 4)) * (1 + dist(v.jSplit, 8)) *
           (1 + dist(v.unroll, 2));
}

TunedEntry entry(std::string kernel, std::size_t bucket, int block, int tile = 0)
{
    TunedEntry e;
    e.device = kDevice.name;
    e.driverVersion = kDevice.driverVersion;
    e.kernel = std::move(kernel);
    e.bucket = bucket;
    e.launch.blockSize = block;
    e.launch.tileWidthFactor = tile;
    e.forceMs = 1.5;
    e.interactionsPerSecond = double(bucket) * double(bucket) / 1.5e-3;
    e.date = "2026-12-01";
    return e;
}

void writeFile(const QString& path, const std::string& text)
{
    std::ofstream out(path.toStdString(), std::ios::binary);
    out << text;
}

} // namespace

class TestTuner : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString path(const char* name) const { return m_dir.filePath(QString::fromLatin1(name)); }

private slots:
    void buckets()
    {
        QCOMPARE(tuningBucket(1), kMinTuningBucket);
        QCOMPARE(tuningBucket(1448), std::size_t(1024)); // below 1024·√2
        QCOMPARE(tuningBucket(1449), std::size_t(2048));
        QCOMPARE(tuningBucket(8192), std::size_t(8192));
        QCOMPARE(tuningBucket(10000), std::size_t(8192));
        QCOMPARE(tuningBucket(12000), std::size_t(16384));
        QCOMPARE(tuningBucket(std::size_t(1) << 30), kMaxTuningBucket);
    }

    void candidates()
    {
        const KernelInfo k = blockedLikeRow();
        TuningDevice small = kDevice;
        small.maxThreadsPerBlock = 512;
        QCOMPARE(launchCandidates(k, LaunchParam::BlockSize, 8192, small, {}), (std::vector<int>{64, 128, 256, 512}));
        QCOMPARE(launchCandidates(k, LaunchParam::Unroll, 8192, kDevice, {}), (std::vector<int>{1, 2, 4, 8}));
        LaunchValues v;
        v.blockSize = 256;
        v.bodiesPerThread = 1;
        // N = 1024: 4 i-blocks; j-split while N / split ≥ one tile of 256 bodies.
        QCOMPARE(launchCandidates(k, LaunchParam::JSplit, 1024, kDevice, v), (std::vector<int>{1, 2, 4}));
        // N = 2^18 with 256 × 4 per block: 256 i-blocks. Powers of two while the blocks stay
        // within 8 per SM (2, 4: 512, 1024 ≤ 8 · 132), and the splits giving k · 132 blocks
        // for k = 1 … 8 (ceil(132 k / 256) = 1, 2, 2, 3, 3, 4, 4, 5).
        v.bodiesPerThread = 4;
        QCOMPARE(launchCandidates(k, LaunchParam::JSplit, 1 << 18, kDevice, v), (std::vector<int>{1, 2, 3, 4, 5}));
    }

    void searchFindsTheMinimumQuickly()
    {
        const KernelInfo k = blockedLikeRow();
        const LaunchValues start = defaultLaunch(k, 8192);
        QCOMPARE(start.blockSize, 256);
        QCOMPARE(start.unroll, 4);
        QCOMPARE(start.tileWidthFactor, 0); // not read by the row
        const TuneResult r = searchLaunch(k, 8192, kDevice, syntheticMs, start);
        QCOMPARE(r.launch.blockSize, 128);
        QCOMPARE(r.launch.bodiesPerThread, 4);
        QCOMPARE(r.launch.jSplit, 8);
        QCOMPARE(r.launch.unroll, 2);
        QCOMPARE(r.forceMs, 1.0);
        QVERIFY(r.refused > 0);                  // the 512-body limit was met and skipped
        QVERIFY2(r.measured + r.refused < 60, qPrintable(QString::number(r.measured))); // the grid has 500
        QVERIFY(!r.budgetExhausted);
        QCOMPARE(describeLaunch(k, r.launch), std::string("block 128, 4 i/thread, j-split 8, unroll 2"));
    }

    void searchStopsAtTheBudget()
    {
        const KernelInfo k = blockedLikeRow();
        TuneOptions o;
        o.budgetSeconds = 0; // only the start is measured
        int calls = 0;
        const TuneResult r = searchLaunch(
            k, 8192, kDevice, [&](const LaunchValues& v) { ++calls; return syntheticMs(v); }, defaultLaunch(k, 8192), o);
        QVERIFY(r.budgetExhausted);
        QCOMPARE(calls, 1);
        QCOMPARE(r.launch, defaultLaunch(k, 8192));
    }

    void searchSurvivesARefusedStartAndFailsWhenAllAreRefused()
    {
        const KernelInfo k = blockedLikeRow();
        LaunchValues start = defaultLaunch(k, 8192);
        start.blockSize = 1024;
        start.bodiesPerThread = 8; // refused by syntheticMs
        const TuneResult r = searchLaunch(k, 8192, kDevice, syntheticMs, start);
        QCOMPARE(r.launch.blockSize, 128);
        QCOMPARE(r.launch.bodiesPerThread, 4);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 searchLaunch(k, 8192, kDevice,
                                              [](const LaunchValues&) -> double { throw std::invalid_argument("no"); },
                                              start));
    }

    void cacheRoundTrip()
    {
        const QString file = path("sub/dir/roundtrip.json"); // directories are created
        {
            TuningCache c(file.toStdString());
            QVERIFY(c.warning().empty());
            QVERIFY(!c.find(kDevice, "tiled", 8192));
            const auto g = c.generation();
            c.store(entry("tiled", 8192, 128, 2));
            c.store(entry("tiled", 65536, 256, 4));
            c.store(entry("tiled", 8192, 64, 1)); // replaces the first
            QVERIFY(c.generation() > g);
        }
        TuningCache again(file.toStdString());
        QVERIFY(again.warning().empty());
        const auto e = again.find(kDevice, "tiled", 8192);
        QVERIFY(e);
        QCOMPARE(e->launch.blockSize, 64);
        QCOMPARE(e->launch.tileWidthFactor, 1);
        QCOMPARE(e->date, std::string("2026-12-01"));
        QCOMPARE(e->interactionsPerSecond, entry("tiled", 8192, 64).interactionsPerSecond);
        QCOMPARE(again.entriesFor(kDevice).size(), std::size_t(2));
        // Another process's entry written in between is kept by our next store.
        {
            TuningCache other(file.toStdString());
            other.store(entry("tiled-fp64", 8192, 128));
        }
        again.store(entry("tiled", 1024, 64));
        QCOMPARE(TuningCache(file.toStdString()).entriesFor(kDevice).size(), std::size_t(4));
    }

    void otherDeviceOrDriverIsNotUsed()
    {
        const QString file = path("devices.json");
        TuningCache c(file.toStdString());
        c.store(entry("tiled", 8192, 128));
        TuningDevice newerDriver = kDevice;
        newerDriver.driverVersion = 13010;
        TuningDevice otherGpu = kDevice;
        otherGpu.name = "Test GPU 8000";
        QVERIFY(c.find(kDevice, "tiled", 8192));
        QVERIFY(!c.find(newerDriver, "tiled", 8192));
        QVERIFY(!c.find(otherGpu, "tiled", 8192));
        QVERIFY(!c.find(TuningDevice{}, "tiled", 8192));
        QVERIFY(c.entriesFor(otherGpu).empty());
        // Tuning on the other device keeps this one's entry in the file.
        TunedEntry e = entry("tiled", 8192, 512);
        e.device = otherGpu.name;
        c.store(e);
        TuningCache back(file.toStdString());
        QCOMPARE(back.find(kDevice, "tiled", 8192)->launch.blockSize, 128);
        QCOMPARE(back.find(otherGpu, "tiled", 8192)->launch.blockSize, 512);
    }

    void malformedCacheIsIgnored_data()
    {
        QTest::addColumn<QString>("text");
        QTest::newRow("not JSON") << "{\"schema\": \"nbody-launch-tuning/1\", \"entries\": [";
        QTest::newRow("empty") << "";
        QTest::newRow("binary") << QString::fromLatin1("\x01\x02\xff\xfe");
        QTest::newRow("other schema") << "{\"schema\": \"something-else/2\", \"entries\": []}";
        QTest::newRow("entries not a list") << "{\"schema\": \"nbody-launch-tuning/1\", \"entries\": 3}";
        QTest::newRow("entry of the wrong type")
            << "{\"schema\": \"nbody-launch-tuning/1\", \"entries\": [{\"device\": 1, \"driver\": \"x\"}]}";
        QTest::newRow("negative block")
            << "{\"schema\": \"nbody-launch-tuning/1\", \"entries\": [{\"device\": \"Test GPU 9000\", \"driver\": "
               "13000, \"kernel\": \"tiled\", \"bucket\": 8192, \"params\": {\"blockSize\": -4}}]}";
    }
    void malformedCacheIsIgnored()
    {
        QFETCH(QString, text);
        const QString file = path("malformed.json");
        writeFile(file, text.toStdString());
        TuningCache c(file.toStdString()); // never throws
        QVERIFY(!c.warning().empty());
        QVERIFY2(c.warning().find("malformed.json") != std::string::npos, c.warning().c_str());
        QVERIFY(!c.find(kDevice, "tiled", 8192));
        // The next store replaces the file with a valid one.
        c.store(entry("tiled", 8192, 128));
        TuningCache back(file.toStdString());
        QVERIFY(back.warning().empty());
        QVERIFY(back.find(kDevice, "tiled", 8192));
    }

    void unreadableCacheIsIgnored()
    {
        const QString dir = path("a-directory.json"); // a directory where the file should be
        QVERIFY(QDir().mkpath(dir));
        TuningCache c(dir.toStdString());
        QVERIFY(!c.warning().empty());
        QVERIFY(!c.find(kDevice, "tiled", 8192));
        QVERIFY_THROWS_EXCEPTION(std::exception, c.store(entry("tiled", 8192, 128)));
        QVERIFY(c.find(kDevice, "tiled", 8192)); // still used in this process
    }

    void concurrentReadWhileWrite()
    {
        const QString file = path("concurrent.json");
        TuningCache c(file.toStdString());
        c.store(entry("tiled", 1024, 64));
        std::atomic<bool> done{false};
        std::atomic<int> badReads{0}, fileWarnings{0};
        std::thread reader([&] {
            while (!done.load()) {
                const auto e = c.find(kDevice, "tiled", 1024); // the same object, while it writes
                if (!e || e->launch.blockSize != 64)
                    ++badReads;
                (void)c.entriesFor(kDevice);
            }
        });
        std::thread fileReader([&] {
            while (!done.load()) { // another process's view: the file is always whole
                TuningCache other(file.toStdString());
                if (!other.warning().empty() || !other.find(kDevice, "tiled", 1024))
                    ++fileWarnings;
            }
        });
        for (int i = 0; i < 40; ++i)
            c.store(entry("tiled-fp64", std::size_t(1024) << (i % 9), 64 << (i % 5)));
        done.store(true);
        reader.join();
        fileReader.join();
        QCOMPARE(badReads.load(), 0);
        QCOMPARE(fileWarnings.load(), 0);
        QCOMPARE(c.entriesFor(kDevice).size(), std::size_t(10));
    }

    void tunedValuesReachDeviceForceArgs()
    {
        const QString file = path("global.json");
        qputenv("NBODY_TUNING_CACHE", file.toUtf8());
        QCOMPARE(tuningCachePath(), file.toStdString());
        tuningCache().reopen(tuningCachePath());
        overrideTuningDevice(kDevice);
        KernelInfo k = *findKernel("tiled"); // block size and tile factor
        k.id = "tuner-test-tiled";
        k.defaults = nullptr;

        SimParams p; // all on auto
        QCOMPARE(deviceForceArgs(k, p, 8192).blockSize, kDefaultBlockSize);
        ResolvedLaunch r = resolveLaunch(k, p, 8192);
        QCOMPARE(r.args.tileWidthFactor, 1);
        QVERIFY(!r.tuned);
        QCOMPARE(describeResolved(k, r), std::string("block 256, tile x1 (default)"));

        tuningCache().store(entry("tuner-test-tiled", 8192, 128, 4));
        QCOMPARE(deviceForceArgs(k, p, 8192).blockSize, 128); // the memo saw the new generation
        QCOMPARE(deviceForceArgs(k, p, 10000).tileWidthFactor, 4); // same bucket
        QCOMPARE(deviceForceArgs(k, p, 65536).blockSize, kDefaultBlockSize); // another bucket
        p.blockSize = 64; // the user's value wins
        r = resolveLaunch(k, p, 8192);
        QCOMPARE(r.args.blockSize, 64);
        QCOMPARE(r.args.tileWidthFactor, 4);
        QVERIFY(r.tuned);
        QCOMPARE(describeResolved(k, r), std::string("block 64 (set); tile x4 (tuned)"));
        QCOMPARE(describeTuned(k, *r.tuned).substr(0, 21), std::string("block 128, tile x4: 4"));

        // Another device (or none) does not see it; CPU rows never do.
        overrideTuningDevice(TuningDevice{"Test GPU 8000", 13000, 100, 1024});
        QCOMPARE(deviceForceArgs(k, SimParams{}, 8192).blockSize, kDefaultBlockSize);
        overrideTuningDevice(kDevice);
        QCOMPARE(deviceForceArgs(k, SimParams{}, 8192).blockSize, 128);
        QCOMPARE(deviceForceArgs(*findKernel("cpu"), SimParams{}, 8192).blockSize, kDefaultBlockSize);
        // A malformed file read later is ignored: defaults again, no exception.
        writeFile(file, "garbage");
        tuningCache().reopen(tuningCachePath());
        QVERIFY(!tuningCache().warning().empty());
        QCOMPARE(deviceForceArgs(k, SimParams{}, 8192).blockSize, kDefaultBlockSize);
        overrideTuningDevice(std::nullopt);
    }

    void whoIsTunable()
    {
        QVERIFY(!tunable(*findKernel("cpu"), SimParams{}));
        SimParams all;
        all.blockSize = 256;
        all.tileWidthFactor = 1;
        QVERIFY(!tunable(*findKernel("tiled"), all)); // every parameter it reads is set
        // Without a device (here) nothing is tuned and nothing throws.
        if (currentTuningDevice().name.empty()) {
            const TuneOutcome o = ensureTuned(*findKernel("tiled"), SimParams{}, 8192);
            QVERIFY(!o.ran && !o.entry);
        }
    }
};

QTEST_GUILESS_MAIN(TestTuner)
#include "tst_tuner.moc"
