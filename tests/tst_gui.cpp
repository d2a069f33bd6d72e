// End-to-end test of the desktop app: nbody-sandbox runs a few steps with the CPU kernel, saves a
// screenshot of its view and exits; the screenshot must show bodies coloured green (light) to red
// (heavy) on the dark background. Also checks that bad options exit with code 2 and say why.
// Needs a display with desktop OpenGL (run under xvfb-run); skips without one.
#include <QDir>
#include <QImage>
#include <QStandardPaths>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <map>

namespace {

constexpr int kTimeoutMs = 240'000;

bool haveDisplay()
{
    const QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    return !env.value(QStringLiteral("DISPLAY")).isEmpty() ||
           !env.value(QStringLiteral("WAYLAND_DISPLAY")).isEmpty();
}

struct Run {
    int exitCode = -1;
    QString stderrText;
    bool finished = false;
};

Run runApp(const QStringList& args, const QProcessEnvironment& extra = {})
{
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(extra);
    // The offscreen platform has no OpenGL here; the app needs the real display.
    if (env.value(QStringLiteral("QT_QPA_PLATFORM")) == QLatin1String("offscreen"))
        env.remove(QStringLiteral("QT_QPA_PLATFORM"));
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(NBODY_APP_PATH), args);
    Run r;
    if (!p.waitForStarted(30'000))
        return r;
    r.finished = p.waitForFinished(kTimeoutMs);
    if (!r.finished) {
        p.kill();
        p.waitForFinished(5'000);
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.stderrText = QString::fromLocal8Bit(p.readAllStandardError());
    return r;
}

} // namespace

class TestGui : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        if (!haveDisplay())
            QSKIP("needs a display with OpenGL: run under xvfb-run -a");
    }

    void captureCpu()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString png = dir.filePath(QStringLiteral("c.png"));
        const Run run = runApp({QStringLiteral("--kernel"), QStringLiteral("cpu"),
                              QStringLiteral("--bodies"), QStringLiteral("3001"),
                              QStringLiteral("--steps"), QStringLiteral("10"),
                              QStringLiteral("--capture"), png, QStringLiteral("--quit")});
        QVERIFY2(run.finished, "nbody-sandbox did not finish in time");
        QVERIFY2(run.exitCode == 0, qPrintable(QStringLiteral("exit code %1, stderr: %2")
                                                   .arg(run.exitCode).arg(run.stderrText)));

        QImage image(png);
        QVERIFY2(!image.isNull(), "the capture is not a readable PNG");
        QVERIFY(image.width() > 0 && image.height() > 0);
        image = image.convertToFormat(QImage::Format_RGB32);

        // background = the most common colour
        std::map<QRgb, int> histogram;
        for (int y = 0; y < image.height(); y += 4)
            for (int x = 0; x < image.width(); x += 4)
                ++histogram[image.pixel(x, y)];
        const QRgb background =
            std::max_element(histogram.begin(), histogram.end(),
                             [](const auto& a, const auto& b) { return a.second < b.second; })->first;
        QVERIFY2(qRed(background) < 64 && qGreen(background) < 64 && qBlue(background) < 64,
                 "the background should be dark");

        int differing = 0, bright = 0, blueish = 0, greenish = 0, reddish = 0;
        for (int y = 0; y < image.height(); ++y) {
            for (int x = 0; x < image.width(); ++x) {
                const QRgb c = image.pixel(x, y);
                const int r = qRed(c), g = qGreen(c), b = qBlue(c);
                const int d = std::abs(r - qRed(background)) + std::abs(g - qGreen(background)) +
                              std::abs(b - qBlue(background));
                if (d > 24)
                    ++differing;
                const int m = std::max({r, g, b});
                if (m < 128)
                    continue; // faint edges blend with the background
                ++bright;
                if (double(b) >= 0.35 * double(std::max(r, g)))
                    ++blueish;
                if (g > r)
                    ++greenish;
                if (r > g)
                    ++reddish;
            }
        }
        qInfo("capture %dx%d: %d pixels differ from the background, %d bright (%d green, %d red, "
              "%d blue-ish)", image.width(), image.height(), differing, bright, greenish, reddish,
              blueish);
        QVERIFY2(differing >= 300, "too few body pixels in the capture");
        QVERIFY2(bright >= 100, "too few bright body pixels");
        QVERIFY2(blueish <= bright / 50, "body colours must run from green to red, without blue");
        QVERIFY2(greenish >= 10, "no green (light) bodies");
        QVERIFY2(reddish >= 10, "no red (heavy) bodies");
    }

    void exportAtChosenSize()
    {
        // --capture goes through File → Export frame's offscreen path: any size, PNG or JPEG.
        QTemporaryDir dir;
        const QString jpg = dir.filePath(QStringLiteral("e.jpg"));
        const Run run = runApp({"--kernel", "cpu", "--bodies", "2001", "--steps", "2", "--capture", jpg,
                                "--capture-size", "333x211", "--quit"});
        QVERIFY2(run.finished && run.exitCode == 0, qPrintable(run.stderrText));
        const QImage image(jpg);
        QCOMPARE(image.size(), QSize(333, 211));
        int greenish = 0, reddish = 0;
        for (int y = 0; y < image.height(); ++y)
            for (int x = 0; x < image.width(); ++x) {
                const QRgb c = image.pixel(x, y);
                greenish += qGreen(c) > 150 && qRed(c) < 100;
                reddish += qRed(c) > 150 && qGreen(c) < 100;
            }
        QVERIFY2(greenish >= 5 && reddish >= 5, qPrintable(QStringLiteral("%1 green, %2 red").arg(greenish).arg(reddish)));
    }
    void hiDpiCapture()
    {
        // On a screen scaled by 2 (device pixel ratio 2) the view renders in device pixels: the
        // capture at the view's size has exactly twice the width and height of the same window
        // at ratio 1, and shows the same picture (the bodies' bounding box scales by 2 too).
        QTemporaryDir dir;
        QSize sizes[2];
        QRect boxes[2];
        for (int scale : {1, 2}) {
            QProcessEnvironment env;
            env.insert("QT_SCALE_FACTOR", QString::number(scale));
            const QString png = dir.filePath(QStringLiteral("dpr%1.png").arg(scale));
            const Run run = runApp({"--kernel", "cpu", "--bodies", "2000", "--capture", png, "--quit"}, env);
            QVERIFY2(run.finished && run.exitCode == 0, qPrintable(run.stderrText));
            const QImage image = QImage(png).convertToFormat(QImage::Format_RGB32);
            sizes[scale - 1] = image.size();
            QRect box;
            for (int y = 0; y < image.height(); ++y)
                for (int x = 0; x < image.width(); ++x)
                    if (qMax(qRed(image.pixel(x, y)), qGreen(image.pixel(x, y))) > 100)
                        box |= QRect(x, y, 1, 1);
            boxes[scale - 1] = box;
        }
        QCOMPARE(sizes[1], sizes[0] * 2);
        // Sprites are 3 px at ratio 1 and 6 px at ratio 2: the box edges agree within a sprite.
        QVERIFY2(std::abs(boxes[1].width() - 2 * boxes[0].width()) <= 8 &&
                     std::abs(boxes[1].height() - 2 * boxes[0].height()) <= 8,
                 qPrintable(QStringLiteral("%1x%2 vs %3x%4").arg(boxes[1].width()).arg(boxes[1].height())
                                .arg(boxes[0].width()).arg(boxes[0].height())));
    }
    void recordSequence()
    {
        // 12 steps, a frame every 4 (5 per drawn frame, so frames must stop at the recorded steps):
        // steps 0, 4, 8, 12 -> frame_00000.png .. frame_00003.png.
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("seq"));
        const Run run = runApp({"--kernel", "cpu", "--bodies", "1001", "--steps", "12", "--steps-per-frame", "5",
                                "--record", out, "--record-every", "4", "--record-size", "64x48", "--quit"});
        QVERIFY2(run.finished && run.exitCode == 0, qPrintable(run.stderrText));
        const QStringList files = QDir(out).entryList(QDir::Files);
        QCOMPARE(files, (QStringList{"frame_00000.png", "frame_00001.png", "frame_00002.png", "frame_00003.png"}));
        for (const QString& f : files)
            QCOMPARE(QImage(QDir(out).filePath(f)).size(), QSize(64, 48));
    }
    void recordMp4()
    {
        if (QStandardPaths::findExecutable("ffmpeg").isEmpty() || QStandardPaths::findExecutable("ffprobe").isEmpty())
            QSKIP("ffmpeg/ffprobe not installed");
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("thirty.mp4"));
        // 29 steps recorded every step: the initial state and 29 more = 30 frames.
        const Run run = runApp({"--kernel", "cpu", "--bodies", "1001", "--steps", "29", "--steps-per-frame", "3",
                                "--record", out, "--record-size", "200x100", "--quit"});
        QVERIFY2(run.finished && run.exitCode == 0, qPrintable(run.stderrText));
        QProcess p;
        p.start("ffprobe", {"-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                            "stream=nb_read_frames,width,height", "-of", "csv=p=0", out});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(QString::fromLocal8Bit(p.readAllStandardOutput()).trimmed(), QStringLiteral("200,100,30"));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{"thirty.mp4"});
    }
    void recordFailureStops()
    {
        // The directory disappears while recording: the recording stops with a message (exit 1
        // with --quit), and the frames written before stay complete and readable.
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("seq"));
        const QString moved = dir.filePath(QStringLiteral("moved"));
        QProcess p;
        p.start(QStringLiteral(NBODY_APP_PATH), {"--kernel", "cpu", "--bodies", "501", "--steps", "1000000",
                                                 "--record", out, "--record-size", "32x32", "--quit"});
        QVERIFY(p.waitForStarted(30000));
        QTRY_VERIFY_WITH_TIMEOUT(QFileInfo::exists(out + "/frame_00002.png"), 60000);
        QVERIFY(QDir().rename(out, moved));
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 1);
        const QString err = QString::fromLocal8Bit(p.readAllStandardError());
        QVERIFY2(err.contains("Recording stopped after") && err.contains("does not exist"), qPrintable(err));
        const QStringList files = QDir(moved).entryList(QDir::Files);
        QVERIFY(files.size() >= 3);
        for (const QString& f : files) {
            QVERIFY2(f.startsWith("frame_") && f.endsWith(".png"), qPrintable(f)); // no temporary files
            QCOMPARE(QImage(QDir(moved).filePath(f)).size(), QSize(32, 32));
        }
    }
    void badOptions_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("unknown kernel")
            << QStringList{QStringLiteral("--kernel"), QStringLiteral("nosuch"), QStringLiteral("--quit")}
            << QStringLiteral("nosuch");
        QTest::newRow("zero bodies")
            << QStringList{QStringLiteral("--bodies"), QStringLiteral("0"), QStringLiteral("--quit")}
            << QStringLiteral("--bodies");
        // A device is never replaced by a capture (as root, a rename over /dev/null would).
        QTest::newRow("capture onto a device")
            << QStringList{QStringLiteral("--steps"), QStringLiteral("1"), QStringLiteral("--capture"),
                           QStringLiteral("/dev/null"), QStringLiteral("--quit")}
            << QStringLiteral("not a regular file");
        QTest::newRow("unreadable input")
            << QStringList{QStringLiteral("--input"), QStringLiteral("/nonexistent/g.bin"), QStringLiteral("--quit")}
            << QStringLiteral("/nonexistent/g.bin");
        QTest::newRow("record onto /dev/full")
            << QStringList{QStringLiteral("--steps"), QStringLiteral("1"), QStringLiteral("--record"),
                           QStringLiteral("/dev/full"), QStringLiteral("--quit")}
            << QStringLiteral("not a directory");
        QTest::newRow("record into a missing directory")
            << QStringList{QStringLiteral("--steps"), QStringLiteral("1"), QStringLiteral("--record"),
                           QStringLiteral("/nonexistent/x.mp4"), QStringLiteral("--quit")}
            << QStringLiteral("does not exist");
    }

    void badOptions()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, mentions);
        const Run run = runApp(args);
        QVERIFY(run.finished);
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.stderrText.contains(mentions), qPrintable(run.stderrText));
        QVERIFY(!QFileInfo(QStringLiteral("/dev/null")).isFile()); // still the device
    }
};

QTEST_GUILESS_MAIN(TestGui)
#include "tst_gui.moc"
