// `nbody bench --plot` through the command line, as a user runs it: a small synthetic
// `--json` file (two kernels, a device with its ceilings) re-plotted with --from into PNG and
// SVG, with a --reference series; the files' size and content; a bad reference CSV and a bad
// plot name refused with a message naming the problem. Built only where nbody has plotting
// (NBODY_HAVE_PLOT); needs no display (the plot runs on Qt's offscreen platform).
#include "CliRunner.h"

#include <QtTest>

#include <QColor>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QProcess>
#include <QTemporaryDir>

namespace {

using Result = nbody_test::CliResult;
using nbody_test::cliPath;

Result nbody(const QStringList& args)
{
    return nbody_test::runCli(args, 120000);
}

void writeFile(const QString& path, const QByteArray& text)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    QCOMPARE(f.write(text), qint64(text.size()));
}

/// A saved `nbody bench --json` of an H200: `tiled` at three N, `tiled-fp64` at two, one skipped
/// case, the fp32 and fp64 ceilings (132 × 128 × 1.98e9 / 17, 132 × 64 × 1.98e9 / 18).
QByteArray syntheticJson()
{
    return R"({
  "machine": "NVIDIA H200 (CUDA driver 13.0, runtime 13.0), 16 OpenMP threads",
  "device": {"name": "NVIDIA H200", "computeCapability": "9.0", "multiprocessors": 132, "clockKHz": 1980000},
  "results": [
    {"kernel": "tiled", "precision": "fp32", "layout": "float4", "backend": "CUDA", "bodies": 8192,
     "params": {"used": "block 256, tile x1"}, "flopsPerInteraction": 20, "slotsPerInteraction": 17,
     "ceilingInteractionsPerSecond": 1.9675e12, "samples": 10, "forceMsMedian": 0.3034, "forceMsMin": 0.30,
     "stepMsMedian": 0.3151, "interactionsPerSecond": 2.212e11, "gflops": 4424, "timer": "CUDA events"},
    {"kernel": "tiled", "precision": "fp32", "layout": "float4", "backend": "CUDA", "bodies": 65536,
     "params": {"used": "block 256, tile x1"}, "flopsPerInteraction": 20, "slotsPerInteraction": 17,
     "ceilingInteractionsPerSecond": 1.9675e12, "samples": 10, "forceMsMedian": 3.265, "forceMsMin": 3.2,
     "stepMsMedian": 3.281, "interactionsPerSecond": 1.315e12, "gflops": 26300, "timer": "CUDA events"},
    {"kernel": "tiled", "precision": "fp32", "layout": "float4", "backend": "CUDA", "bodies": 262144,
     "params": {"used": "block 256, tile x1"}, "flopsPerInteraction": 20, "slotsPerInteraction": 17,
     "ceilingInteractionsPerSecond": 1.9675e12, "samples": 10, "forceMsMedian": 47.30, "forceMsMin": 47.2,
     "stepMsMedian": 47.32, "interactionsPerSecond": 1.453e12, "gflops": 29058, "timer": "CUDA events"},
    {"kernel": "tiled-fp64", "precision": "fp64", "layout": "double4", "backend": "CUDA", "bodies": 8192,
     "params": {"used": "block 256, tile x1"}, "flopsPerInteraction": 30, "slotsPerInteraction": 18,
     "ceilingInteractionsPerSecond": 9.2928e11, "samples": 10, "forceMsMedian": 0.7016, "forceMsMin": 0.7,
     "stepMsMedian": 0.7137, "interactionsPerSecond": 9.57e10, "gflops": 2870, "timer": "CUDA events"},
    {"kernel": "tiled-fp64", "precision": "fp64", "layout": "double4", "backend": "CUDA", "bodies": 65536,
     "params": {"used": "block 256, tile x1"}, "flopsPerInteraction": 30, "slotsPerInteraction": 18,
     "ceilingInteractionsPerSecond": 9.2928e11, "samples": 10, "forceMsMedian": 7.069, "forceMsMin": 7.0,
     "stepMsMedian": 7.08, "interactionsPerSecond": 6.08e11, "gflops": 18229, "timer": "CUDA events"},
    {"kernel": "cpu", "precision": "fp32", "layout": "float4", "backend": "CPU", "bodies": 262144,
     "params": {"used": "-"}, "flopsPerInteraction": 20, "slotsPerInteraction": 0,
     "ceilingInteractionsPerSecond": null, "note": "skipped: about 155 s predicted"}
  ]
}
)";
}

} // namespace

class TestBenchPlot : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString m_json, m_reference;

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_json = m_dir.filePath("h200.json");
        m_reference = m_dir.filePath("reference.csv");
        writeFile(m_json, syntheticJson());
        writeFile(m_reference, "label,N,interactions_per_second\n"
                               "# NVIDIA's nbody sample on the same card\n"
                               "NVIDIA sample,65536,1.409e12\n"
                               "NVIDIA sample,262144,1.5e12\n");
    }

    /// --from prints the saved table again (with the ceiling %) and measures nothing.
    void fromReprints()
    {
        const Result r = nbody({"bench", "--from", m_json});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains("ceiling %"), qPrintable(r.out));
        QVERIFY(r.out.contains("NVIDIA H200"));
        // 1.453e12 / 1.9675e12 = 73.85 %
        QVERIFY2(r.out.contains(QRegularExpression("tiled +fp32 +float4 +262144 .* 73\\.9 ")), qPrintable(r.out));
        QVERIFY(r.out.contains("skipped: about 155 s predicted"));
        QVERIFY(!r.err.contains("bench ["));
    }

    void png()
    {
        const QString path = m_dir.filePath("chart.png");
        const Result r = nbody({"bench", "--from", m_json, "--reference", m_reference, "--plot", path});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QImage image(path);
        QCOMPARE(image.size(), QSize(1600, 1000));
        // The series are drawn in saturated colours on white: the plot area (inside the axes
        // and left of the legend) has many such pixels; the corner above the title has none.
        int coloured = 0;
        for (int y = 120; y < 880; y += 2)
            for (int x = 150; x < 1100; x += 2)
                if (image.pixelColor(x, y).hsvSaturation() > 120)
                    ++coloured;
        QVERIFY2(coloured > 300, qPrintable(QString::number(coloured)));
        QCOMPARE(image.pixelColor(5, 5), QColor(Qt::white));
        QCOMPARE(QDir(m_dir.path()).entryList({"chart.png*"}, QDir::Files).size(), 1); // no temporary left
    }

    void svg()
    {
        const QString path = m_dir.filePath("chart.svg");
        const Result r = nbody({"bench", "--from", m_json, "--reference", m_reference, "--plot", path});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray svg = f.readAll();
        QVERIFY(svg.contains("<svg"));
        QVERIFY(svg.trimmed().endsWith("</svg>"));
        QVERIFY2(svg.contains("viewBox=\"0 0 1600 1000\""), svg.left(600).constData());
        for (const char* name : {"tiled (fp32)", "tiled-fp64 (fp64)", "NVIDIA sample", "fp32 ceiling", "fp64 ceiling",
                                 "NVIDIA H200"})
            QVERIFY2(svg.contains(name), name);
    }

    /// A saved run re-written as CSV keeps the ceiling fields.
    void fromToCsv()
    {
        const QString path = m_dir.filePath("again.csv");
        const Result r = nbody({"bench", "--from", m_json, "--csv", path});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QStringList lines = QString::fromUtf8(f.readAll()).trimmed().split('\n');
        QCOMPARE(lines.size(), 7);
        QVERIFY2(lines[0].endsWith("slots_per_interaction,ceiling_interactions_per_second,share_of_ceiling,per_core,"
                                   "method,bodies_per_second,ranks,exchange_ms_per_step,compute_ms_per_step"),
                 qPrintable(lines[0]));
        QVERIFY2(lines[3].startsWith("tiled,fp32,float4,262144,") && lines[3].contains(",17,1.9675e+12,0.738501,"),
                 qPrintable(lines[3]));
        // The skipped CPU row: no ceiling, no per core, no rate, no ranks or exchange.
        QVERIFY2(lines[6].endsWith(",,,,,all pairs,,,,"), qPrintable(lines[6]));
    }

    void badReference_data()
    {
        QTest::addColumn<QByteArray>("csv");
        QTest::addColumn<QString>("message");
        QTest::newRow("two fields") << QByteArray("a,1,2e9\nb,65536\n") << "line 2: not three comma-separated fields";
        QTest::newRow("bad N") << QByteArray("# c\n\nsample,6x,1e12\n") << "line 3: N '6x' is not a positive integer";
        QTest::newRow("zero N") << QByteArray("sample,0,1e12\n") << "line 1: N '0'";
        QTest::newRow("bad rate") << QByteArray("sample,1024,fast\n") << "line 1: interactions per second 'fast'";
        QTest::newRow("negative rate") << QByteArray("sample,1024,-1e9\n") << "line 1: interactions per second '-1e9'";
        QTest::newRow("empty label") << QByteArray(" ,1024,1e9\n") << "line 1: empty label";
        QTest::newRow("no point") << QByteArray("label,N,interactions_per_second\n") << "no point";
    }
    void badReference()
    {
        QFETCH(QByteArray, csv);
        QFETCH(QString, message);
        const QString ref = m_dir.filePath("bad.csv");
        writeFile(ref, csv);
        const QString path = m_dir.filePath("refused.png");
        const Result r = nbody({"bench", "--from", m_json, "--reference", ref, "--plot", path});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
        QVERIFY(!QFile::exists(path));
    }

    void refusedOptions_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("plot extension") << QStringList{"--plot", "chart.jpg"} << "must end in .png or .svg";
        QTest::newRow("reference without plot") << QStringList{"--reference", "ref.csv"} << "--reference needs --plot";
        QTest::newRow("missing reference") << QStringList{"--plot", "x.png", "--reference", "/nonexistent/ref.csv"}
                                           << "cannot read it";
    }
    void refusedOptions()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const Result r = nbody(QStringList{"bench", "--from", m_json} + args);
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
    }

    /// --from with a file that is not a bench JSON.
    void badFrom()
    {
        const QString path = m_dir.filePath("not-bench.json");
        writeFile(path, "{\"hello\": 1}\n");
        const Result r = nbody({"bench", "--from", path});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("no results array"), qPrintable(r.err));
        const Result measured = nbody({"bench", "--from", m_json, "--kernels", "cpu"});
        QVERIFY(measured.code != 0);
        QVERIFY2(measured.err.contains("excludes"), qPrintable(measured.err));
    }
};

QTEST_GUILESS_MAIN(TestBenchPlot)
#include "tst_bench_plot.moc"
